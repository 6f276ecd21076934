@testable import CloudServer
import HTTPTypes
import Hummingbird
import IdeaBoxFoundation
import Logging
import NIOCore
import NIOEmbedded
import ProcessTestSupport
import Testing

/// An account's share of request bodies (here 1, and a line of 1) is held while a body
/// arrives, and given back once it has: an account's requests that a loaded store answers
/// slowly are answered late, never refused for it.
@Suite struct BodyShareMiddlewareTests {
    private static let limits = FairShareLimits(pollsPerAccount: 1, pollsPerToken: 1, bodiesPerAccount: 1, uploadsPerAccount: 1)
    /// Longer than any stall of a loaded machine: a request in line here is let in by the one
    /// before it, never sent away by its patience running out (`ShareCounterTests` tests that).
    private static let patience: Duration = .seconds(600)
    /// How long a step here may take on a loaded machine (CI's pool has stalled for over 6 s).
    private static let timeout: Duration = .seconds(60)

    /// A request of alice's, read as the routes read it: at most 1 MiB of body.
    private static func context() -> ServerRequestContext {
        var context = ServerRequestContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "test")))
        context.account = "alice"
        context.maxUploadSize = 1 << 20
        return context
    }

    private static func request(_ body: RequestBody) -> Request {
        let head = HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/database/1/c/production/private/zones/list", headerFields: [.contentLength: "2"])
        return Request(head: head, body: body)
    }

    /// A route that notes the body it was handed, then answers once `open` lets it.
    private static func route(
        waitingIn open: Locked<[CheckedContinuation<Void, Never>]>, bodies: Locked<[String]> = Locked([])
    ) -> @Sendable (Request, ServerRequestContext) async throws -> Response {
        { request, _ in
            let body = String(buffer: try await request.body.collect(upTo: 100))
            bodies.withLock { $0.append(body) }
            await withCheckedContinuation { continuation in open.withLock { $0.append(continuation) } }
            return Response(status: .ok)
        }
    }

    @Test func bodiesThatHaveArrivedCountNoMoreWhileTheirRequestsAreAnswered() async throws {
        let middleware = BodyShareMiddleware(shares: FairShares(limits: Self.limits, connections: ConnectionRegistry(limit: 16)), patience: Self.patience)
        let open = Locked<[CheckedContinuation<Void, Never>]>([])
        // One after the other, each once the one before is in its route: had a request in its
        // route held its share (1, and a line of 1), the second would wait and the third be
        // refused. (Sent at once, two may be reading their bodies together, and the third is
        // then refused, as it should be: a CI run saw that.)
        var requests: [Task<Response, any Error>] = []
        for count in 1...3 {
            requests.append(Task {
                try await middleware.handle(Self.request(RequestBody(buffer: ByteBuffer(string: "{}"))), context: Self.context(), next: Self.route(waitingIn: open))
            })
            try await Poll.until("\(count) in their routes at once", timeout: Self.timeout) { open.withLock { $0.count } == count }
        }
        open.withLock { $0 }.forEach { $0.resume() }
        for request in requests {
            let response = try await request.value
            #expect(response.status == .ok)
        }
    }

    @Test func aBodyStillArrivingHoldsTheShareAndTheRouteGetsItWhole() async throws {
        let shares = FairShares(limits: Self.limits, connections: ConnectionRegistry(limit: 16))
        let middleware = BodyShareMiddleware(shares: shares, patience: Self.patience)
        let open = Locked<[CheckedContinuation<Void, Never>]>([])
        let bodies = Locked<[String]>([])
        let (bytes, arrive) = AsyncStream.makeStream(of: ByteBuffer.self)
        let slow = Task { try await middleware.handle(Self.request(RequestBody(asyncSequence: bytes)), context: Self.context(), next: Self.route(waitingIn: open, bodies: bodies)) }
        try await Poll.until("the slow body holds alice's share", timeout: Self.timeout) { shares.bodies.count("alice") == 1 }
        let inLine = Task { try await middleware.handle(Self.request(RequestBody(buffer: ByteBuffer(string: "{}"))), context: Self.context(), next: Self.route(waitingIn: open)) }
        try await Poll.until("the next waits in line", timeout: Self.timeout) { shares.bodies.waiting("alice") == 1 }
        await #expect(throws: UnreadBody.self, "one past the line is refused unread") {
            try await middleware.handle(Self.request(RequestBody(buffer: ByteBuffer(string: "{}"))), context: Self.context(), next: Self.route(waitingIn: open))
        }

        arrive.yield(ByteBuffer(string: "{"))
        arrive.yield(ByteBuffer(string: "}"))
        arrive.finish()
        try await Poll.until("both are in their routes, holding no share", timeout: Self.timeout) { open.withLock { $0.count } == 2 && shares.bodies.count("alice") == 0 }
        open.withLock { $0 }.forEach { $0.resume() }
        for request in [slow, inLine] {
            let response = try await request.value
            #expect(response.status == .ok)
        }
        #expect(bodies.withLock { $0 } == ["{}"], "the slow body reached its route whole")
    }
}
