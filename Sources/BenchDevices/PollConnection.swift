import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One device's connection for its long polls, of its own: a keep-alive HTTP/1.1
/// connection that sends one GET at a time and hands back the whole answer. The app's HTTP
/// client does the same on a phone or laptop; here ten thousand devices share two cores
/// with the server they measure, and the client's own bookkeeping for a request (its pool,
/// its request and task objects, its state machines) took as much of them as the answer's
/// bytes did. What a poll asks and how its answer is read stay the app's
/// (`WebServicesDatabase.pollURL(after:seconds:)` and `notice(answering:…)`).
///
/// Plain HTTP only, to the server of the first URL it is given.
final class PollConnection: Sendable {
    /// An answer's status, headers and body.
    typealias Answer = (status: Int, headers: HTTPHeaders, body: ByteBuffer)

    private struct Server: Hashable {
        var host: String
        var port: Int
        /// What a URL to it starts with: `http://host:port`.
        var origin: String { "http://\(host):\(port)" }
    }

    private let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    private let state = Mutex<(server: Server?, channel: (any Channel)?)>((nil, nil))

    /// Connects to the server of `url` unless connected already. Throws if `url` is not
    /// plain HTTP or names another server.
    func connect(for url: URL) async throws {
        guard url.scheme == "http", let host = url.host, let port = url.port else { throw NotThisServer(url: url) }
        let server = Server(host: host, port: port)
        let current = state.withLock { $0 }
        if let known = current.server, known != server { throw NotThisServer(url: url) }
        if let channel = current.channel, channel.isActive { return }
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(AnswerHandler())
                }
            }
            .connect(host: host, port: port).get()
        state.withLock { $0 = (server, channel) }
    }

    /// GETs `url` (of the server connected to) and takes its whole answer; fails if the
    /// connection has closed (`connect(for:)` again).
    func get(_ url: URL) -> EventLoopFuture<Answer> {
        let (server, channel) = state.withLock { $0 }
        guard let server, let channel, channel.isActive else { return group.any().makeFailedFuture(ChannelError.ioOnClosedChannel) }
        let text = url.absoluteString
        guard text.hasPrefix(server.origin) else { return channel.eventLoop.makeFailedFuture(NotThisServer(url: url)) }
        let target = String(text.dropFirst(server.origin.count))
        let host = server.origin.dropFirst("http://".count)
        return channel.eventLoop.flatSubmit {
            let promise = channel.eventLoop.makePromise(of: Answer.self)
            do {
                try channel.pipeline.syncOperations.handler(type: AnswerHandler.self).expect(promise)
            } catch {
                promise.fail(error)
                return promise.futureResult
            }
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.isEmpty ? "/" : target)
            head.headers.add(name: "Host", value: String(host))
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { promise.fail($0) }
            return promise.futureResult
        }
    }

    /// A URL that is not plain HTTP to the server connected to.
    struct NotThisServer: Error {
        let url: URL
    }

    /// Closes the connection.
    func close() {
        let channel = state.withLock { $0.channel }
        channel?.close(promise: nil)
    }
}

/// Gathers one answer at a time into the promise of the request that asked for it.
private final class AnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private var pending: EventLoopPromise<PollConnection.Answer>?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    /// The answer to the request being sent goes to `promise`.
    func expect(_ promise: EventLoopPromise<PollConnection.Answer>) {
        pending?.fail(ChannelError.inappropriateOperationForState)
        pending = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
            body = ByteBuffer()
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard let head, let promise = pending else { return }
            pending = nil
            self.head = nil
            promise.succeed((Int(head.status.code), head.headers, body))
            if !head.isKeepAlive { context.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.fail(ChannelError.eof)
        pending = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        pending?.fail(error)
        pending = nil
        context.close(promise: nil)
    }
}
