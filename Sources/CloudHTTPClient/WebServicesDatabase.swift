import AsyncHTTPClient
import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import NIOCore
import NIOHTTP1

/// A client of `ideabox serve`: the private database of one account, reached over HTTP in
/// CloudKit Web Services' JSON with the account's token: as Apple's `ckWebAuthToken` with the
/// container's `ckAPIToken` when there is one, else (ours) as `Authorization: Bearer`.
///
/// Requests go out one at a time through async-http-client, which keeps the connection
/// open between them, each with its own timeout. Whatever goes wrong reaches the caller as a
/// `CloudError`: a transport failure or an answer that can't be read is `networkFailure`
/// (the request may or may not have been applied), a 429 is `requestRateLimited`, a 503
/// `serviceUnavailable` with its `Retry-After`, a refused token `notAuthenticated`.
public struct WebServicesDatabase: CloudDatabase {
    /// Where the server is, and the path its private database has.
    public struct Endpoint: Sendable, Hashable {
        /// The server's base URL, such as `http://127.0.0.1:8420`.
        public var server: URL
        /// The container named in every path.
        public var container: String
        /// `production` or `development`.
        public var environment: String
        /// The container's API token (`ckAPIToken`), if the server gave one.
        public var apiToken: String?
        /// Whether plain HTTP to a machine other than this one is allowed (the user said
        /// `--allow-insecure-http`); without it such a request is refused before it is sent.
        public var allowsInsecureHTTP: Bool

        /// The private database of `container` in `environment` on `server`.
        public init(
            server: URL, container: String, environment: String = "production", apiToken: String? = nil,
            allowsInsecureHTTP: Bool = false
        ) {
            self.server = server
            self.container = container
            self.environment = environment
            self.apiToken = apiToken
            self.allowsInsecureHTTP = allowsInsecureHTTP
        }

        /// The URL of `operation`, such as `records/modify`: in the private database, but for
        /// the operations Apple has in the public one only (`users/current`).
        func url(_ operation: WebServicesPath.Operation) -> URL {
            var url = server
            let database = operation.isPublic ? "public" : "private"
            for component in ["database", "1", container, environment, database] + operation.rawValue.split(separator: "/").map(String.init) {
                url.appendPathComponent(component)
            }
            return url
        }
    }

    /// The most operations the server takes in one request (CloudKit's limit).
    public static let maximumOperations = WebServicesFormat.maximumOperations
    /// The most changes the server sends in one page of zone changes.
    public static let maximumChangesPerPage = WebServicesFormat.maximumChangesPerPage

    public let endpoint: Endpoint
    private let accountName: String
    /// The user's token, shared by every copy: Apple's answers hand out new ones.
    let token: WebAuthToken
    let transport: HTTPTransport
    public let maximumRecordsPerRequest: Int
    /// Whether a save over a change tag goes as `replace` (the record whole) rather than
    /// `update` (a merge of the fields sent): for sealed records, whose first sealed version
    /// must not keep the plain fields of the version before it.
    public var replacesWholeRecords = false
    /// The pages of changes long polls carried, waiting for the fetch they answer; shared by
    /// every copy of this client, so the feed's copy fills what the database's copy reads.
    let carriedPages = CarriedPages()
    /// The id this client names itself with in its requests (`X-IdeaBox-Device`, ours), chosen
    /// once per client: the server wakes none of its long polls for its own saves.
    public var device: String { transport.device }

    /// The client of `accountName` on `endpoint`, signed out if `token` is nil, over the
    /// connections of `pool`. Each request fails with `networkFailure` if no answer came
    /// within `timeout` seconds. A new token an answer hands out (Apple's way,
    /// `WebAuthToken`) is sent from then on and given to `onNewToken` first, with the one it
    /// replaces. A token refused is tried once more as `savedToken` reads it, when that is
    /// another: a second process of the profile may have spent this client's and kept the next.
    public init(
        endpoint: Endpoint, accountName: String, token: String?, timeout: Double = 30,
        maximumRecordsPerRequest: Int = maximumOperations, pool: HTTPConnectionPool = .shared,
        onNewToken: @escaping @Sendable (_ previous: String, _ new: String) -> Void = { _, _ in },
        savedToken: @escaping @Sendable () -> String? = { nil }
    ) {
        self.endpoint = endpoint
        self.accountName = accountName
        self.token = WebAuthToken(token, onNew: onNewToken, saved: savedToken)
        self.transport = HTTPTransport(
            timeout: .nanoseconds(Int64((timeout * 1e9).rounded())), pool: pool, allowsInsecureHTTP: endpoint.allowsInsecureHTTP,
            device: UUID().uuidString.lowercased())
        self.maximumRecordsPerRequest = maximumRecordsPerRequest
    }

