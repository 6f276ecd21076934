import NIOCore
import NIOHTTPTypes

/// Each connection's writer of a held long poll's answer, placed last before Hummingbird, so
/// that a poll is held by the connection and not by a task (issue 40).
///
/// The poll's route ends its request at once, as far as Hummingbird knows: it answers with
/// the head and an empty body (`expectHeldAnswer`), and this writer keeps back the end of
/// that answer. The connection's task then waits for a next request, as an idle connection's
/// does, and what a held poll costs is the hub's entry and the closure its answer goes to, no
/// frames of a suspended task. When the hub has the answer, it comes here (`deliver`), and
/// goes out as the body and the end kept back.
///
/// The handlers nearer the socket see the request in progress until then: `ConnectionWatch`
/// keeps what the client sends behind it (pipelining) and counts the connection busy, and
/// Hummingbird's `HTTPConnectionStateHandler` does not close it as idle, and at a shutdown
/// closes it once the answer is written. Hummingbird's close of the sending half (after a
/// request that said `Connection: close`, or when the client has closed its own) waits for
/// the answer too.
final class PollAnswerWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// No held answer: every part goes through.
        case passing
        /// The answer under way is a held poll's: its end is to be kept back.
        case expecting
        /// The held answer came before the end it follows: its body, and what is told once it
        /// is written.
        case answered(ByteBuffer, Written)
        /// The end is kept back, until the held answer comes.
        case holding
    }

    /// Told once a held answer is written, whether it never reached the client (`clientLeft`).
    typealias Written = @Sendable (_ clientLeft: Bool) -> Void

    private var state = State.passing
    private var context: ChannelHandlerContext?
    /// A close of the sending half came while an answer was held: it is done once the answer
    /// is written, and then completes `closeKeptPromise`.
    private var closeKept = false
    private var closeKeptPromise: EventLoopPromise<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        if case .answered(_, let written) = state { written(true) }
        state = .passing
        closeKeptPromise?.fail(ChannelError.alreadyClosed)
        closeKeptPromise = nil
    }

    /// Tells the writer of `channel`'s answers that the answer under way is a held poll's:
    /// called from that answer's body, before it ends.
    static func expectHeldAnswer(on channel: any Channel) {
        onWriter(of: channel) { $0.expect() }
    }

    /// Writes `answer` as the body of the held poll's answer on `channel`, ends it, and tells
    /// `written` once that is done.
    static func deliver(_ answer: [UInt8], on channel: any Channel, written: @escaping Written) {
        onWriter(of: channel, else: { written(true) }) { $0.deliver(answer, written: written) }
    }

    private static func onWriter(
        of channel: any Channel, else gone: @escaping @Sendable () -> Void = {}, _ action: @escaping (PollAnswerWriter) -> Void
    ) {
        channel.eventLoop.execute {
            guard let writer = try? channel.pipeline.syncOperations.handler(type: PollAnswerWriter.self) else { return gone() }
            action(writer)
        }
    }

    private func expect() {
        state = .expecting
    }

    private func deliver(_ answer: [UInt8], written: @escaping Written) {
        guard let context else { return written(true) }
        let body = context.channel.allocator.buffer(bytes: answer)
        switch state {
        case .expecting:
            state = .answered(body, written)
        case .holding:
            state = .passing
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: Self.promise(telling: written, on: context.eventLoop))
            if closeKept {
                closeKept = false
                context.close(mode: .output, promise: closeKeptPromise)
                closeKeptPromise = nil
            }
        case .passing, .answered:
            written(true)
        }
    }

    private static func promise(telling written: @escaping Written, on eventLoop: any EventLoop) -> EventLoopPromise<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { result in
            if case .failure = result { written(true) } else { written(false) }
        }
        return promise
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        switch state {
        case .passing, .holding:
            context.write(data, promise: promise)
        case .expecting:
            state = .holding
            promise?.succeed(())
        case .answered(let body, let written):
            state = .passing
            let ended = Self.promise(telling: written, on: context.eventLoop)
            promise.map { ended.futureResult.cascade(to: $0) }
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            context.write(data, promise: ended)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .output, case .holding = state else {
            context.close(mode: mode, promise: promise)
            return
        }
        closeKept = true
        closeKeptPromise = promise
    }
}
