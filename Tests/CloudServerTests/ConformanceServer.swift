import CloudKitModel
import CloudServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import IdeaBoxFoundation
import NIOCore
import ProcessTestSupport
import RemoteTestSupport
import SQLiteRecordStore
import ServerStore
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The stores the conformance suites run `ideabox serve` over.
enum ConformanceStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// An in-memory SQLite store.
    case sqlite
    /// A PostgreSQL store in a schema of its own.
    case postgres

    /// The stores this run can test: PostgreSQL too when `IDEABOX_TEST_POSTGRES_URL` is set.
    static var tested: [ConformanceStore] { TestPostgres.url == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }

    /// A new, empty store of this kind reading `clock`.
    func makeStore(clock: WallClock) async throws -> any RecordStore {
        switch self {
        case .sqlite:
            return try SQLiteRecordStore.inMemory(clock: clock, maximumRecordsPerRequest: ConformanceServer.maximumOperations)
        case .postgres:
            return try await TestPostgres.store(clock: clock, maximumRecordsPerRequest: ConformanceServer.maximumOperations)
        }
    }
}

/// An account of the fixture and its web auth token.
struct ConformanceAccount: Sendable, CustomStringConvertible {
    /// The account's name in the store.
    let name: String
    /// The token `ckWebAuthToken` (or a Bearer header) carries for it.
    let webToken: String

    var description: String { name }
}

/// How a request says who sends it.
enum Credentials: Sendable {
    /// Apple's way: `?ckAPIToken=…&ckWebAuthToken=…`, the fixture's API token and the account's web token.
    case query
    /// Ours: `Authorization: Bearer <the account's web token>` alone.
    case bearer
    /// Nothing at all.
    case none
    /// `ckAPIToken` and `ckWebAuthToken` as given, either left out when nil.
    case tokens(api: String?, web: String?)
    /// Exactly this `Authorization` header, and no query parameters.
    case header(String)
}

/// What the server answered to one request.
struct Answer: Sendable, CustomStringConvertible {
    /// The HTTP status.
    let status: Int
    /// The body as JSON (`.null` if it is not JSON).
    let json: ReceivedJSON
    /// The body's bytes.
    let body: Data
    /// The response's headers.
    var headers: HTTPFields = [:]

    /// The top-level `serverErrorCode`.
    var errorCode: String? { json["serverErrorCode"].string }
    /// The `records` array (empty if none).
    var records: [ReceivedJSON] { json["records"].array ?? [] }
    /// The `zones` array (empty if none).
    var zones: [ReceivedJSON] { json["zones"].array ?? [] }
    /// The `recordName` of each item of `records`, in order.
    var recordNames: [String] { records.compactMap { $0["recordName"].string } }
    /// The `zoneID.zoneName` of each item of `zones`, in order.
    var zoneNames: [String] { zones.compactMap { $0["zoneID"]["zoneName"].string } }

    var description: String { "HTTP \(status) \(json)" }

    /// Whether this is Apple's top-level error `code` at HTTP `status`, with a reason and a uuid.
    func isError(_ code: String, status: Int) -> Bool {
        self.status == status && errorCode == code && json["reason"].string != nil && json["uuid"].string?.isEmpty == false
    }
}

extension ReceivedJSON {
    /// Whether this item is a Record Fetch Error Dictionary: `code` for `recordName`, with a
    /// reason and a uuid.
    func isRecordError(_ code: String, recordName: String) -> Bool {
        self["serverErrorCode"] == .string(code) && self["recordName"] == .string(recordName)
            && self["reason"].string != nil && self["uuid"].string?.isEmpty == false
    }

    /// Whether this item is the record `recordName` (not an error), with a change tag.
    func isRecord(_ recordName: String) -> Bool {
        self["recordName"] == .string(recordName) && self["serverErrorCode"] == .null && self["recordChangeTag"].string != nil
    }

    /// The value of the record field `name` (`.null` when the record has no such field).
    func field(_ name: String) -> ReceivedJSON { self["fields"][name]["value"] }

    /// Whether this is a Zone Dictionary of zone `name` owned by `owner`: `zoneID{zoneName,
    /// ownerRecordName}`, a `syncToken`, and `atomic` (false for `_defaultZone` only).
    func isZone(_ name: String, owner: String) -> Bool {
        self["zoneID"]["zoneName"] == .string(name) && self["zoneID"]["ownerRecordName"] == .string(owner)
            && self["syncToken"].string?.isEmpty == false && self["atomic"] == .bool(name != "_defaultZone")
            && self["serverErrorCode"] == .null
    }
}

