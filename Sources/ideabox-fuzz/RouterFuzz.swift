import CloudKitModel
@testable import CloudServer
import CloudWebServices
import Foundation
import HTTPTypes
import Hummingbird
import IdeaBoxFoundation
import Logging
import NIOCore
import NIOEmbedded
import ServerStore
import Synchronization

/// A whole request through `serve`'s router in process, as a socket's request reaches it:
/// every middleware (the request log, metrics, error answers, client-gone watch, Host
/// check, path, authentication, body limits and fair shares), then the route, then the
/// answer's body written out, against one in-memory store. The first byte picks
/// the operation of the `/database/1/…` path, the second the credentials, database,
/// environment, method and whether the body's first line is the query string; the rest is
/// the body.
///
/// Invariants: no crash; no answer is a 500 (a hostile request is the client's error, never
/// the server's); and whatever the fuzzing account sends, another account's record is as it
/// was.
enum RouterFuzz {
    /// The fuzzing account's token, sent as `Authorization: Bearer` or as `ckWebAuthToken`.
    static let token = "fuzz-token-0123456789abcdef0123456789abcdef"
    /// The other account, whose record no request of the fuzzing account may reach.
    static let other = "other"
    private static let logger = Logger(label: "ideabox.fuzz.router")

    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 2 else { return }
        let operations = WebServicesPath.Operation.allCases
        let operation = operations[Int(bytes[0]) % operations.count]
        let flags = bytes[1]
        var body = Array(bytes.dropFirst(2))
        var query = ""
        if flags & 0x40 != 0, let end = body.firstIndex(of: UInt8(ascii: "\n")) {
            query = String(decoding: body[..<end], as: UTF8.self)
            body.removeSubrange(...end)
        }
        let (sentQuery, sentBody) = (query, body)
        blocking {
            do {
                try await request(operation, flags: flags, query: sentQuery, body: sentBody)
            } catch {
                fuzzFailure("the router could not be run: \(error)")
            }
        }
    }

    /// The store and the router every input goes to, made once: making them for each input
    /// (the store's schema, the router's tree) took the target to 2 inputs a second. So an
    /// input runs on what the inputs before it wrote, as a server's requests do; a crash's
    /// input is kept, and replays alone on a new store.
    private struct Served: Sendable {
        let store: any RecordStore
        let responder: Router<ServerRequestContext>.Responder
    }

    private static let served: Served = blocking {
        do {
            let store = try await ServerFuzz.seededStore()
            try await store.addAccessToken(hash: AccessToken.hash(token), account: ServerFuzz.account, label: "fuzz")
            try await seedOther(store)
            let server = CloudServer(
                store: store, containers: [ServerFuzz.container], clock: ServerFuzz.clock, log: RequestLog(clock: ServerFuzz.clock) { _ in })
            let hub = ZoneChangeHub(store: store, logger: logger)
            let uploads = try UploadSpool(maximumUploads: 4, parent: FileManager.default.temporaryDirectory)
            let router = server.router(hub: hub, metrics: ServerMetrics(), uploads: uploads, connections: server.connections(hub: hub))
            return Served(store: store, responder: router.buildResponder())
        } catch {
            fuzzFailure("the router could not be made: \(error)")
        }
    }

    private static func request(_ operation: WebServicesPath.Operation, flags: UInt8, query sent: String, body: [UInt8]) async throws {
        var query = sent
        let (store, responder) = (served.store, served.responder)
        let database = ["private", "public", "shared", "other"][Int(flags >> 2 & 3)]
        let environment = flags & 0x20 == 0 ? "development" : "production"
        var path = "/database/1/\(ServerFuzz.container)/\(environment)/\(database)/\(operation.rawValue)"
        var fields = HTTPFields()
        switch flags & 3 {
        case 0: fields[.authorization] = "Bearer \(token)"
        case 1: query += (query.isEmpty ? "" : "&") + "ckAPIToken=\(String(repeating: "a", count: 64))&ckWebAuthToken=\(token)"
        case 2: fields[.authorization] = "Bearer not-\(token)"
        default: break
        }
        if !query.isEmpty { path += "?" + query }
        if flags & 0x80 == 0 { fields[.contentLength] = "\(body.count)" }
        fields[.contentType] = "application/json"
        let head = HTTPRequest(
            method: flags & 0x10 == 0 ? .post : .get, scheme: "http", authority: "127.0.0.1", path: path, headerFields: fields)
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body)))
        let context = ServerRequestContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: logger))

        let response = try await responder.respond(to: request, context: context)
        let answer = AnswerCollector()
        try await response.body.write(answer.writer)
        let written = answer.bytes.withLock { $0 }
        if response.status.code >= 500 {
            fuzzFailure("\(operation.rawValue) answered \(response.status.code): \(String(decoding: written, as: UTF8.self))")
        }
        try await checkOther(store)
    }

    /// The other account's zone and record.
    private static func seedOther(_ store: any RecordStore) async throws {
        try await store.createZone(ServerFuzz.zone, account: other)
        let answer = try await ServerFuzz.operations(store, account: other).perform(.recordsModify, [
            "zoneID": ["zoneName": "Ideas"],
            "operations": [["operationType": "create", "record": [
                "recordName": "seed-1", "recordType": "Idea", "fields": ["title": ["value": "theirs"]],
            ]]],
        ])
        guard answer["records"]?.array?.first?.object?["serverErrorCode"] == nil else { fuzzFailure("the other account's record was refused") }
    }

    /// The other account's record, as the store keeps it: still there, still its title.
    private static func checkOther(_ store: any RecordStore) async throws {
        let found = try await store.records(account: other, in: ServerFuzz.zone, named: ["seed-1"], byteBudget: 1 << 20).records
        guard found.count == 1, found[0].fields["title"] == .string("theirs") else {
            fuzzFailure("another account's record changed: \(found)")
        }
    }
}

/// Collects an answer's body as a socket would send it.
private final class AnswerCollector: Sendable {
    let bytes = Mutex<[UInt8]>([])

    var writer: Writer { Writer(collector: self) }

    struct Writer: ResponseBodyWriter {
        let collector: AnswerCollector

        mutating func write(_ buffer: ByteBuffer) async throws {
            collector.bytes.withLock { $0 += buffer.readableBytesView }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
