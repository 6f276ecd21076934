@testable import CloudServer
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

/// What `PollAnswerWriter` lets through to the socket, and when: the end of a held poll's
/// answer is kept back until the answer comes, whichever comes first; every other answer goes
/// through as it is written; a close of the sending half waits for the held answer.
struct PollAnswerWriterTests {
    /// A channel with the writer alone.
    private static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(PollAnswerWriter())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    /// Hummingbird's answer to a held poll: the head, and at once the end of an empty body.
    /// Returns whether the end's write was told done.
    private static func answerAsHummingbirdDoes(_ channel: EmbeddedChannel) -> Bool {
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        let ended = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: ended)
        return (try? ended.futureResult.wait()) != nil
    }

    /// A channel whose writer keeps back the end of a held poll's answer, as Hummingbird wrote it.
    private static func holding() throws -> EmbeddedChannel {
        let channel = try channel()
        PollAnswerWriter.expectHeldAnswer(on: channel)
        channel.embeddedEventLoop.run()
        #expect(answerAsHummingbirdDoes(channel))
        return channel
    }

    /// Says a held answer is under way on `channel`, and delivers `{}` for it before
    /// Hummingbird ends the request; returns what is told once it is written.
    private static func answeredEarly(_ channel: EmbeddedChannel) -> Told {
        let told = Told()
        PollAnswerWriter.expectHeldAnswer(on: channel)
        PollAnswerWriter.deliver(Array("{}".utf8), on: channel, written: told.tell)
        channel.embeddedEventLoop.run()
        return told
    }

    /// What `deliver`'s `written` was told: nothing yet, or whether the client had left.
    private final class Told: Sendable {
        let clientLeft = Mutex<[Bool]>([])

        func tell(_ left: Bool) {
            clientLeft.withLock { $0.append(left) }
        }
    }

    @Test("A held poll's end is kept back, Hummingbird told it is written; the answer then goes as its body and its end, told written")
    func endKeptUntilTheAnswer() throws {
        let channel = try Self.holding()
        #expect(try channel.responseParts() == ["head"])
        let told = Told()
        PollAnswerWriter.deliver(Array("{\"a\":1}".utf8), on: channel, written: told.tell)
        #expect(try channel.responseParts() == [])
        channel.embeddedEventLoop.run()
        #expect(try channel.responseParts() == ["body {\"a\":1}", "end"])
        #expect(told.clientLeft.withLock { $0 } == [false])
        // The next answer is not a held poll's: it goes through whole.
        #expect(Self.answerAsHummingbirdDoes(channel))
        #expect(try channel.responseParts() == ["head", "end"])
        _ = try channel.finish()
    }

    @Test("An answer that comes before Hummingbird ends its request is written as the request's end comes")
    func answerBeforeTheEnd() throws {
        let channel = try Self.channel()
        let told = Self.answeredEarly(channel)
        #expect(try channel.responseParts() == [])
        #expect(Self.answerAsHummingbirdDoes(channel))
        #expect(try channel.responseParts() == ["head", "body {}", "end"])
        #expect(told.clientLeft.withLock { $0 } == [false])
        _ = try channel.finish()
    }

    @Test("Without a held poll every part goes through, and an answer that comes for none is told never written")
    func otherAnswersGoThrough() throws {
        let channel = try Self.channel()
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.write(HTTPResponsePart.body(ByteBuffer(string: "x")), promise: nil)
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        #expect(try channel.responseParts() == ["head", "body x", "end"])
        let told = Told()
        PollAnswerWriter.deliver(Array("{}".utf8), on: channel, written: told.tell)
        channel.embeddedEventLoop.run()
        #expect(try channel.responseParts() == [])
        #expect(told.clientLeft.withLock { $0 } == [true])
        _ = try channel.finish()
    }

    @Test("A close of the sending half while an answer is held waits for it, then closes; a whole close does not wait")
    func outputCloseWaitsForTheAnswer() throws {
        let channel = try Self.holding()
        let closed = channel.eventLoop.makePromise(of: Void.self)
        let closeDone = Told()
        closed.futureResult.whenComplete { _ in closeDone.tell(false) }
        channel.close(mode: .output, promise: closed)
        channel.embeddedEventLoop.run()
        #expect(closeDone.clientLeft.withLock { $0.isEmpty })
        PollAnswerWriter.deliver(Array("{}".utf8), on: channel, written: { _ in })
        channel.embeddedEventLoop.run()
        #expect(try channel.responseParts() == ["head", "body {}", "end"])
        // EmbeddedChannel closes whole on any close: what matters is that it came after the answer.
        #expect(!closeDone.clientLeft.withLock { $0.isEmpty })
        #expect(!channel.isActive)

        let other = try Self.holding()
        other.close(promise: nil)
        other.embeddedEventLoop.run()
        #expect(!other.isActive)
        let told = Told()
        PollAnswerWriter.deliver(Array("{}".utf8), on: other, written: told.tell)
        other.embeddedEventLoop.run()
        #expect(told.clientLeft.withLock { $0 } == [true])
    }

    @Test("An answer that came before its end, on a connection that closes before the end, is told never written")
    func answeredThenClosed() throws {
        let channel = try Self.channel()
        let told = Self.answeredEarly(channel)
        #expect(told.clientLeft.withLock { $0 } == [])
        channel.close(promise: nil)
        channel.embeddedEventLoop.run()
        #expect(told.clientLeft.withLock { $0 } == [true])
    }
}
