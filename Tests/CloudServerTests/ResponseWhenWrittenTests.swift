@testable import CloudServer
import CloudWebServices
import Hummingbird
import NIOCore
import Synchronization
import Testing

/// `Response.whenWritten` tells the request log and the metrics once, and truly, how an
/// answer ended: written whole, or not (the client left, or the write failed).
struct ResponseWhenWrittenTests {
    /// A body writer that takes every part, or fails every write with `failure`.
    private struct Writer: ResponseBodyWriter {
        let failure: (any Error)?

        mutating func write(_ buffer: ByteBuffer) async throws {
            if let failure { throw failure }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    /// The answers `done` was given, in order.
    private final class Outcomes: Sendable {
        let told = Mutex<[Bool]>([])
        var done: @Sendable (Bool) -> Void { { clientLeft in self.told.withLock { $0.append(clientLeft) } } }
    }

    /// A streamed answer (no length: a long poll's), whose body writes one part.
    private static func streamed() -> Response {
        Response(status: .ok, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "{}"))
            try await writer.finish(nil)
        })
    }

    private struct ConnectionReset: Error {}

    @Test("A body written whole is told once, as not left")
    func writtenWhole() async throws {
        let outcomes = Outcomes()
        let response = Self.streamed().whenWritten(outcomes.done)
        #expect(outcomes.told.withLock { $0 }.isEmpty)
        try await response.body.write(Writer(failure: nil))
        #expect(outcomes.told.withLock { $0 } == [false])
    }

    @Test("A body whose client left is told once, as left, and the error goes on")
    func clientLeft() async throws {
        let outcomes = Outcomes()
        let response = Self.streamed().whenWritten(outcomes.done)
        await #expect(throws: ClientLeft.self) { try await response.body.write(Writer(failure: ClientLeft())) }
        #expect(outcomes.told.withLock { $0 } == [true])
    }

    @Test("A body whose write fails some other way is told once too, as not reaching the client")
    func otherFailure() async throws {
        let outcomes = Outcomes()
        let response = Self.streamed().whenWritten(outcomes.done)
        await #expect(throws: ConnectionReset.self) { try await response.body.write(Writer(failure: ConnectionReset())) }
        #expect(outcomes.told.withLock { $0 } == [true])
    }

    @Test("A body of known length is told at once, before it is written")
    func knownLength() {
        let outcomes = Outcomes()
        _ = Response.json(["a": .string("b")]).whenWritten(outcomes.done)
        #expect(outcomes.told.withLock { $0 } == [false])
    }
}
