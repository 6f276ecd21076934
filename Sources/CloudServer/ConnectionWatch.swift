import CloudWebServices
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// The server's open connections, each known as idle (between requests, or not yet sent
/// one) or busy (a request read and not yet answered: a held long poll is busy), so that a
/// server at its connection limit closes the connection idle longest to take a new one. A
/// thousand connections that never send a byte then cost a legitimate client nothing but
/// the turn of one of them.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        /// When it last became idle, in the order of `ticks`; nil while busy.
        var idleSince: UInt64?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var ticks: UInt64 = 0
    }

    private let state = Mutex(State())

    /// How many connections are known now.
    var count: Int { state.withLock { $0.entries.count } }

    func opened(_ channel: any Channel) {
        state.withLock { state in
            state.ticks += 1
            state.entries[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: state.ticks)
        }
    }

    func closed(_ channel: any Channel) {
        _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func busy(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.idleSince = nil }
    }

    func idle(_ channel: any Channel) {
        state.withLock { state in
            state.ticks += 1
            state.entries[ObjectIdentifier(channel)]?.idleSince = state.ticks
        }
    }

    /// Closes the connection that has been idle longest, if any is idle; returns whether one was.
    @discardableResult
    func closeLongestIdle() -> Bool {
        let oldest = state.withLock { state -> (any Channel)? in
            guard let (key, entry) = state.entries.filter({ $0.value.idleSince != nil }).min(by: { $0.value.idleSince! < $1.value.idleSince! })
            else { return nil }
            state.entries[key] = nil
            return entry.channel
        }
        oldest?.close(promise: nil)
        return oldest != nil
    }
}

/// Each connection's watch, placed after the HTTP decoder: tells the registry when the
/// connection is idle or busy, and answers a request the decoder gives up on before its
/// head was read (a header over the limit, a request line that is not HTTP) with the JSON
/// error every other bad request gets, instead of Hummingbird's empty 400.
final class ConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let registry: ConnectionRegistry
    /// A request's head was read and its answer not yet finished.
    private var midRequest = false
    private var answeredError = false

    init(registry: ConnectionRegistry) {
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        registry.opened(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        registry.closed(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        registry.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            midRequest = true
            registry.busy(context.channel)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            midRequest = false
            registry.idle(context.channel)
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Within a request the responder reads the error from the body and answers it.
        guard let error = error as? HTTPParserError, !midRequest, error != .invalidEOFState else {
            context.fireErrorCaught(error)
            return
        }
        guard !answeredError else { return }
        answeredError = true
        let body = ByteBuffer(bytes: JSONValue.object(Self.error(for: error).object).bytes)
        let head = HTTPResponse(
            status: .badRequest,
            headerFields: [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes), .connection: "close"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        // Only the sending half is closed: a client still sending the rest of its header
        // then reads the answer instead of a reset. It closes, or the idle timeout does.
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(mode: .output).assumeIsolated().whenFailure { _ in context.close(promise: nil) }
        }
    }

    /// What the client is told of a request the decoder could not read.
    static func error(for error: HTTPParserError) -> WebServicesError {
        switch error {
        case .headerOverflow:
            return .badRequest("The request's header is over \(CloudServer.maximumHeaderBytes >> 10) KiB.")
        default:
            return .badRequest("The request is not HTTP/1.1 (\(error)).")
        }
    }
}