/// `ideabox serve`'s application in this process over a new store, its requests sent to its
/// router without a socket (`InProcessServer`), reached as any CloudKit Web Services client
/// reaches Apple's: an API token for the container and a web
/// auth token per account, as query parameters. Seeded with two accounts, alice and bob (names
/// made unique per instance), each with a token and a custom zone `Ideas`. Every answer it
/// receives goes through `ConformanceSweep`; `sweepFindings` holds what the sweep found.
/// Stopped when released.
final class ConformanceServer: Sendable {
    /// The container the server serves by default.
    static let container = "iCloud.com.buildwithharry.IdeaBox"
    /// The container name devices signed in before the rename still use.
    static let legacyContainer = "iCloud.ideabox"
    /// The path prefix of the private database of the default container, production
    /// environment (where the zones seeded through the store are, as an earlier release kept them).
    static let privateDatabase = database("private")
    /// Apple's limit on operations (and asset tokens) per request.
    static let maximumOperations = 200
    /// The custom zone each account has.
    static let ideas = "Ideas"
    /// The instant the store's clock starts at.
    static let start = TestTime.start.milliseconds

    /// The store behind the server, for seeding what requests cannot (quotas).
    let store: any RecordStore
    /// The container's API token: 64 lower-case hex digits.
    let apiToken: String
    /// The first account.
    let alice: ConformanceAccount
    /// The second account.
    let bob: ConformanceAccount
    /// A second web token of alice's, in Apple's alphabet: it holds '+', '/' and '='.
    let aliceBase64Token: String
    /// The web token of a third account, revoked.
    let revokedWebToken: String
    private let running: InProcessServer

    /// How many long polls the server holds now.
    var pollsHeld: Int { running.pollsHeld }
    /// How many of them have been set up (their token read and found good) and wait.
    var pollsAdmitted: Int { running.pollsAdmitted }
    private let findings = Mutex<[String]>([])

    /// The server over a new, empty store of `kind`, serving `otherContainers` after its own container.
    convenience init(_ kind: ConformanceStore, otherContainers: [String] = []) async throws {
        try await self.init(store: kind.makeStore(clock: Self.steppingClock()), otherContainers: otherContainers)
    }

    /// The server over `store`, which holds nothing of the fixture's accounts yet, serving
    /// `otherContainers` after its own container.
    init(store: any RecordStore, otherContainers: [String] = [], checksHeldTokens: Bool = true) async throws {
        let suffix = Self.randomHex(byteCount: 4)
        let alice = ConformanceAccount(name: "alice-\(suffix)", webToken: AccessToken.generate())
        let bob = ConformanceAccount(name: "bob-\(suffix)", webToken: AccessToken.generate())
        let carol = "carol-\(suffix)"
        let apiToken = Self.randomHex(byteCount: 32)
        let aliceBase64Token = "ibx_+/" + Data(Self.randomBytes(31)).base64EncodedString()
        let revokedWebToken = AccessToken.generate()

        _ = try await store.addAPIToken(hash: AccessToken.hash(apiToken), label: "conformance")
        for account in [alice, bob] {
            try await store.addAccessToken(hash: AccessToken.hash(account.webToken), account: account.name)
            try await store.createZone(RecordZoneID(zoneName: Self.ideas), account: account.name)
        }
        try await store.addAccessToken(hash: AccessToken.hash(aliceBase64Token), account: alice.name)
        try await store.addAccessToken(hash: AccessToken.hash(revokedWebToken), account: carol)
        _ = try await store.revokeAccessTokens(account: carol)

        let log = RequestLog(clock: .fixed(Timestamp(milliseconds: Self.start))) { _ in }
        // Served as `ideabox serve` serves the product's container: its legacy name too.
        var server = CloudServer(store: store, host: "127.0.0.1", port: 0, containers: [Self.container] + otherContainers, log: log)
        server.containerAliases = [Self.legacyContainer: Self.container]
        running = try await InProcessServer(server, checksHeldTokens: checksHeldTokens)
        self.store = store
        self.apiToken = apiToken
        self.alice = alice
        self.bob = bob
        self.aliceBase64Token = aliceBase64Token
        self.revokedWebToken = revokedWebToken
    }