    public func accountStatus() async throws -> AccountStatus {
        token.current == nil ? .noAccount : .available(accountName: accountName)
    }

    public func createZone(_ zone: RecordZoneID) async throws {
        try await modifyZone(zone, operationType: "create")
    }

    public func deleteZone(_ zone: RecordZoneID) async throws {
        do {
            try await modifyZone(zone, operationType: "delete")
        } catch CloudError.zoneNotFound {
            return
        }
    }

    private func modifyZone(_ zone: RecordZoneID, operationType: String) async throws {
        let answer = try await send(.zonesModify, [
            "operations": [["operationType": .string(operationType), "zone": ["zoneID": WebServicesFormat.object(zone)]]],
        ])
        guard let results = answer["zones"]?.array, results.count == 1, let result = results[0].object else {
            throw CloudError.networkFailure
        }
        if let error = WebServicesError(result) { throw error.cloudError() }
    }

    public func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        guard let zone = recordIDs.first?.zoneID ?? records.first?.recordID.zoneID else { return ModifyResult() }
        return try await sendModify(saving: records, deleting: recordIDs, savePolicy: savePolicy, in: zone)
    }

    /// Sends one `records/modify` of `zone` and reads its answer.
    private func sendModify(
        saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy, in zone: RecordZoneID
    ) async throws -> ModifyResult {
        // Deletes first: the server applies them before the saves whatever the order, and
        // answers in the order of the operations.
        var operations: [JSONValue] = recordIDs.map { recordID in
            ["operationType": "forceDelete", "record": .object(Self.reference(recordID, in: zone))]
        }
        for record in records {
            var object = WebServicesFormat.object(record)
            object["deleted"] = nil
            object["created"] = nil
            object["modified"] = nil
            if record.recordID.zoneID == zone { object["zoneID"] = nil }
            let operationType = switch savePolicy {
            case .allKeys: "forceReplace"
            case .ifServerRecordUnchanged: record.changeTag == nil ? "create" : replacesWholeRecords ? "replace" : "update"
            }
            operations.append(["operationType": .string(operationType), "record": .object(object)])
        }
        // `desiredKeys: []`: a saved record comes back without its fields, which are the ones
        // sent; only its system fields (change tag, dates) are new.
        let answer = try await send(.recordsModify, [
            "operations": .array(operations), "zoneID": WebServicesFormat.object(zone), "atomic": false, "desiredKeys": [],
        ])
        return try WebServicesAnswer.modifyResult(answer, deletes: recordIDs, saves: records)
    }

    public func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        // The page a long poll's answer carried after this very token needs no request.
        if let token, let carried = carriedPages.take(zone, after: token) { return carried }
        return try WebServicesAnswer.changesZonePage(await send(.changesZone, Self.changesRequest(zone, since: token, resultsLimit: resultsLimit)), zone: zone)
    }

    /// `fetchChanges` without a thread waiting for the answer (a benchmark's thousands of
    /// devices on one event loop): the same carried page taken, else the same request sent,
    /// its answer read on the pool's event loop.
    public func fetchChangesFuture(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) -> EventLoopFuture<ZoneChanges> {
        if let token, let carried = carriedPages.take(zone, after: token) {
            return transport.pool.client.eventLoopGroup.any().makeSucceededFuture(carried)
        }
        return sendFuture(.changesZone, Self.changesRequest(zone, since: token, resultsLimit: resultsLimit))
            .flatMapThrowing { try WebServicesAnswer.changesZonePage($0, zone: zone) }
    }

    /// The body of a `changes/zone` request for the page of `zone` after `token`.
    private static func changesRequest(_ zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) -> WebServicesFormat.Object {
        var request: WebServicesFormat.Object = [
            "zoneID": WebServicesFormat.object(zone),
            "resultsLimit": .integer(Int64(min(max(1, resultsLimit), maximumChangesPerPage))),
        ]
        if let token { request["syncToken"] = .string(token.data.base64EncodedString()) }
        return ["zones": [.object(request)]]
    }

    public func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        var records: [RemoteRecord] = []
        var marker: String?
        repeat {
            var body: WebServicesFormat.Object = [
                "zoneID": WebServicesFormat.object(zone), "query": ["recordType": .string(recordType)],
                "resultsLimit": .integer(Int64(Self.maximumOperations)),
            ]
            if let marker { body["continuationMarker"] = .string(marker) }
            let page = try WebServicesAnswer.queryPage(try await send(.recordsQuery, body), zone: zone)
            records += page.records
            marker = page.continuationMarker
        } while marker != nil
        return records
    }

    /// Apple's two steps: an upload URL from `assets/upload`, then a POST of the bytes to it.
    public func uploadAsset(_ data: Data) async throws -> AssetReference {
        guard data.count <= AssetReference.maximumSize else { throw CloudError.limitExceeded }
        let tokens = try await send(.assetsUpload, ["tokens": [["recordType": "Asset", "fieldName": "data"]]])["tokens"]?.array
        guard tokens?.count == 1, let location = tokens?[0].object?["url"]?.string, let url = URL(string: location),
              ["http", "https"].contains(url.scheme)
        else { throw CloudError.networkFailure }
        let (status, headers, body) = try await transport.post(url, body: [UInt8](data), contentType: "application/octet-stream", credentials: nil)
        let answer = try object(try Self.success(status: status, headers: headers, body: body))
        let expected = AssetReference(of: data)
        // The server names the asset by the bytes it received: another name means they were not these.
        guard let file = answer["singleFile"], WebServicesFormat.assetReference(file) == expected else {
            throw CloudError.networkFailure
        }
        return expected
    }

    public func fetchAsset(_ reference: AssetReference) async throws -> Data {
        let body: WebServicesFormat.Object = ["fileChecksum": .string(reference.checksum)]
        let answer = try await exchange(.assetsDownload, body: JSONValue.object(body).bytes, contentType: "application/json")
        let data = Data(answer.readableBytesView)
        guard reference.matches(data) else { throw CloudError.networkFailure }
        return data
    }

    /// `{recordName, zoneID}`: a record named without its fields, for a delete.
    private static func reference(_ recordID: RecordID, in zone: RecordZoneID) -> WebServicesFormat.Object {
        var object: WebServicesFormat.Object = ["recordName": .string(recordID.recordName)]
        if recordID.zoneID != zone { object["zoneID"] = WebServicesFormat.object(recordID.zoneID) }
        return object
    }

    /// Posts `body` to `operation` and returns the answer's JSON object, or throws the
    /// `CloudError` the answer means.
    func send(_ operation: WebServicesPath.Operation, _ body: WebServicesFormat.Object) async throws -> WebServicesFormat.Object {
        try object(try await exchange(operation, body: JSONValue.object(body).bytes, contentType: "application/json"))
    }

    /// The JSON object in a successful answer.
    func object(_ answer: ByteBuffer) throws -> WebServicesFormat.Object {
        try WebServicesAnswer.object(answer.readableBytesView)
    }

    /// Posts `body` to `operation` and returns the body of a successful answer, or throws the
    /// `CloudError` the answer means.
    private func exchange(_ operation: WebServicesPath.Operation, body: [UInt8], contentType: String) async throws -> ByteBuffer {
        let (url, credentials, used) = try signedURL(operation)
        let (status, headers, answer) = try await transport.post(url, body: body, contentType: contentType, credentials: credentials)
        token.adopt(from: headers)
        do {
            return try Self.signedSuccess(status: status, headers: headers, body: answer)
        } catch CloudError.tokenRefused where token.fresher(than: used) != nil {
            // A refused token changes nothing on the server: the request goes again, once.
            let (url, credentials, _) = try signedURL(operation)
            let (status, headers, answer) = try await transport.post(url, body: body, contentType: contentType, credentials: credentials)
            token.adopt(from: headers)
            return try Self.signedSuccess(status: status, headers: headers, body: answer)
        }
    }

    /// `send` without a thread waiting for the answer: the answer is read on the pool's event loop.
    func sendFuture(
        _ operation: WebServicesPath.Operation, _ body: WebServicesFormat.Object, retryingRefusal: Bool = true
    ) -> EventLoopFuture<WebServicesFormat.Object> {
        let url: URL
        let credentials: String?
        let used: String
        do {
            (url, credentials, used) = try signedURL(operation)
        } catch {
            return transport.pool.client.eventLoopGroup.any().makeFailedFuture(error)
        }
        let answer = transport.postFuture(url, body: JSONValue.object(body).bytes, contentType: "application/json", credentials: credentials)
            .flatMapThrowing { [self] status, headers, answer in
                token.adopt(from: headers)
                return try object(try Self.signedSuccess(status: status, headers: headers, body: answer))
            }
        guard retryingRefusal else { return answer }
        return answer.flatMapError { [self] error in
            // As `exchange`: a token another process spent is tried once as it was kept since.
            guard case CloudError.tokenRefused = error, token.fresher(than: used) != nil else {
                return answer.eventLoop.makeFailedFuture(error)
            }
            return sendFuture(operation, body, retryingRefusal: false)
        }
    }

    /// The URL of `operation` and the `Authorization` to send with it: the token as a bearer,
    /// or in the query beside the container's API token (Apple's way).
    /// Also the token it sends.
    func signedURL(_ operation: WebServicesPath.Operation) throws -> (url: URL, credentials: String?, token: String) {
        guard let token = token.current else { throw CloudError.notAuthenticated }
        let url = endpoint.url(operation)
        guard let apiToken = endpoint.apiToken else { return (url, "Bearer \(token)", token) }
        // Apple's way: both tokens in the query, percent-encoded ('+', '/' and '=' too).
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = Self.query([("ckAPIToken", apiToken), ("ckWebAuthToken", token)])
        return (components.url ?? url, nil, token)
    }

    /// `pairs` as a query, each value percent-encoded (`queryValueAllowed`).
    static func query(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? "")" }.joined(separator: "&")
    }

    /// What a value in a query this client writes keeps as it is: `+`, `/`, `=` and `&` (of
    /// base64 tokens) are percent-encoded, so that none reads as a space or a separator.
    static let queryValueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+/=&"))

    /// The body of a successful answer to a request that carried a token: as `success`, but
    /// a refusal is `tokenRefused` (the server refused the token, which signing in again mends).
    static func signedSuccess(status: Int, headers: HTTPHeaders, body answer: ByteBuffer) throws -> ByteBuffer {
        do {
            return try success(status: status, headers: headers, body: answer)
        } catch CloudError.notAuthenticated {
            throw CloudError.tokenRefused
        }
    }

    /// The body of a successful answer, or the `CloudError` the answer means.
    static func success(status: Int, headers: HTTPHeaders, body answer: ByteBuffer) throws -> ByteBuffer {
        try WebServicesAnswer.checkSuccess(status: status, retryAfterHeader: headers.first(name: "Retry-After"), body: answer.readableBytesView)
        return answer
    }
}

