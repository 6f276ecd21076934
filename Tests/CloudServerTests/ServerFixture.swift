import CloudHTTPClient
import CloudKitModel
import CloudServer
import CloudWebServices
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdeaBoxFoundation
import NIOCore
import ProcessTestSupport
import RemoteTestSupport
import SQLiteRecordStore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `ideabox serve` over an in-memory store with a fixed clock, with two accounts: alice, who
/// has a record, and bob, who has an empty zone of the same name. Its application runs in
/// this process and takes requests at its router (`InProcessServer`), or, for what only a
/// socket shows (connections, their limits and timeouts, raw bytes, the HTTP client), on a
/// free port of 127.0.0.1. Stopped when released.
final class ServerFixture: Sendable {
    static let start = TestTime.start
    static let zone = RecordZoneID(zoneName: "Ideas")

    let store: SQLiteRecordStore
    let aliceToken = AccessToken.generate()
    let bobToken = AccessToken.generate()
    let revokedToken = AccessToken.generate()
    /// Every line the server logged.
    let logLines = LineRecorder()
    private let running: Running

    /// Where the server takes requests.
    private enum Running {
        /// At its router, in this process.
        case router(InProcessServer)
        /// On a socket.
        case socket(RunningServer)
    }

    /// The server, on a socket if `socket`; `idleTimeout` is how long it lets a connection
    /// send nothing, and `maximumConnections` how many it keeps open, `maximumUploads` how
    /// many uploads it receives at once; its requests go to `log`, or else to `logLines`.
    init(
        socket: Bool = false, idleTimeout: Duration = .seconds(30), maximumConnections: Int? = nil, maximumUploads: Int? = nil,
        log: RequestLog? = nil
    ) async throws {
        store = try Self.seededStore(aliceToken: aliceToken, bobToken: bobToken, revokedToken: revokedToken)
        let lines = logLines
        let log = log ?? RequestLog(clock: WallClock { ServerFixture.start }) { line in lines.lines.withLock { $0.append(line) } }
        var server = CloudServer(store: store, host: "127.0.0.1", port: 0, containers: [ServedRemote.container], log: log)
        server.idleTimeout = idleTimeout
        if let maximumConnections { server.maximumConnections = maximumConnections }
        if let maximumUploads { server.maximumUploads = maximumUploads }
        running = socket ? .socket(try await server.start()) : .router(try await InProcessServer(server))
    }

