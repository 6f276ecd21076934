@testable import CloudServer
import Hummingbird
import NIOCore
import Synchronization
import Testing

/// `Response.whenWritten` tells the request log and the metrics once, and truly, how an
/// answer ended: written whole, or not (the client left, or the write failed); for an answer
/// whose body hands its end on (`AnswerWrittenLater`), once that end is written.
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

    /// Where a body handed its answer's end.
    private final class Handed: Sendable {
        let later = Mutex<AnswerWrittenLater?>(nil)
    }

    /// A streamed answer whose body hands its end on, as a poll held by its connection does,
    /// to `handed`.
    private static func handedOn(to handed: Handed) -> Response {
        Response(status: .ok, body: ResponseBody { writer in
            let later = AnswerWrittenLater.current
            later?.handOn()
            handed.later.withLock { $0 = later }
            try await writer.finish(nil)
        })
    }

    @Test("A body that hands its end on is told once that end is written, by every middleware around it, not when it returns")
    func endHandedOn() async throws {
        let (log, metrics) = (Outcomes(), Outcomes())
        let handed = Handed()
        let response = Self.handedOn(to: handed).whenWritten(metrics.done).whenWritten(log.done)
        try await response.body.write(Writer(failure: nil))
        #expect(log.told.withLock { $0 }.isEmpty && metrics.told.withLock { $0 }.isEmpty)
        let later = try #require(handed.later.withLock { $0 })
        later.written(clientLeft: false)
        later.written(clientLeft: true)
        #expect(log.told.withLock { $0 } == [false] && metrics.told.withLock { $0 } == [false])
    }

    @Test("An end handed on that is written, or found never to reach the client, before the body returns is told as it returns")
    func endWrittenBeforeTheBodyReturns() async throws {
        let outcomes = Outcomes()
        let response = Response(status: .ok, body: ResponseBody { writer in
            AnswerWrittenLater.current?.handOn()
            AnswerWrittenLater.current?.written(clientLeft: true)
            try await writer.finish(nil)
        }).whenWritten(outcomes.done)
        try await response.body.write(Writer(failure: nil))
        #expect(outcomes.told.withLock { $0 } == [true])
    }
}
