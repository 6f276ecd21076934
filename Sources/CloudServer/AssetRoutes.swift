import CloudKitModel
import CloudWebServices
import Hummingbird
import IdeaBoxFoundation
import NIOCore
import NIOHTTP1
import ServerStore

/// The asset bytes behind the URLs `assets/upload` and a record's `downloadURL` hand out
/// (ours: served by the same process): `POST /assets/upload/TICKET` and
/// `GET /assets/download/TICKET`.
struct AssetRoutes {
    /// Why an asset URL is refused: a ticket forged, expired, of another kind or of a token
    /// no longer valid.
    static let refusal = "This asset URL is not valid, or it has expired."

    let store: any AccountStore & AssetStore
    let secret: ServerSecret
    let clock: WallClock
    let uploads: UploadSpool
    let shares: FairShares

    /// Adds the two routes to `router`.
    func add(to router: Router<ServerRequestContext>) {
        router.group("assets/upload")
            .add(middleware: TicketMiddleware(kind: .upload, method: .post, refusal: Self.refusal, secret: secret, store: store, clock: clock, connections: shares.connections))
            .add(middleware: BodyLimitMiddleware(maximumBytes: AssetReference.maximumSize))
            .add(middleware: UploadAdmissionMiddleware(store: store, uploads: uploads, shares: shares))
            .onEveryMethod(":ticket") { request, context in try await receive(request, owner: context.ticket?.owner ?? "") }
        router.group("assets/download")
            .add(middleware: TicketMiddleware(kind: .download, method: .get, refusal: Self.refusal, secret: secret, store: store, clock: clock, connections: shares.connections))
            .onEveryMethod(":ticket") { _, context in
                try await Self.download(context.ticket?.subject ?? "", owner: context.ticket?.owner ?? "", from: store)
            }
    }

    /// Stores the body of an asset upload (any bytes, at most `AssetReference.maximumSize`
    /// of them) for `owner`, streamed through a file, and answers `{singleFile: {fileChecksum,
    /// size, receipt}}`, whose inner dictionary a save names as an `ASSETID` value.
    private func receive(_ request: Request, owner: String) async throws -> Response {
        let upload: AssetUpload
        do {
            upload = try await AssetUpload.receive(request.body, into: uploads.folder)
        } catch let error as HTTPParserError {
            throw ClientLeft.unreadableBody(error)
        }
        defer { upload.remove() }
        try await store.storeAsset(upload.reference, bytes: .file(upload.file), account: owner)
        return .json(["singleFile": WebServicesFormat.object(upload.reference)])
    }

    /// The asset `checksum` of `owner`, streamed a stored chunk at a time, or `NOT_FOUND`.
    static func download(_ checksum: String, owner: String, from store: any AssetStore) async throws -> Response {
        guard let chunks = try await store.assetChunkCount(checksum, account: owner) else {
            throw WebServicesError(code: "NOT_FOUND", reason: "No asset \(checksum) in this account.")
        }
        return Response(
            status: .ok, headers: [.contentType: "application/octet-stream"],
            body: ResponseBody { writer in
                for index in 0..<chunks {
                    guard let chunk = try await store.assetChunk(checksum, account: owner, index: index) else { throw CloudError.unknownItem }
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            })
    }
}
