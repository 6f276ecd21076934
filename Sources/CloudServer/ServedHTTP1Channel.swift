import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

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

    /// A builder of `serve`'s connections, for `Application`.
    static func builder(registry: ConnectionRegistry, idleTimeout: Duration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in ServedHTTP1Channel(responder: responder, registry: registry, idleTimeout: idleTimeout) }
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