    /// Asks the server to stop (SIGTERM's way), without waiting.
    func requestStop() {
        running.stop()
    }

    /// The server as the URLs it hands out name it: the router framework's requests name
    /// the host `localhost`.
    var baseURL: String { "http://localhost" }

    /// What the sweep found in every answer so far (case 60); empty when all conform.
    var sweepFindings: [String] { findings.withLock { $0 } }

    /// The path prefix of `database` in `container` and `environment`.
    static func database(_ database: String, container: String = container, environment: String = "production") -> String {
        "/database/1/\(container)/\(environment)/\(database)"
    }

    // MARK: Requests

    /// POSTs `body` as JSON to `operation` under `database` for `account` (alice when nil).
    func post(
        _ operation: String, _ body: [String: Any] = [:], as account: ConformanceAccount? = nil, auth: Credentials = .query,
        in database: String = ConformanceServer.privateDatabase, headers: HTTPFields = [:]
    ) async throws -> Answer {
        try await send(
            "POST", database + "/" + operation, body: try JSONSerialization.data(withJSONObject: body), as: account, auth: auth, headers: headers)
    }

    /// GETs `operation` under `database` for `account` (alice when nil).
    func get(
        _ operation: String, as account: ConformanceAccount? = nil, auth: Credentials = .query,
        in database: String = ConformanceServer.privateDatabase
    ) async throws -> Answer {
        try await send("GET", database + "/" + operation, as: account, auth: auth)
    }

    /// Sends `body` (any bytes) to the server's `path` with `method`, for `account` (alice
    /// when nil), with `headers` besides its own.
    func send(
        _ method: String, _ path: String, body: Data? = nil, as account: ConformanceAccount? = nil, auth: Credentials = .query,
        headers: HTTPFields = [:]
    ) async throws -> Answer {
        let account = account ?? alice
        var parameters: [(name: String, value: String)] = []
        var authorization: String?
        switch auth {
        case .query: parameters = [("ckAPIToken", apiToken), ("ckWebAuthToken", account.webToken)]
        case .bearer: authorization = "Bearer " + account.webToken
        case .none: break
        case let .tokens(api, web):
            if let api { parameters.append(("ckAPIToken", api)) }
            if let web { parameters.append(("ckWebAuthToken", web)) }
        case let .header(value): authorization = value
        }
        let query = parameters.isEmpty ? "" : "?" + parameters.map { "\($0.name)=\(Self.percentEncoded($0.value))" }.joined(separator: "&")
        return try await exchange(path + query, method: method, body: body, contentType: "application/json", authorization: authorization, headers: headers)
    }

    /// Sends `body` to an absolute `url` the server gave out (an asset's upload or download
    /// URL), with no credentials at all.
    func fetch(_ url: URL, method: String = "GET", body: Data? = nil) async throws -> Answer {
        guard url.absoluteString.hasPrefix(baseURL + "/") else { throw URLError(.badURL) }
        let uri = String(url.absoluteString.dropFirst(baseURL.count))
        return try await exchange(uri, method: method, body: body, contentType: "application/octet-stream", authorization: nil)
    }

    private func exchange(
        _ uri: String, method: String, body: Data?, contentType: String, authorization: String?, headers: HTTPFields = [:]
    ) async throws -> Answer {
        var headers = headers
        if body != nil { headers[.contentType] = contentType }
        if let authorization { headers[.authorization] = authorization }
        guard let method = HTTPRequest.Method(method) else { throw URLError(.badURL) }
        let response = try await running.client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        let data = Data(response.body.readableBytesView)
        let found = ConformanceSweep.findings(status: Int(response.status.code), body: data)
        if !found.isEmpty {
            // The path only: a query may hold tokens.
            findings.withLock { $0 += found.map { "\(method) \(uri.prefix { $0 != "?" }): \($0)" } }
        }
        return Answer(status: Int(response.status.code), json: ReceivedJSON(parsing: data) ?? .null, body: data, headers: response.headers)
    }

    // MARK: Shorthands for the suites

    /// `{zoneName}` for a request.
    static func zoneID(_ name: String) -> [String: Any] { ["zoneName": name] }