    /// The store with the three accounts, their tokens, zones and alice's record.
    private static func seededStore(aliceToken: String, bobToken: String, revokedToken: String) throws -> SQLiteRecordStore {
        let store = try SQLiteRecordStore.inMemory(
            clock: WallClock { ServerFixture.start }, maximumRecordsPerRequest: WebServicesFormat.maximumOperations)
        try store.addAccessToken(hash: AccessToken.hash(aliceToken), account: "alice")
        try store.addAccessToken(hash: AccessToken.hash(bobToken), account: "bob")
        try store.addAccessToken(hash: AccessToken.hash(revokedToken), account: "carol")
        try store.revokeAccessTokens(account: "carol")
        for account in ["alice", "bob", "carol"] { try store.createZone(zone, account: account) }
        let secret = RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: "secret", zoneID: zone),
            fields: ["title": .string("alice's secret")])
        _ = try store.modify(account: "alice", saves: [RecordSave(secret, policy: .allKeys)], deletes: [])
        return store
    }

    deinit {
        if case .socket(let server) = running { server.requestStop() }
    }

    /// Stops a server on a socket as a SIGTERM stops `serve`, and returns once it has stopped.
    func stop() async throws {
        guard case .socket(let server) = running else { preconditionFailure("ServerFixture(socket: true)") }
        await server.stop()
    }

    /// Where the server listens; only a server on a socket has one.
    var baseURL: URL {
        guard case .socket(let server) = running else { preconditionFailure("a server at its router has no address: ServerFixture(socket: true)") }
        return URL(string: "http://127.0.0.1:\(server.port)")!
    }

    /// The path of `operation` in the private database.
    static func path(_ operation: String, database: String = "private", container: String = ServedRemote.container) -> String {
        "/database/1/\(container)/production/\(database)/\(operation)"
    }

    /// A client of `account` with `token`.
    func client(_ account: String, token: String?) -> WebServicesDatabase {
        // Generous: on a loaded test run's two cores an answer can take seconds.
        WebServicesDatabase(endpoint: .init(server: baseURL, container: ServedRemote.container), accountName: account, token: token, timeout: 30)
    }

    /// Everything the store holds, for comparing before and after a request.
    func snapshot() throws -> String {
        var lines: [String] = []
        for account in ["alice", "bob", "carol"] {
            let zones = try store.zones(account: account)
            lines.append("\(account): zones \(zones.map(\.zoneName))")
            for zone in zones {
                let changes = try store.fetchChanges(account: account, in: zone, since: nil, resultsLimit: 1000)
                lines += changes.changed.map { "\(account) \($0.recordID) \($0.changeTag ?? "-") \($0.fields)" }
                lines += changes.deleted.map { "\(account) deleted \($0.recordID)" }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Sends a raw request and returns the status, the answer's JSON object (empty if none)
    /// and its headers.
    func send(
        _ path: String, method: String = "POST", token: String? = nil, authorization: String? = nil, headers: [String: String] = [:],
        body: Data
    ) async throws -> (status: Int, json: [String: Any], headers: [AnyHashable: Any]) {
        var fields: [String: String] = ["Content-Type": "application/json"]
        if let token { fields["Authorization"] = "Bearer \(token)" }
        if let authorization { fields["Authorization"] = authorization }
        fields.merge(headers) { $1 }
        let (status, data, answerHeaders): (Int, Data, [AnyHashable: Any])
        switch running {
        case .router(let server):
            var httpFields = HTTPFields()
            for (name, value) in fields { if let name = HTTPField.Name(name) { httpFields[name] = value } }
            let response = try await server.client.execute(
                uri: path, method: HTTPRequest.Method(method) ?? .post, headers: httpFields, body: ByteBuffer(bytes: body))
            status = response.status.code
            data = Data(response.body.readableBytesView)
            answerHeaders = Dictionary(response.headers.map { ($0.name.rawName as AnyHashable, $0.value as Any) }) { $1 }
        case .socket:
            var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
            request.httpMethod = method
            request.httpBody = body
            request.timeoutInterval = 30
            for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
            let (received, response) = try await URLSession.shared.data(for: request)
            guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            (status, data, answerHeaders) = (response.statusCode, received, response.allHeaderFields)
        }
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (status, json, answerHeaders)
    }

    /// Writes `bytes` to the server on a socket of its own, as a hostile client would; with
    /// `answer`, reads until the server closes or `seconds` pass and returns what it said,
    /// else closes at once, mid-request.
    @discardableResult
    func raw(_ bytes: String, answer: Bool = true, waitingAtMost seconds: Int = 5) async throws -> String {
        try await timedRaw(bytes, answer: answer, waitingAtMost: seconds).answer
    }

    /// `raw`, and how long the server took: from the send to the end of the answer, timed on
    /// the thread that reads it. (Timed in the test, it would count the wait for the test
    /// pool to take the test up again, which a loaded run has made 88 s.)
    func timedRaw(_ bytes: String, answer: Bool = true, waitingAtMost seconds: Int = 5) async throws -> (answer: String, took: Duration) {
        let descriptor = try connection()
        defer { close(descriptor) }
        // On a thread of its own: the read may wait seconds (for an idle timeout, say), and the
        // test pool's threads are every test's.
        return try await OwnThread.run {
            let started = ContinuousClock.now
            LoopbackSocket.send(bytes, on: descriptor)
            guard answer else { return ("", ContinuousClock.now - started) }
            let text = String(decoding: LoopbackSocket.readAll(descriptor, waitingAtMost: seconds), as: UTF8.self)
            return (text, ContinuousClock.now - started)
        }
    }

    /// The path of a new upload URL of alice's.
    func uploadPath() async throws -> String {
        let answer = try await send(Self.path("assets/upload"), token: aliceToken, json: ["tokens": [["recordType": "File", "fieldName": "data"]]])
        let url = (answer.json["tokens"] as? [[String: Any]])?.first?["url"] as? String
        guard let path = url.flatMap(URLComponents.init(string:))?.path else { throw URLError(.badServerResponse) }
        return path
    }

    /// A socket connected to the server, which the caller closes.
    func connection() throws -> Int32 {
        try LoopbackSocket.connect(port: baseURL.port ?? 0)
    }

    /// Sends `object` as JSON.
    func send(_ path: String, token: String?, json object: [String: Any]) async throws -> (status: Int, json: [String: Any], headers: [AnyHashable: Any]) {
        try await send(path, token: token, body: try JSONSerialization.data(withJSONObject: object))
    }
}

/// Lines written from any thread.
final class LineRecorder: Sendable {
    /// The lines so far.
    let lines = Mutex<[String]>([])
}
