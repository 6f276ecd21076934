import CloudHTTPClient
import CloudKitModel
import CloudServer
import CloudWebServices
import Foundation
import Hummingbird
import IdeaBoxFoundation
import ProcessTestSupport
import SQLiteServerStore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `ideabox serve` on a free port of 127.0.0.1 over an in-memory store with a fixed clock,
/// with two accounts: alice, who has a record, and bob, who has an empty zone of the same
/// name. Stopped when released.
final class ServerFixture: Sendable {
    static let start = Timestamp(milliseconds: 1_795_162_530_000)
    static let zone = RecordZoneID(zoneName: "Ideas")

    let store: SQLiteRecordStore
    let aliceToken = AccessToken.generate()
    let bobToken = AccessToken.generate()
    let revokedToken = AccessToken.generate()
    /// Every line the server logged.
    let logLines = LineRecorder()
    private let running: RunningServer

    /// The server; `idleTimeout` is how long it lets a connection send nothing, and
    /// `maximumConnections` how many it keeps open, `maximumUploads` how many uploads it receives at once;
    /// its requests go to `log`, or else to `logLines`.
    init(idleTimeout: Duration = .seconds(30), maximumConnections: Int? = nil, maximumUploads: Int? = nil, log: RequestLog? = nil) throws {
        store = try SQLiteRecordStore.inMemory(
            clock: WallClock { ServerFixture.start }, maximumRecordsPerRequest: WebServicesFormat.maximumOperations)
        try store.addAccessToken(hash: AccessToken.hash(aliceToken), account: "alice")
        try store.addAccessToken(hash: AccessToken.hash(bobToken), account: "bob")
        try store.addAccessToken(hash: AccessToken.hash(revokedToken), account: "carol")
        try store.revokeAccessTokens(account: "carol")
        for account in ["alice", "bob", "carol"] { try store.createZone(Self.zone, account: account) }
        let secret = RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: "secret", zoneID: Self.zone),
            fields: ["title": .string("alice's secret")])
        _ = try store.modify(account: "alice", saves: [RecordSave(secret, policy: .allKeys)], deletes: [])
        let lines = logLines
        let log = log ?? RequestLog(clock: WallClock { ServerFixture.start }) { line in lines.lines.withLock { $0.append(line) } }
        var server = CloudServer(store: store, host: "127.0.0.1", port: 0, log: log)
        server.idleTimeout = idleTimeout
        if let maximumConnections { server.maximumConnections = maximumConnections }
        if let maximumUploads { server.maximumUploads = maximumUploads }
        running = try server.start()
    }

    deinit {
        running.requestStop()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(running.port)")! }

    /// The path of `operation` in the private database.
    static func path(_ operation: String, database: String = "private", container: String = WebServicesPath.defaultContainer) -> String {
        "/database/1/\(container)/production/\(database)/\(operation)"
    }

    /// A client of `account` with `token`.
    func client(_ account: String, token: String?) -> WebServicesDatabase {
        // Generous: on a loaded test run's two cores an answer can take seconds.
        WebServicesDatabase(endpoint: .init(server: baseURL), accountName: account, token: token, timeout: 30)
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
    ) throws -> (status: Int, json: [String: Any], headers: [AnyHashable: Any]) {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = 30
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: (HTTPURLResponse, Data)?
        URLSession.shared.dataTask(with: request) { data, response, _ in
            if let response = response as? HTTPURLResponse { answer = (response, data ?? Data()) }
            done.signal()
        }.resume()
        done.wait()
        guard let (response, data) = answer else { throw URLError(.badServerResponse) }
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (response.statusCode, json, response.allHeaderFields)
    }

    /// Sends `object` as JSON.
    /// Writes `bytes` to the server on a socket of its own, as a hostile client would; with
    /// `answer`, reads until the server closes or `seconds` pass and returns what it said,
    /// else closes at once, mid-request.
    @discardableResult
    func raw(_ bytes: String, answer: Bool = true, waitingAtMost seconds: Int = 5) throws -> String {
        let descriptor = try connection()
        defer { close(descriptor) }
        LoopbackSocket.send(bytes, on: descriptor)
        guard answer else { return "" }
        return String(decoding: LoopbackSocket.readAll(descriptor, waitingAtMost: seconds), as: UTF8.self)
    }

    /// The path of a new upload URL of alice's.
    func uploadPath() throws -> String {
        let answer = try send(Self.path("assets/upload"), token: aliceToken, json: ["tokens": [["recordType": "File", "fieldName": "data"]]])
        let url = (answer.json["tokens"] as? [[String: Any]])?.first?["url"] as? String
        guard let path = url.flatMap(URLComponents.init(string:))?.path else { throw URLError(.badServerResponse) }
        return path
    }

    /// A socket connected to the server, which the caller closes.
    func connection() throws -> Int32 {
        try LoopbackSocket.connect(port: running.port)
    }

    func send(_ path: String, token: String?, json object: [String: Any]) throws -> (status: Int, json: [String: Any], headers: [AnyHashable: Any]) {
        try send(path, token: token, body: try JSONSerialization.data(withJSONObject: object))
    }
}

/// Lines written from any thread.
final class LineRecorder: Sendable {
    /// The lines so far.
    let lines = Mutex<[String]>([])
}