    /// One records/modify operation on the record `name` (none: let the server name it).
    static func operation(
        _ type: String, _ name: String?, recordType: String? = "Idea", tag: String? = nil, fields: [String: Any]? = nil,
        desiredKeys: [String]? = nil
    ) -> [String: Any] {
        var record: [String: Any] = [:]
        if let name { record["recordName"] = name }
        if let recordType { record["recordType"] = recordType }
        if let tag { record["recordChangeTag"] = tag }
        if let fields { record["fields"] = fields }
        var operation: [String: Any] = ["operationType": type, "record": record]
        if let desiredKeys { operation["desiredKeys"] = desiredKeys }
        return operation
    }

    /// An Idea's fields as Apple's examples send them, without types: `title` (STRING),
    /// `rank` (INT64) and `tags` (STRING_LIST), each left out when nil.
    static func ideaFields(title: String? = nil, rank: Int? = nil, tags: [String]? = nil) -> [String: Any] {
        var fields: [String: Any] = [:]
        if let title { fields["title"] = ["value": title] }
        if let rank { fields["rank"] = ["value": rank] }
        if let tags { fields["tags"] = ["value": tags] }
        return fields
    }

    /// records/modify with `operations` in `zone` (nil: the request names no zone).
    func modify(
        _ operations: [[String: Any]], zone: String? = ConformanceServer.ideas, atomic: Bool? = nil, _ extra: [String: Any] = [:],
        as account: ConformanceAccount? = nil, auth: Credentials = .query, in database: String = ConformanceServer.privateDatabase
    ) async throws -> Answer {
        var body = extra
        body["operations"] = operations
        if let zone { body["zoneID"] = Self.zoneID(zone) }
        if let atomic { body["atomic"] = atomic }
        return try await post("records/modify", body, as: account, auth: auth, in: database)
    }

    /// Creates the record `name` of `type` with `fields` in `zone`; returns the answer's item
    /// (the record, or its error).
    @discardableResult
    func create(
        _ name: String, _ fields: [String: Any], type: String = "Idea", zone: String? = ConformanceServer.ideas,
        as account: ConformanceAccount? = nil
    ) async throws -> ReceivedJSON {
        let answer = try await modify([Self.operation("create", name, recordType: type, fields: fields)], zone: zone, as: account)
        return answer.records.first ?? .null
    }

    /// records/lookup of `names` in `zone` (nil: the request names no zone).
    func lookup(
        _ names: [String], zone: String? = ConformanceServer.ideas, as account: ConformanceAccount? = nil,
        in database: String = ConformanceServer.privateDatabase
    ) async throws -> Answer {
        var body: [String: Any] = ["records": names.map { ["recordName": $0] }]
        if let zone { body["zoneID"] = Self.zoneID(zone) }
        return try await post("records/lookup", body, as: account, in: database)
    }

    /// The record `name` as records/lookup answers it (its NOT_FOUND error if it does not exist).
    func record(_ name: String, zone: String? = ConformanceServer.ideas, as account: ConformanceAccount? = nil) async throws -> ReceivedJSON {
        try await lookup([name], zone: zone, as: account).records.first ?? .null
    }

    /// The `userRecordName` users/current answers for `account` (alice when nil).
    func userRecordName(of account: ConformanceAccount? = nil) async throws -> String {
        let answer = try await get("users/current", as: account, in: Self.database("public"))
        return try #require(answer.json["userRecordName"].string, "users/current answered \(answer)")
    }

    // MARK: Seeding

    /// `value` for a query string: every byte but letters, digits, '-', '.', '_' and '~'
    /// percent-encoded, so '+' is %2B, '/' %2F and '=' %3D as Apple's reference asks.
    static func percentEncoded(_ value: String) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// `byteCount` random bytes in lower-case hex.
    static func randomHex(byteCount: Int) -> String {
        randomBytes(byteCount).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A clock that starts at `start` and moves on one millisecond at every reading, so that
    /// each save is later than the one before it, the same way on every run.
    private static func steppingClock() -> WallClock {
        let readings = ClockReadings()
        return WallClock { Timestamp(milliseconds: start + readings.next()) }
    }
}

/// How often a stepping clock was read.
private final class ClockReadings: Sendable {
    private let count = Mutex<Int64>(0)

    /// Counts one more reading and returns how many there have been.
    func next() -> Int64 {
        count.withLock { readings in
            readings += 1
            return readings
        }
    }
}