/// Posts one request at a time; its answer is awaited, holding no thread.
struct HTTPTransport: Sendable {
    let timeout: TimeAmount
    let pool: HTTPConnectionPool
    let allowsInsecureHTTP: Bool
    /// The client's id, sent with every POST as `X-IdeaBox-Device`.
    let device: String

    /// The status, headers and body of the answer to a POST of `body` with `credentials` as
    /// its `Authorization` (none if nil), or `networkFailure` if none came within the timeout.
    func post(_ url: URL, body: [UInt8], contentType: String, credentials: String?) async throws -> (status: Int, headers: HTTPHeaders, body: ByteBuffer) {
        try await postFuture(url, body: body, contentType: contentType, credentials: credentials).get()
    }

    /// `post` without a thread waiting for the answer: it completes on the pool's event loop.
    func postFuture(_ url: URL, body: [UInt8], contentType: String, credentials: String?) -> EventLoopFuture<Answer> {
        var headers: HTTPHeaders = ["Content-Type": contentType, "X-IdeaBox-Device": device]
        if let credentials { headers.add(name: "Authorization", value: credentials) }
        return execute(url, deadline: .now() + timeout) { try HTTPClient.Request(url: url, method: .POST, headers: headers, body: .bytes(body)) }
    }

    /// The status, headers and body of the answer to a GET of `url`, which may take up to
    /// `wait` (a long poll), or `networkFailure` if none came by then.
    func get(_ url: URL, wait: TimeAmount, credentials: String? = nil) async throws -> (status: Int, headers: HTTPHeaders, body: ByteBuffer) {
        try await getFuture(url, wait: wait, credentials: credentials).get()
    }

