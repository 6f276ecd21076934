@testable import CloudServer
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// The server's router as HummingbirdTesting's router framework reaches it, each request on a
/// connection of its own that the server's `ConnectionRegistry` knows, as a socket's
/// `ConnectionWatch` makes it known: opened and busy when the request comes, its client gone
/// when the request's task is cancelled (the test's client went), closed once its answer is
/// written. The end of each answer goes through the connection's `PollAnswerWriter`, where a
/// held long poll's end is kept back until the hub has its answer, and what that writer then
/// writes (the held answer, or a close) reaches the test as it would reach a socket. So a
/// request in process runs what a request on a socket runs: client gone, fair-share eviction,
/// a revoked token's close and the held poll's answer included.
struct InProcessConnections<Responder: HTTPResponder>: HTTPResponder where Responder.Context == ServerRequestContext {
    typealias Context = ServerRequestContext

    let responder: Responder
    let registry: ConnectionRegistry

    func respond(to request: Request, context: Context) async throws -> Response {
        let channel = context.channel
        let socket = InProcessSocket()
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandlers([socket, PollAnswerWriter()])
        }.get()
        let registry = registry
        registry.opened(channel)
        registry.busy(channel)
        var response: Response
        do {
            response = try await withTaskCancellationHandler {
                try await responder.respond(to: request, context: context)
            } onCancel: {
                registry.clientGone(channel)
            }
        } catch {
            Self.close(channel, registry)
            throw error
        }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { Self.close(channel, registry) }
            try await withTaskCancellationHandler {
                try await body.write(InProcessWriter(body: writer, channel: channel, socket: socket))
            } onCancel: {
                registry.clientGone(channel)
            }
        }
        return response
    }

    /// The connection's end, as a socket's: the registry forgets it, and what waited for its
    /// client to go runs now.
    private static func close(_ channel: any Channel, _ registry: ConnectionRegistry) {
        registry.closed(channel)
        channel.close(promise: nil)
    }
}

/// What a closed in-process connection tells the test: its answer never came whole.
struct InProcessConnectionClosed: Error {}

/// The writer of an in-process answer: its body goes to the test's writer; its end goes
/// through the connection's handlers (a held poll's `PollAnswerWriter`), and what they write
/// after it is the rest of the answer.
private struct InProcessWriter: ResponseBodyWriter {
    var body: any ResponseBodyWriter
    let channel: any Channel
    let socket: InProcessSocket

    mutating func write(_ buffer: ByteBuffer) async throws {
        try await body.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        var body = body
        try await channel.writeAndFlush(HTTPResponsePart.end(nil))
        for try await piece in socket.written {
            try await body.write(piece)
        }
        // The stream ends early when the test's client goes: its answer never came whole.
        try Task.checkCancellation()
        try await body.finish(trailingHeaders)
    }
}

/// The far end of an in-process connection, first in its pipeline: what the handlers write
/// there after the answer's body (a held poll's answer and its end), or that they closed it.
private final class InProcessSocket: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = HTTPResponsePart

    /// The body parts written, ending with the answer's end, or with `InProcessConnectionClosed`.
    let written: AsyncThrowingStream<ByteBuffer, any Error>
    private let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation

    init() {
        (written, continuation) = AsyncThrowingStream.makeStream()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            break
        case .body(let buffer):
            continuation.yield(buffer)
        case .end:
            continuation.finish()
        }
        promise?.succeed(())
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        continuation.finish(throwing: InProcessConnectionClosed())
        context.close(mode: mode, promise: promise)
    }
}
