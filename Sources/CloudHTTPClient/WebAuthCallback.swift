import Foundation
import IdeaBoxFoundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The sign-in callback on this machine: after a person signs in on Apple's page, the page
/// sends their browser to the container's sign-in callback with `?ckWebAuthToken=…`
/// (`docs/icloud-digest.md` §3). Set to `http://127.0.0.1:PORT/`, that is this listener: it
/// answers the one request that carries a token with a page saying the person may close it,
/// and hands the token on. Other requests (a browser's `favicon.ico`) get a 404 and the wait
/// goes on. It listens on loopback only, and only until the token came or it is closed.
public final class WebAuthCallback: Sendable {
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    private let arrived: Arrival

    private init(channel: any Channel, arrived: Arrival) {
        self.channel = channel
        self.arrived = arrived
        port = channel.localAddress?.port ?? 0
    }

    /// Listens on 127.0.0.1:`port` (0: a free one) now, so that a port in use fails before
    /// the sign-in page is shown.
    public static func listen(port: Int) async throws -> WebAuthCallback {
        let arrived = Arrival()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(CallbackHandler(arrived: arrived))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        return WebAuthCallback(channel: channel, arrived: arrived)
    }

    /// The token, once the browser brought it.
    public func token() async -> String {
        await arrived.value()
    }

    /// Stops listening.
    public func close() async {
        try? await channel.close()
    }

    /// The token `query` carries, decoded as a form is (`%2B` a `+`; a bare `+` a space, as
    /// Apple reads it), or nil.
    public static func token(inQuery query: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0] == "ckWebAuthToken" else { continue }
            let value = String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            return value.isEmpty || value.utf8.count > WebAuthToken.maximumLength ? nil : value
        }
        return nil
    }

    /// The page a browser shows once the token came.
    static let page = """
        <!doctype html><html><head><meta charset="utf-8"><title>IdeaBox</title></head>
        <body><p>Signed in to iCloud for IdeaBox. You can close this tab.</p><p>已登入 iCloud，可以關閉這個分頁。</p></body></html>
        """
}

/// The first token that arrived; `opened` once it did.
private final class Arrival: Sendable {
    private let token = Mutex<String?>(nil)
    private let arrived = Latch()

    func deliver(_ token: String) {
        let isFirst = self.token.withLock { current in
            guard current == nil else { return false }
            current = token
            return true
        }
        if isFirst { arrived.open() }
    }

    func value() async -> String {
        await arrived.opened()
        return token.withLock { $0 } ?? ""
    }
}

/// Answers each request of a connection to the callback.
private final class CallbackHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let arrived: Arrival

    init(arrived: Arrival) {
        self.arrived = arrived
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let query = head.uri.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let token = head.method == .GET ? WebAuthCallback.token(inQuery: query) : nil
        let (status, body) = token == nil
            ? (HTTPResponseStatus.notFound, "No ckWebAuthToken in this request.\n")
            : (.ok, WebAuthCallback.page)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: token == nil ? "text/plain; charset=utf-8" : "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        if let token { arrived.deliver(token) }
    }
}
