import CloudKitModel
import CloudWebServices
import Hummingbird
import ServerStore

/// Admits an asset upload before its body is read: one whose `Content-Length` is over the
/// body limit, or beyond its account's quota of asset bytes, is refused unread; past
/// `UploadSpool.maximumUploads` at once, `TRY_AGAIN_LATER`. An admitted upload holds its
/// place in the spool until it is answered.
struct UploadAdmissionMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let store: any AccountStore
    let uploads: UploadSpool
    let shares: FairShares

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The account's quota and usage across its databases, as the store checks them again
        // when it stores the bytes.
        let account = context.ticket?.account ?? ""
        if let announced = request.headers[.contentLength].flatMap({ Int64($0) }) {
            guard announced <= Int64(context.maxUploadSize) else {
                throw UnreadBody(error: .limitExceeded("An asset is at most \(context.maxUploadSize >> 20) MiB."))
            }
            if try await !store.quota(account: account).admits(assetBytes: store.usage(account: account).assetBytes + announced) {
                throw UnreadBody(error: WebServicesError(CloudError.quotaExceeded))
            }
        }
        guard shares.uploads.claim(account) else { throw FairShares.refusal("asset uploads", limit: shares.limits.uploadsPerAccount) }
        defer { shares.uploads.release(account) }
        guard uploads.claim() else {
            throw UnreadBody(error: WebServicesError(
                code: "TRY_AGAIN_LATER", reason: "The server takes \(uploads.maximumUploads) uploads at once.", retryAfter: 1))
        }
        shares.connections.hold(context.channel, for: account)
        defer {
            shares.connections.letGo(context.channel)
            uploads.release()
        }
        return try await next(request, context)
    }
}
