import CloudWebServices
import HTTPTypes
import IdeaBoxFoundation
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// The server's open connections, each known as idle (between requests, or not yet sent
/// one) or busy (a request read and not yet answered), so that a server at its connection
/// limit closes the connection idle longest to take a new one. A thousand connections that
/// never send a byte then cost a legitimate client nothing but the turn of one of them.
///
/// A busy connection may be held for an account (`hold`: a long poll it holds, a body it is
/// sending): when too few are idle, those are closed too, the account holding the most
/// going first, so that no account's polls or slow bodies keep the others out. And a
/// request may ask to learn when its client has gone (`whenClientGone`: it closed its
/// sending half, or the connection), as a long poll does to let go of it at once.
///
/// The server stops accepting at `limit` (`ConnectionLimit`), and a connection is known here
/// only once its pipeline is set up, a moment after it was accepted: so the connection that
/// brings the count here to the limit is the one that makes room, and accepting resumes
/// when the connections it closed are gone. It closes an eighth of the limit at once, the
/// longest idle: one at a time, a flood of idle connections waiting in the listen backlog
/// would be taken in one round trip between threads each, which on a loaded machine added
/// up to the idle timeout.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        /// When it last became idle, in the order of `ticks`; nil while busy.
        var idleSince: UInt64?
        /// The account a busy connection is held for (it may be closed to make room), and since when.
        var heldFor: (account: String, since: UInt64)?
        /// Its client has closed its sending half: it will send nothing more.
        var clientGone = false
        /// What to run once its client has gone.
        var onClientGone: (@Sendable () -> Void)?
        /// The hash of the access token whose request a busy connection serves (its
        /// credentials, or the token its signed URL was made for); nil while idle.
        var tokenHash: String?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var ticks: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The most connections open at once.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Knows `channel`, idle until its first request; at the limit, closes the connections
    /// idle longest, then those held for the accounts holding the most (never this one).
    func opened(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let evicted = state.withLock { state -> [Entry] in
            state.ticks += 1
            state.entries[key] = Entry(channel: channel, idleSince: state.ticks)
            guard state.entries.count >= limit else { return [] }
            let wanted = max(1, limit / 8)
            let idle = Self.removeLongestIdle(wanted, from: &state, sparing: key)
            return idle + Self.removeHeld(wanted - idle.count, from: &state)
        }
        for entry in evicted {
            entry.channel.close(promise: nil)
            entry.onClientGone?()
        }
    }

    /// Forgets `channel`, closed; what waited for its client to go runs now.
    func closed(_ channel: any Channel) {
        state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }?.onClientGone?()
    }

    func busy(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.idleSince = nil }
    }

    func idle(_ channel: any Channel) {
        state.withLock { state in
            state.ticks += 1
            state.entries[ObjectIdentifier(channel)]?.idleSince = state.ticks
            state.entries[ObjectIdentifier(channel)]?.heldFor = nil
            state.entries[ObjectIdentifier(channel)]?.tokenHash = nil
        }
    }

    /// Notes that the busy `channel` serves a request of the access token `tokenHash` until
    /// it is idle again: once the token is revoked, `closeServing` closes it.
    func serving(_ channel: any Channel, tokenHash: String) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.tokenHash = tokenHash }
    }

    /// The tokens whose requests are being served now.
    var servingTokens: Set<String> {
        state.withLock { Set($0.entries.values.compactMap(\.tokenHash)) }
    }

    /// Closes every connection that serves a request of one of `tokens` (revoked): what it
    /// was sending or being sent ends there. Returns how many were closed.
    @discardableResult
    func closeServing(_ tokens: Set<String>) -> Int {
        guard !tokens.isEmpty else { return 0 }
        let channels = state.withLock { state in
            state.entries.values.filter { $0.tokenHash.map(tokens.contains) ?? false }.map(\.channel)
        }
        for channel in channels { channel.close(promise: nil) }
        return channels.count
    }

    /// Marks the busy `channel` as held for `account` until it is idle again or `letGo`:
    /// closed to make room when too few connections are idle.
    func hold(_ channel: any Channel, for account: String) {
        state.withLock { state in
            state.ticks += 1
            state.entries[ObjectIdentifier(channel)]?.heldFor = (account, state.ticks)
        }
    }

    /// Undoes `hold`.
    func letGo(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.heldFor = nil }
    }

    /// Runs `action` once the client of `channel` has gone (it closed its sending half, or
    /// the connection is closed), at once if it already has; until `forgetClientGone`. (Every
    /// connection is known from its start to its close: one not known has closed.)
    func whenClientGone(_ channel: any Channel, _ action: @escaping @Sendable () -> Void) {
        let goneAlready = state.withLock { state -> Bool in
            guard let entry = state.entries[ObjectIdentifier(channel)] else { return true }
            guard !entry.clientGone else { return true }
            state.entries[ObjectIdentifier(channel)]?.onClientGone = action
            return false
        }
        if goneAlready { action() }
    }

    /// Whether the client of `channel` has gone: it closed its sending half, or the connection.
    func hasClientGone(_ channel: any Channel) -> Bool {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.clientGone ?? true }
    }

    /// Undoes `whenClientGone`.
    func forgetClientGone(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.onClientGone = nil }
    }

    /// The client of `channel` closed its sending half: what waits for that runs now.
    func clientGone(_ channel: any Channel) {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            state.entries[ObjectIdentifier(channel)]?.clientGone = true
            defer { state.entries[ObjectIdentifier(channel)]?.onClientGone = nil }
            return state.entries[ObjectIdentifier(channel)]?.onClientGone
        }
        action?()
    }

    private static func removeLongestIdle(_ count: Int, from state: inout State, sparing spared: ObjectIdentifier) -> [Entry] {
        let idle = state.entries.compactMap { key, entry in entry.idleSince.map { (key: key, since: $0) } }
            .filter { $0.key != spared }
            .sorted { $0.since < $1.since }
        return idle.prefix(count).compactMap { state.entries.removeValue(forKey: $0.key) }
    }

    /// Takes `count` held connections, each from the account holding the most at that
    /// moment, its longest held first.
    private static func removeHeld(_ count: Int, from state: inout State) -> [Entry] {
        guard count > 0 else { return [] }
        var byAccount: [String: [(key: ObjectIdentifier, since: UInt64)]] = [:]
        for (key, entry) in state.entries {
            guard let held = entry.heldFor else { continue }
            byAccount[held.account, default: []].append((key, held.since))
        }
        // Longest held last, where it is taken from first.
        for account in byAccount.keys { byAccount[account]?.sort { $0.since > $1.since } }
        var removed: [Entry] = []
        while removed.count < count, let most = byAccount.max(by: { $0.value.count < $1.value.count }), let taken = most.value.last {
            byAccount[most.key]?.removeLast()
            if byAccount[most.key]?.isEmpty == true { byAccount[most.key] = nil }
            if let entry = state.entries.removeValue(forKey: taken.key) { removed.append(entry) }
        }
        return removed
    }
}

