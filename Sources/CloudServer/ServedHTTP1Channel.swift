import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import ServerStore

/// `serve`'s HTTP/1.1 connections: Hummingbird's `HTTP1Channel`, with the server's own
/// handlers in the places they need. `ConnectionWatch` sits right after the codec, before
/// Hummingbird's `HTTPConnectionStateHandler` (where `HTTP1Channel` puts its additional
/// handlers), and `PollAnswerWriter` after it, last before Hummingbird's task: the end of a
/// held poll's answer it keeps back then counts, for the state handler too, as a request still
/// in progress, which neither its idle timeout nor a shutdown cuts.
struct ServedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let registry: ConnectionRegistry
    /// How long a connection may send nothing, or not read what it is sent.
    let idleTimeout: Duration

    /// Connections that answer each request with `responder`, run in a task of the request's
    /// own (`inTaskOfItsOwn`).
    init(responder: @escaping HTTPChannelHandler.Responder, registry: ConnectionRegistry, idleTimeout: Duration) {
        self.responder = Self.inTaskOfItsOwn(responder)
        self.registry = registry
        self.idleTimeout = idleTimeout
    }

    /// A builder of `serve`'s connections, for `Application`.
    static func builder(registry: ConnectionRegistry, idleTimeout: Duration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in ServedHTTP1Channel(responder: responder, registry: registry, idleTimeout: idleTimeout) }
    }

    /// `responder`, run for each request in a task of its own, with the request's answer
    /// writer handed to it, where every request runs (`BlockingTaskExecutor`, for the store's
    /// calls), with the connection's task-local values, and cancelled with the connection's task.
    ///
    /// Hummingbird serves every request of a connection in the connection's task, and Swift's
    /// task allocator keeps a task's slabs (about 1 KiB each) at their high-water mark until the
    /// task ends: each connection then kept the room of the deepest request it had served (the
    /// application's and the logger's frames, the eight middlewares, the operation, the store's
    /// calls, the writing of the answer) for as long as it stayed open, idle or holding a long
    /// poll (issue 40). A child task (`async let`) would not do: it is made in its parent's
    /// allocator. The connection's task now only waits for the request's.
    static func inTaskOfItsOwn(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            let handOver = WriterHandOver(writer)
            let task = Task(executorPreference: BlockingTaskExecutor.shared) { try await responder(request, handOver.take(), channel) }
            try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = CloudServer.maximumHeaderBytes
            limits.maxHeaderListSize = CloudServer.maximumHeaderBytes
            limits.maxHeaderFieldCount = 1000
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            let stallTimeout = TimeAmount.nanoseconds(Int64(idleTimeout / .nanoseconds(1)))
            try pipeline.addHandler(ConnectionWatch(registry: registry, stallTimeout: stallTimeout))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
            try pipeline.addHandler(PollAnswerWriter())
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

/// A request's answer writer, handed from the connection's task to the request's: taken once,
/// by the request's task, which the connection's task waits for.
private final class WriterHandOver: @unchecked Sendable {
    private var writer: ResponseWriter?

    init(_ writer: consuming ResponseWriter) {
        self.writer = .some(writer)
    }

    func take() -> ResponseWriter {
        guard let writer = writer.take() else { preconditionFailure("a request's answer writer is taken once") }
        return writer
    }
}