    /// `get` without a thread waiting for the answer: it completes on the pool's event loop.
    func getFuture(_ url: URL, wait: TimeAmount, credentials: String? = nil) -> EventLoopFuture<Answer> {
        var headers: HTTPHeaders = [:]
        if let credentials { headers.add(name: "Authorization", value: credentials) }
        return execute(url, deadline: .now() + wait) { try HTTPClient.Request(url: url, method: .GET, headers: headers) }
    }

    /// An answer's status, headers and body.
    typealias Answer = (status: Int, headers: HTTPHeaders, body: ByteBuffer)

    /// Sends the request `make` builds for `url`, failing with the `CloudError` a failure means.
    private func execute(_ url: URL, deadline: NIODeadline, _ make: () throws -> HTTPClient.Request) -> EventLoopFuture<Answer> {
        let request: HTTPClient.Request
        do {
            try checkScheme(url)
        } catch {
            return pool.client.eventLoopGroup.any().makeFailedFuture(error)
        }
        do {
            request = try make()
        } catch {
            return pool.client.eventLoopGroup.any().makeFailedFuture(Self.cloudError(error, url: url))
        }
        return pool.client.execute(request: request, deadline: deadline)
            .map { response in (Int(response.status.code), response.headers, response.body ?? ByteBuffer()) }
            .flatMapErrorThrowing { error in throw Self.cloudError(error, url: url) }
    }

