import CloudKitModel
import IdeaBoxFoundation
import ServerStore
import CloudWebServices
import Crypto
import Foundation
import Hummingbird
import NIOHTTP1
import Synchronization

/// Answers CloudKit Web Services requests for the private databases in a `RecordStore`.
///
/// Every request is hostile until shown otherwise: the path is checked first, then the
/// credentials (none, or bad ones, touch nothing), then the body's size (at most
/// `maximumBodyBytes`) and its JSON, and only then does anything reach the store. The
/// account comes from the web auth token alone, so no name in a body can reach another
/// account's zones or records. Each request gets one line in the log.
struct CloudWebResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    /// The largest JSON body read; a larger one is refused unread (`BAD_REQUEST`, `limitExceeded:`). (An
    /// asset upload may be up to `AssetReference.maximumSize`.)
    static let maximumBodyBytes = 8 << 20
    /// The page `redirectURL` names, which tells a person how to get a token.
    static let signInPath = "/signin"
    /// Where a load balancer or an operator asks whether this process serves (ours).
    static let healthPath = "/healthz"
    /// Where Prometheus reads the server's metrics (ours).
    static let metricsPath = "/metrics"

    let store: any RecordStore
    /// The containers served; the first one's databases are the accounts' own (see `owner`).
    let containers: [String]
    let log: RequestLog
    let clock: WallClock
    /// Signs asset and webcourier URLs: the store's `serverSecret`, read once.
    let secret: ServerSecret
    /// Where long polls wait for changes.
    let hub: ZoneChangeHub
    /// `http` or `https`: what the asset and webcourier URLs it hands out start with.
    let scheme: String
    /// What `/metrics` reports.
    let metrics: ServerMetrics
    /// Where uploads are written as they arrive (owner-only), and how many may arrive at once.
    let uploads: UploadSpool
    /// What the log says of a client that left before its body arrived (as nginx does).
    static let clientLeftStatus = 499
    /// The longest a long poll is held (about a minute, as CloudKit's).
    static let longPollTimeout: Duration = .seconds(60)

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        var account: String?
        var loggedPath = String(request.uri.path.prefix(300))
        let response: Response
        do {
            let path = request.uri.path
            if path.hasPrefix("/webcourier/") {
                loggedPath = "/webcourier/…"
                response = try await longPoll(request)
            } else if path.hasPrefix("/assets/") {
                // The rest of the path is a ticket, which authorises whoever holds it: never logged.
                loggedPath = "/" + path.split(separator: "/").prefix(2).joined(separator: "/") + "/…"
                response = try await assetBytes(request)
            } else if path == Self.healthPath, request.method == .get {
                response = await health()
            } else if path == Self.metricsPath, request.method == .get {
                response = Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.text(heldPolls: hub.waiting))))
            } else if path == Self.signInPath, request.method == .get {
                response = Response(
                    status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: Self.signInPage)))
            } else {
                let route = try route(request)
                account = try await authenticate(request)
                let operations = CloudOperations(
                    store: store, owner: owner(account!, container: route.container),
                    userRecordName: Self.userRecordName(owner(account!, container: route.container)),
                    container: route.container == WebServicesPath.legacyContainer ? WebServicesPath.defaultContainer : route.container,
                    assetURLs: AssetURLs(base: baseURL(request), secret: try await secret.bytes(), clock: clock), hub: hub)
                if route.operation == .assetsDownload {
                    let checksum = try CloudOperations.downloadChecksum(try await readBody(request))
                    response = try await assetResponse(checksum, owner: operations.owner)
                } else {
                    let body = request.method == .get ? [:] : try await readBody(request)
                    response = Self.json(status: .ok, try await operations.perform(route.operation, body))
                }
            }
        } catch let error as WebServicesError {
            response = Self.error(error)
        } catch let refusal as UnreadBody {
            // The body is still on its way: the connection ends with this answer (ConnectionWatch).
            var refused = Self.error(refusal.error)
            refused.headers[.connection] = "close"
            response = refused
        } catch is ClientLeft {
            log.record(
                method: request.method.rawValue, path: loggedPath, status: Self.clientLeftStatus,
                elapsed: ContinuousClock.now - started, account: account)
            return Self.error(WebServicesError.badRequest("The client left before its request was read."))
        } catch let error as CloudError {
            if error == .internalError || error.code == .serviceUnavailable { metrics.storeFailed() }
            response = Self.error(WebServicesError(error))
        } catch {
            metrics.storeFailed()
            response = Self.error(WebServicesError(.internalError))
        }
        let elapsed = ContinuousClock.now - started
        log.record(method: request.method.rawValue, path: loggedPath, status: response.status.code, elapsed: elapsed, account: account)
        metrics.record(route: Self.route(of: request.uri.path), status: response.status.code, elapsed: elapsed)
        return response
    }

    /// `GET /healthz`: 200 `{"status":"ok","store":"ok"}` when the process runs and its
    /// store answers; 503 with the store's state when it does not, so a load balancer sends
    /// requests to the other processes meanwhile.
    private func health() async -> Response {
        do {
            _ = try await store.serverSecret()
            return Self.json(status: .ok, ["status": "ok", "store": "ok"])
        } catch {
            return Self.json(status: .serviceUnavailable, ["status": "unavailable", "store": "not answering"])
        }
    }

    /// The route a path counts under in `/metrics`: an operation, or one of a few fixed names.
    static func route(of path: String) -> String {
        if path.hasPrefix("/webcourier/") { return "webcourier" }
        if path.hasPrefix("/assets/") { return "assets" }
        if [healthPath, metricsPath, signInPath].contains(path) { return String(path.dropFirst()) }
        return WebServicesPath.parse(path)?.operation.rawValue ?? "unknown"
    }

    // MARK: Routing and credentials

    /// The operation `request` asks for, or the error for a path or method that is not served.
    private func route(_ request: Request) throws -> WebServicesPath.Parsed {
        guard let path = WebServicesPath.parse(request.uri.path) else {
            throw WebServicesError(code: "NOT_FOUND", reason: "No such endpoint.")
        }
        guard servedContainers.contains(path.container) else {
            throw WebServicesError(code: "NOT_FOUND", reason: "This server serves the containers \(containers.joined(separator: ", ")) only.")
        }
        guard WebServicesPath.environments.contains(path.environment) else {
            throw WebServicesError.badRequest("The environment is production or development.")
        }
        // Apple has users/current in the public database; everything else is private only.
        guard path.database == "private" || (path.operation == .usersCurrent && path.database == "public") else {
            throw WebServicesError(code: "ACCESS_DENIED", reason: "Only the private database is served.")
        }
        guard request.method == .post || (request.method == .get && path.operation.takesGet) else {
            throw WebServicesError.methodNotAllowed(path.operation.takesGet ? "GET and POST" : "POST")
        }
        return path
    }

    /// The containers paths may name: those given, and the legacy name with the default one.
    private var servedContainers: Set<String> {
        var served = Set(containers)
        if served.contains(WebServicesPath.defaultContainer) { served.insert(WebServicesPath.legacyContainer) }
        return served
    }

    /// The store's name for `account`'s database in `container`: the account's own name in
    /// the first container served (and in the legacy name of the default one), so a store
    /// written before containers were named keeps its data there; `account@container` in
    /// any other (an account name never holds '@').
    private func owner(_ account: String, container: String) -> String {
        let container = container == WebServicesPath.legacyContainer ? WebServicesPath.defaultContainer : container
        return container == containers[0] ? account : "\(account)@\(container)"
    }

    /// The account of the request: Apple's `ckAPIToken` (the container's) with
    /// `ckWebAuthToken` (the account's) in the query, or (ours) `Authorization: Bearer` with
    /// the account's token alone.
    private func authenticate(_ request: Request) async throws -> String {
        if let header = request.headers[.authorization] {
            let prefix = "Bearer "
            guard header.hasPrefix(prefix), header.utf8.count <= 512 else { throw WebServicesError.authenticationFailed }
            return try await account(forToken: String(header.dropFirst(prefix.count)))
        }
        let query = request.uri.queryParameters
        let apiToken = query["ckAPIToken"], webToken = query["ckWebAuthToken"]
        if apiToken == nil && webToken == nil { throw WebServicesError.authenticationRequired(redirectURL: baseURL(request) + Self.signInPath) }
        guard let apiToken, WebServicesPath.isValidAPIToken(apiToken),
              try await store.isValidAPIToken(hash: AccessToken.hash(apiToken.lowercased()))
        else {
            throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: "The ckAPIToken is missing, not valid, or revoked.")
        }
        guard let webToken, !webToken.isEmpty else {
            throw WebServicesError.authenticationRequired(redirectURL: baseURL(request) + Self.signInPath)
        }
        guard webToken.utf8.count <= 512 else { throw WebServicesError.authenticationFailed }
        return try await account(forToken: String(webToken))
    }

    private func account(forToken token: String) async throws -> String {
        guard !token.isEmpty, let account = try await store.account(forAccessTokenHash: AccessToken.hash(token)) else {
            throw WebServicesError.authenticationFailed
        }
        return account
    }

    /// The user record name of a database: `_` and 32 hex digits, as Apple's look, the same
    /// for the same account and container every time, revealing neither.
    static func userRecordName(_ owner: String) -> String {
        "_" + AssetReference.checksum(of: Data("ideabox-user:\(owner)".utf8)).prefix(32)
    }

    /// `scheme://host:port` as the request named the server (its `Host`). Behind a proxy
    /// that ends TLS, `X-Forwarded-Proto: https` makes the URLs it hands out https ones; the
    /// header only changes the URLs given back to the client that sent it.
    private func baseURL(_ request: Request) -> String {
        let authority = request.head.authority ?? ""
        let safe = authority.utf8.count <= 255 && authority.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }
        let forwarded = request.headers.first { $0.name.canonicalName == "x-forwarded-proto" }?.value.lowercased() == "https"
        return (forwarded ? "https" : scheme) + "://" + (safe && !authority.isEmpty ? authority : "127.0.0.1")
    }

    // MARK: Asset bytes

    /// A POST to an upload URL or a GET of a download URL: the signed ticket in the path is
    /// the whole of the credentials, as with Apple's asset URLs.
    private func assetBytes(_ request: Request) async throws -> Response {
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[1] == "assets", let kind = ["upload": AssetTicket.Kind.upload, "download": .download][String(parts[2])] else {
            throw WebServicesError(code: "NOT_FOUND", reason: "No such endpoint.")
        }
        guard request.method == (kind == .upload ? .post : .get) else {
            throw WebServicesError.methodNotAllowed(kind == .upload ? "POST" : "GET")
        }
        guard let ticket = AssetTicket(parts[3], secret: SymmetricKey(data: try await secret.bytes()), now: clock.now()), ticket.kind == kind else {
            throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: "This asset URL is not valid, or it has expired.")
        }
        switch kind {
        case .upload:
            return Self.json(status: .ok, try await receiveAsset(request, owner: ticket.owner))
        case .download:
            return try await assetResponse(ticket.subject, owner: ticket.owner)
        case .webcourier:
            throw WebServicesError(code: "NOT_FOUND", reason: "No such endpoint.")
        }
    }

    // MARK: Long polls

    /// A GET of a webcourier URL: held until a zone one of the account's subscriptions
    /// watches changes, answered with CloudKit JS's notification dictionary
    /// `{notificationID, notificationType: "recordZone", containerIdentifier, subscriptionID,
    /// zoneID}` and (ours) the database's `syncToken` as of the answer, or with `{}` after
    /// `?timeout=` seconds (1 to 60, default 60) or when the server stops. With `?since=` a
    /// sync token (from `changes/database` or an earlier answer), a watched zone that changed
    /// after it answers at once, so no change falls between two polls. The signed ticket in
    /// the path is the whole of the credentials.
    private func longPoll(_ request: Request) async throws -> Response {
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw WebServicesError(code: "NOT_FOUND", reason: "No such endpoint.") }
        guard request.method == .get else { throw WebServicesError.methodNotAllowed("GET") }
        guard let ticket = AssetTicket(parts[2], secret: SymmetricKey(data: try await secret.bytes()), now: clock.now()),
              ticket.kind == .webcourier
        else {
            throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: "This webcourier URL is not valid, or it has expired; ask tokens/create again.")
        }
        // The ticket lasts a week: it serves only while its account still holds a valid token
        // made before the ticket was, so revoking or deleting (and making the name anew) ends it.
        let account = String(ticket.owner.split(separator: "@", maxSplits: 1)[0])
        let issued = ticket.expires.adding(milliseconds: -AssetTicket.webcourierLifetime)
        guard try await store.accessTokens(account: account).contains(where: { $0.revoked == nil && $0.created <= issued }) else {
            throw WebServicesError(code: "AUTHENTICATION_FAILED", reason: "This webcourier URL's account has no valid token; sign in again.")
        }
        var timeout = Self.longPollTimeout
        let query = request.uri.queryParameters
        if let asked = query["timeout"] {
            guard let seconds = Int(asked), (1...60).contains(seconds) else {
                throw WebServicesError.badRequest("timeout is a whole number of seconds from 1 to 60.")
            }
            timeout = .seconds(seconds)
        }
        let since = try query["since"].map { text in
            guard let token = DatabaseToken(text: String(text)) else {
                throw WebServicesError.badRequest(
                    WebServicesError.changeTokenExpiredPrefix + "since is not a sync token this server gave out; poll without it.")
            }
            return token
        }
        let (store, owner) = (store, ticket.owner)
        let subscriptions = try await store.subscriptions(account: owner)
        let change = await hub.wait(owner: owner, subscriptions: subscriptions, timeout: timeout) {
            guard let since, let current = try? await store.zoneTokens(account: owner) else { return nil }
            let changed = Set(since.changedZones(subscriptions.map(\.zone), current: DatabaseToken(current)))
            return subscriptions.first { changed.contains($0.zone) }.map { ZoneChangeHub.Change(subscriptionID: $0.id, zone: $0.zone) }
        }
        guard let change else { return Self.json(status: .ok, [:]) }
        var answer: WebServicesFormat.Object = [
            "notificationID": .string(UUID().uuidString.lowercased()),
            "notificationType": "recordZone",
            "containerIdentifier": .string(ticket.subject),
            "subscriptionID": .string(change.subscriptionID),
            "zoneID": ["zoneName": .string(change.zone.zoneName), "ownerRecordName": .string(Self.userRecordName(ticket.owner))],
        ]
        // The token to wait after next: where the device stood, moved on for the zone named
        // only, so that another zone that changed too answers the next poll at once.
        if let current = try? await store.zoneTokens(account: owner) {
            let now = DatabaseToken(current)
            var next = since ?? now
            next.zones[change.zone.zoneName] = now.zones[change.zone.zoneName]
            answer["syncToken"] = .string(next.text)
        }
        return Self.json(status: .ok, answer)
    }

    // MARK: Bodies

    /// The body as a JSON object; an empty body is `{}`.
    private func readBody(_ request: Request) async throws -> WebServicesFormat.Object {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maximumBodyBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw WebServicesError.limitExceeded("The request body is over \(Self.maximumBodyBytes >> 20) MiB.")
        } catch let error as HTTPParserError {
            throw Self.unreadableBody(error)
        }
        guard buffer.readableBytes > 0 else { return [:] }
        let json: JSONValue
        do {
            json = try buffer.withUnsafeReadableBytes { try JSONValue(parsing: $0) }
        } catch {
            throw WebServicesError.badRequest("The body is not valid JSON: \(error).")
        }
        guard let object = json.object else {
            throw WebServicesError.badRequest("The body must be a JSON object.")
        }
        return object
    }

    /// Stores the body of an asset upload (any bytes, at most `AssetReference.maximumSize`
    /// of them) for `owner`, streamed through a file, and answers `{singleFile: {fileChecksum,
    /// size, receipt}}`, whose inner dictionary a save names as an `ASSETID` value. A body
    /// its `Content-Length` shows to be too big, or beyond the account's quota, is refused
    /// unread; past `UploadSpool.maximumUploads` at once, `TRY_AGAIN_LATER`.
    private func receiveAsset(_ request: Request, owner: String) async throws -> WebServicesFormat.Object {
        let announced = request.headers[.contentLength].flatMap { Int64($0) }
        if let announced {
            guard announced <= AssetReference.maximumSize else {
                throw UnreadBody(error: .limitExceeded("An asset is at most \(AssetReference.maximumSize >> 20) MiB."))
            }
            if let maxBytes = try await store.quota(account: owner).maxAssetBytes,
               try await store.usage(account: owner).assetBytes + announced > maxBytes {
                throw UnreadBody(error: WebServicesError(CloudError.quotaExceeded))
            }
        }
        guard uploads.claim() else {
            throw UnreadBody(error: WebServicesError(
                code: "TRY_AGAIN_LATER", reason: "The server takes \(uploads.maximumUploads) uploads at once.", retryAfter: 1))
        }
        defer { uploads.release() }
        let upload: AssetUpload
        do {
            upload = try await AssetUpload.receive(request.body, into: uploads.folder)
        } catch let error as HTTPParserError {
            throw Self.unreadableBody(error)
        }
        defer { upload.remove() }
        try await store.storeAsset(upload.reference, bytes: .file(upload.file), account: owner)
        return ["singleFile": WebServicesFormat.object(upload.reference)]
    }

    /// The asset `checksum` of `owner`, streamed a stored chunk at a time, or `NOT_FOUND`.
    private func assetResponse(_ checksum: String, owner: String) async throws -> Response {
        guard let chunks = try await store.assetChunkCount(checksum, account: owner) else {
            throw WebServicesError(code: "NOT_FOUND", reason: "No asset \(checksum) in this account.")
        }
        let store = store
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

    /// A request refused before its body was read: answered with `Connection: close`, so that
    /// the bytes still coming are never read as the next request.
    struct UnreadBody: Error {
        let error: WebServicesError
    }

    /// A client that left before its body arrived, so there is nobody to answer: logged as
    /// 499 (nginx's "client closed request"), never as a server error.
    struct ClientLeft: Error {}

    /// What a body the HTTP parser gave up on means: the client left halfway, or it framed
    /// the body in a way HTTP/1.1 has not (`Transfer-Encoding: xchunked`, say): a 400.
    private static func unreadableBody(_ error: HTTPParserError) -> any Error {
        if error == .invalidEOFState { return ClientLeft() }
        return WebServicesError.badRequest("The request's body is not framed as HTTP/1.1 frames one (\(error)).")
    }

    private static func json(status: HTTPResponse.Status, _ object: WebServicesFormat.Object) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(object).bytes)))
    }

    private static func error(_ error: WebServicesError) -> Response {
        var response = json(status: HTTPResponse.Status(code: error.httpStatus), error.object)
        if let retryAfter = error.retryAfter {
            response.headers[.retryAfter] = String(Int(retryAfter.rounded(.up)))
        }
        return response
    }

    static let signInPage = """
        IdeaBox server: signing in

        Each account has its own token. Ask the person who runs this server for one
        (they make it with `ideabox serve account add NAME`), then sign in on your device:

            ideabox account sign-in NAME --server URL

        and paste the token when asked. Other CloudKit Web Services clients send the token
        as ckWebAuthToken, with the container's API token (`ideabox serve api-token add`)
        as ckAPIToken, both in the query string.

        """
}

/// The store's `serverSecret`, read from the store on first use.
final class ServerSecret: Sendable {
    private let store: any RecordStore
    private let cached = Mutex<Data?>(nil)

    init(store: any RecordStore) {
        self.store = store
    }

    func bytes() async throws -> Data {
        if let secret = cached.withLock({ $0 }) { return secret }
        let secret = try await store.serverSecret()
        cached.withLock { $0 = secret }
        return secret
    }
}
