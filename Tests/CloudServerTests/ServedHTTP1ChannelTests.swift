@testable import CloudServer
import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import ProcessTestSupport
import Synchronization
import Testing

/// A long poll held by its connection, as `serve`'s connections (`ServedHTTP1Channel`) hold
/// one, seen from a socket: it outlives the idle timeout, is answered at its time, by a change,
/// or by a shutdown, in order with what the client sends behind it, and is logged once answered;
/// a client that leaves takes it with it. And each request runs in a task of its own.
@Suite(.serialized)
struct ServedHTTP1ChannelTests {
    /// A server whose connections may send nothing for `idleTimeout`.
    private static func server(idleTimeout: Duration = .seconds(1)) async throws -> ServerFixture {
        try await ServerFixture(socket: true, idleTimeout: idleTimeout)
    }

    /// alice's long poll, subscribed to Ideas: the request's first line and Host, without the
    /// blank line that ends its head.
    private static func poll(_ server: ServerFixture, query: String) async throws -> String {
        let subscribed = try await post(
            server, "subscriptions/modify",
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionType":"zone","subscriptionID":"ideas","zoneID":{"zoneName":"Ideas"}}}]}"#)
        #expect(subscribed.hasPrefix("HTTP/1.1 200"), "\(subscribed)")
        let created = try await post(server, "tokens/create", #"{"apnsEnvironment":"production"}"#)
        let body = try #require(created.components(separatedBy: "\r\n\r\n").last?.data(using: .utf8))
        let url = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["webcourierURL"] as? String)
        let path = try #require(URLComponents(string: url)?.path)
        return "GET \(path)?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    }

    /// alice's POST of `json` to `operation`, on a connection of its own (the server's idle
    /// timeout is short): the whole answer.
    private static func post(_ server: ServerFixture, _ operation: String, _ json: String) async throws -> String {
        let request = "POST \(ServerFixture.path(operation)) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.aliceToken)\r\n"
            + "Content-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)"
        let port = server.baseURL.port ?? 0
        return try await OwnThread.run { try LoopbackSocket.exchange(port: port, request) }
    }

    /// What the server sent on `descriptor` until it closed it (or 10 s of silence), how long
    /// that took, and how long after its last byte it closed.
    private static func readAll(_ descriptor: Int32) async throws -> (text: String, took: Duration, closedAfter: Duration) {
        try await OwnThread.run {
            let started = ContinuousClock.now
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var (received, lastByte) = ([UInt8](), started)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                received += chunk[0..<count]
                lastByte = .now
            }
            return (String(decoding: received, as: UTF8.self), ContinuousClock.now - started, ContinuousClock.now - lastByte)
        }
    }

    /// The gauge of long polls held, as `/metrics` says it.
    private static func heldPolls(_ server: ServerFixture) async throws -> String {
        let port = server.baseURL.port ?? 0
        let metrics = try await OwnThread.run { try LoopbackSocket.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n") }
        return metrics.split(separator: "\n").first { $0.hasPrefix("ideabox_long_polls_held ") }.map(String.init) ?? metrics
    }

    /// The log's lines of long polls, so far.
    private static func webcourierLines(_ server: ServerFixture) -> [String] {
        server.logLines.lines.withLock { $0 }.filter { $0.contains("/webcourier/") }
    }

    @Test("A poll held for 3 s outlives the idle timeout (1 s), is answered {} at its time, and its connection then idles out as any does")
    func outlivesTheIdleTimeout() async throws {
        let server = try await Self.server()
        let poll = try await Self.poll(server, query: "timeout=3")
        let descriptor = try server.connection()
        defer { close(descriptor) }
        LoopbackSocket.send(poll + "\r\n", on: descriptor)
        let (text, took, _) = try await Self.readAll(descriptor)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(text)")
        #expect(text.contains("transfer-encoding: chunked\r\n"), "\(text)")
        #expect(text.hasSuffix("\r\n\r\n2\r\n{}\r\n0\r\n\r\n"), "\(text)")
        // Answered at 3 s, closed a second later: never cut at 1 s.
        #expect(took >= .seconds(3) && took < .seconds(8), "\(took)")
        let lines = Self.webcourierLines(server)
        #expect(lines.count == 1 && lines[0].contains(" 200 ") && lines[0].hasSuffix(" ms alice"), "\(lines)")
        // Logged when answered: the time is the poll's.
        let milliseconds = lines.first?.split(separator: " ").dropLast(2).last.flatMap { Double($0) } ?? 0
        #expect(milliseconds >= 3_000, "\(lines)")
    }

    @Test("What a client sends behind a held poll is answered after the poll, in order; a poll that says Connection: close ends its connection once answered")
    func pipelinedBehindAHeldPoll() async throws {
        let server = try await Self.server(idleTimeout: .seconds(5))
        let poll = try await Self.poll(server, query: "timeout=1")
        let descriptor = try server.connection()
        defer { close(descriptor) }
        LoopbackSocket.send(poll + "\r\n" + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", on: descriptor)
        let (text, _, _) = try await Self.readAll(descriptor)
        let answers = text.components(separatedBy: "HTTP/1.1 ")
        #expect(answers.count == 3, "\(text)")
        #expect(answers.dropFirst().first?.hasSuffix("\r\n\r\n2\r\n{}\r\n0\r\n\r\n") == true, "\(text)")
        #expect(answers.last?.hasPrefix("200 OK") == true, "\(text)")

        let closing = try server.connection()
        defer { close(closing) }
        LoopbackSocket.send(poll + "Connection: close\r\n\r\n", on: closing)
        let (alone, _, closedAfter) = try await Self.readAll(closing)
        #expect(alone.hasPrefix("HTTP/1.1 200 OK\r\n") && alone.hasSuffix("\r\n\r\n2\r\n{}\r\n0\r\n\r\n"), "\(alone)")
        // Closed once answered, not after the idle timeout (5 s) that would follow.
        #expect(closedAfter < .seconds(3), "\(closedAfter)")
    }

    @Test("A change wakes a held poll with its notification, logged 200 once written; a client that leaves takes its poll with it, logged 499")
    func wokenAndLeft() async throws {
        let server = try await Self.server()
        let poll = try await Self.poll(server, query: "timeout=30")
        let descriptor = try server.connection()
        defer { close(descriptor) }
        LoopbackSocket.send(poll + "\r\n", on: descriptor)
        try await Poll.until("the poll is held") { try await Self.heldPolls(server) == "ideabox_long_polls_held 1.0" }
        #expect(Self.webcourierLines(server).isEmpty)
        let answer = Task { try await Self.readAll(descriptor) }
        let saved = try await Self.post(
            server, "records/modify",
            #"{"zoneID":{"zoneName":"Ideas"},"operations":[{"operationType":"forceReplace","record":{"recordName":"woken","recordType":"Idea","fields":{"title":{"value":"x"}}}}]}"#)
        #expect(saved.hasPrefix("HTTP/1.1 200"), "\(saved)")
        // The connection idles out (1 s) once answered.
        let (text, _, _) = try await answer.value
        #expect(text.contains(#""notificationType":"recordZone""#) && text.contains(#""subscriptionID":"ideas""#), "\(text)")
        #expect(Self.webcourierLines(server).first?.contains(" 200 ") == true, "\(Self.webcourierLines(server))")

        let leaving = try server.connection()
        LoopbackSocket.send(poll + "\r\n", on: leaving)
        try await Poll.until("the second poll is held") { try await Self.heldPolls(server) == "ideabox_long_polls_held 1.0" }
        close(leaving)
        try await Poll.until("the poll is let go") { try await Self.heldPolls(server) == "ideabox_long_polls_held 0.0" }
        try await Poll.until("the left poll is logged") { Self.webcourierLines(server).count == 2 }
        #expect(Self.webcourierLines(server).last.map { $0.contains(" 499 ") && $0.hasSuffix(" ms alice") } == true, "\(Self.webcourierLines(server))")
    }

    @Test("A server that stops answers its held polls with {} at once, then closes their connections")
    func stoppingAnswersHeldPolls() async throws {
        let server = try await Self.server()
        let poll = try await Self.poll(server, query: "timeout=30")
        let descriptors = try (0..<3).map { _ in try server.connection() }
        defer { descriptors.forEach { close($0) } }
        for descriptor in descriptors { LoopbackSocket.send(poll + "\r\n", on: descriptor) }
        try await Poll.until("the polls are held") { try await Self.heldPolls(server) == "ideabox_long_polls_held 3.0" }
        let started = ContinuousClock.now
        try await server.stop()
        for descriptor in descriptors {
            let (text, _, _) = try await Self.readAll(descriptor)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.hasSuffix("\r\n\r\n2\r\n{}\r\n0\r\n\r\n"), "\(text)")
        }
        // Well inside the polls' 30 s: answered by the stop, not by their time running out.
        // (Awaited, the stop resumes on the test pool, which a full run keeps busy for seconds.)
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test("Each request is answered in a task of its own, not in the connection's, and is cancelled with the connection's task")
    func requestsRunInTasksOfTheirOwn() async throws {
        let seen = Mutex<[Int]>([])
        let started = AsyncStream.makeStream(of: Void.self)
        let neverEnding = AsyncStream.makeStream(of: Void.self)
        let responder = ServedHTTP1Channel.inTaskOfItsOwn { _, writer, _ in
            _ = consume writer
            seen.withLock { $0.append(withUnsafeCurrentTask { $0?.hashValue ?? 0 }) }
            started.continuation.yield()
            // Held until cancelled, as a request whose store call waits: a stream ends its
            // iteration when its task is cancelled.
            for await _ in neverEnding.stream {}
            throw CancellationError()
        }
        let request = Request(head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/healthz"), body: RequestBody(buffer: ByteBuffer()))
        let connection = Task {
            let connectionTask = withUnsafeCurrentTask { $0?.hashValue ?? 0 }
            let (outbound, _) = NIOAsyncChannelOutboundWriter<HTTPResponsePart>.makeTestingWriter()
            await #expect(throws: CancellationError.self) { try await responder(request, ResponseWriter(outbound: outbound), EmbeddedChannel()) }
            return connectionTask
        }
        for await _ in started.stream { break }
        connection.cancel()
        let connectionTask = await connection.value
        neverEnding.continuation.finish()
        #expect(seen.withLock { $0 }.count == 1 && seen.withLock { $0 } != [connectionTask])
    }
}