/// Each connection's watch, placed after the HTTP decoder:
/// - hands on one request at a time: what a client sends behind a request (HTTP/1.1
///   pipelining) waits here, and nothing more is read, until that request's answer is
///   written;
/// - tells the registry when the connection is idle or busy;
/// - ends the connection after an answer that says `Connection: close` (Hummingbird leaves
///   that to the client), and runs nothing the client sent behind it;
/// - closes a connection whose client stops reading an answer for `stallTimeout` (a
///   download or a long poll's answer it never takes), which the idle timeout does not,
///   since a request is in progress;
/// - answers a request the decoder gives up on before its head was read (a header over the
///   limit, a request line that is not HTTP) with the JSON error every other bad request
///   gets, instead of Hummingbird's empty 400; and a CONNECT with 405 at once (its parser
///   would wait for the end of a tunnel);
/// - tells the registry when the client has closed its sending half;
/// - puts off the flush of an answer's body part to the end of the event loop's turn, so
///   that its end, written right after (a long poll's answer, issue 40), goes out with it:
///   one write to the socket, and one segment for the client to read, instead of two.
final class ConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let registry: ConnectionRegistry
    private let stallTimeout: TimeAmount
    /// Requests handed on whose answer is not yet written whole (0 or 1).
    private var requestsInFlight = 0
    /// What the client sent behind the request in flight, held until its answer is written.
    private var held: [NIOAny] = []
    /// A read asked for while parts are held, done once they are handed on.
    private var readWanted = false
    private var answeredError = false
    /// The answer being written says `Connection: close`.
    private var closing = false
    /// The connection's sending half is closed: nothing more is read as a request.
    private var finished = false
    /// The close of a connection whose client stopped reading, while it has not resumed.
    private var stalled: Scheduled<Void>?
    /// The last part written is an answer's body part, not yet followed by its end.
    private var inBody = false
    /// A flush after a body part is put off to the end of this turn of the event loop.
    private var flushPutOff = false

    init(registry: ConnectionRegistry, stallTimeout: TimeAmount) {
        self.registry = registry
        self.stallTimeout = stallTimeout
    }

    /// How a connection's reads are sized. NIO keeps the buffer of a connection's last read
    /// for its next: 512 bytes to start with (its default is 2 KiB) holds a request's head, and
    /// a large body's reads grow as they come. 1.5 KiB less for each of ten thousand
    /// connections that hold a poll (issue 40).
    static let reads = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.reads)
        registry.opened(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stalled?.cancel()
        registry.closed(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        registry.closed(context.channel)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { registry.clientGone(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !held.isEmpty {
            held.append(data)
            return
        }
        if case .head(let head) = unwrapInboundIn(data) {
            // After an answer that ended the connection, a next request is never served.
            guard !finished else {
                context.close(promise: nil)
                return
            }
            // What follows a CONNECT is a tunnel's bytes, not HTTP: the parser waits for no
            // end of it, so the request is answered here and the connection ended.
            if head.method == .connect, requestsInFlight == 0 {
                var refusal = WebServicesError.badRequest("CONNECT is not served: this server is not a proxy.")
                refusal.statusOverride = 405
                answer(refusal, context: context)
                return
            }
            if requestsInFlight > 0 {
                held.append(data)
                return
            }
            requestsInFlight += 1
            registry.busy(context.channel)
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        if held.isEmpty {
            context.read()
        } else {
            readWanted = true
        }
    }

    /// Hands on what was held behind the answer just written, up to the next request's
    /// answer; after an answer that ended the connection, closes it instead.
    private func release(_ context: ChannelHandlerContext) {
        guard !held.isEmpty else { return }
        guard !finished else {
            held.removeAll()
            context.close(promise: nil)
            return
        }
        while !held.isEmpty {
            let part = held[0]
            if case .head = unwrapInboundIn(part) {
                guard requestsInFlight == 0 else { break }
                requestsInFlight += 1
                registry.busy(context.channel)
            }
            held.removeFirst()
            context.fireChannelRead(part)
        }
        context.fireChannelReadComplete()
        if held.isEmpty, readWanted {
            readWanted = false
            context.read()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closing = head.headerFields[.connection]?.lowercased() == "close"
            inBody = false
        case .body:
            inBody = true
        case .end:
            inBody = false
            requestsInFlight = max(0, requestsInFlight - 1)
            // Idle once the answer is sent, not merely queued: an eviction then never cuts it.
            // (Unless a request held behind it has been handed on by then.)
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            written.futureResult.assumeIsolated().whenSuccess { [self] in
                if requestsInFlight == 0 { registry.idle(channel) }
            }
            if closing {
                context.writeAndFlush(data, promise: written)
                finish(context)
            } else {
                context.write(data, promise: written)
            }
            release(context)
            return
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        guard inBody else {
            flushPutOff = false
            return context.flush()
        }
        // The body's end (or its next part) is likely on its way from the task writing the
        // answer, queued on this event loop behind this turn: one flush for both. Whatever
        // the turn brings, what was written is flushed at its end.
        guard !flushPutOff else { return }
        flushPutOff = true
        context.eventLoop.assumeIsolated().execute { [self] in
            guard flushPutOff else { return }
            flushPutOff = false
            context.flush()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stalled?.cancel()
            stalled = nil
        } else if stalled == nil {
            stalled = context.eventLoop.assumeIsolated().scheduleTask(in: stallTimeout) { context.close(promise: nil) }
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Within a request the responder reads the error from the body and answers it.
        guard let error = error as? HTTPParserError, requestsInFlight == 0, error != .invalidEOFState else {
            context.fireErrorCaught(error)
            return
        }
        answer(Self.error(for: error), context: context)
    }

    /// Answers `error` with `Connection: close` and ends the connection, once: for what
    /// never reaches the routes.
    private func answer(_ error: WebServicesError, context: ChannelHandlerContext) {
        guard !answeredError else { return }
        answeredError = true
        let body = ByteBuffer(bytes: JSONValue.object(error.object).bytes)
        let head = HTTPResponse(
            status: HTTPResponse.Status(code: error.httpStatus),
            headerFields: [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes), .connection: "close"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        finish(context)
    }

    /// Ends the connection once what was written is sent. Only the sending half is closed: a
    /// client still sending (the rest of a header, a body never read) then reads the answer
    /// instead of a reset. It closes, or the idle timeout does.
    private func finish(_ context: ChannelHandlerContext) {
        finished = true
        context.close(mode: .output).assumeIsolated().whenFailure { _ in context.close(promise: nil) }
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