    /// Every request carries a token, a signed ticket or an idea: over plain HTTP, only to this
    /// machine (127.0.0.0/8, ::1, localhost), unless the user allowed it. Refused before any
    /// packet is sent.
    private func checkScheme(_ url: URL) throws {
        guard url.scheme?.lowercased() == "http", !allowsInsecureHTTP else { return }
        let host = url.host ?? ""
        guard !LoopbackHost.contains(host) else { return }
        throw CloudError.untrustedServer(host: host, reason: LoopbackHost.plainHTTPReason)
    }

    /// What a failed exchange means: a certificate this device does not trust, named with
    /// its host and why; a server that could not be reached, named with its host and port
    /// and how; anything else is a network failure.
    static func cloudError(_ error: any Error, url: URL) -> CloudError {
        if let reason = HTTPConnectionPool.certificateProblem(error) {
            return .untrustedServer(host: url.host ?? url.absoluteString, reason: reason)
        }
        if let cause = HTTPConnectionPool.unreachableCause(error) {
            return .serverUnreachable(host: hostAndPort(url), cause: cause)
        }
        return .networkFailure
    }

    /// `127.0.0.1:8420`, or the host alone when the URL names no port.
    static func hostAndPort(_ url: URL) -> String {
        let host = url.host ?? url.absoluteString
        let shown = host.contains(":") ? "[\(host)]" : host
        return url.port.map { "\(shown):\($0)" } ?? shown
    }
}

extension WebServicesDatabase {
    /// What the server says the signed-in account holds and may hold (`users/usage`); throws
    /// the `CloudError` of a request that failed, as any request does.
    public func accountUsage() async throws -> ServedAccountUsage {
        try ServedAccountUsage(answer: try await send(.usersUsage, [:]))
    }
}
