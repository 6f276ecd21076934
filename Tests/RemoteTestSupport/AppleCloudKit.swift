import AsyncHTTPClient
import Foundation
import IdeaBoxFoundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Apple's CloudKit Web Services endpoint where it differs from `ideabox serve`, in front of a
/// served remote: written from Apple's pages (`docs/icloud-digest.md` §3), for the tests of
/// signing in to iCloud from a terminal. No machine here reaches Apple.
///
/// - A request must carry the container's API token (`ckAPIToken`); a wrong or missing one is
///   `AUTHENTICATION_FAILED` (401).
/// - Without a user's web auth token (`ckWebAuthToken`), or with one that has expired or that
///   this double never handed out, the answer is `AUTHENTICATION_REQUIRED` (421) with a
///   `redirectURL`: the sign-in page.
/// - The sign-in page (`GET /signin`) signs the person in at once and redirects to the
///   container's sign-in callback with `?ckWebAuthToken=…`, the token's `+`, `/` and `=`
///   percent-encoded as Apple says a client must send them back.
/// - Every answer to a signed-in request hands out a new token in the
///   `X-Apple-CloudKit-Web-Auth-Token` header (observed, not documented); the old one stays
///   good until it expires unless `usedTokensExpire` (Apple's word is "single use").
/// - A token lasts `tokenLifetime` from when it was handed out, on `clock`.
///
/// A signed-in request goes on to the served remote with its own account token in place of
/// the user's; its answer comes back as it was, but for the new token's header.
///
/// It answers on NIO's event loops alone, never on Swift's cooperative pool: the test process
/// shares that pool with every other test, and a double that waited for a turn on it would
/// make the terminal it serves look slow (a sync "under way" for 10 s in a full run).
public final class AppleCloudKit: Sendable {
    /// The container's API token, as CloudKit Console makes one: 64 hex digits.
    public let apiToken: String
    /// Where the sign-in page sends the person back to: the API token's sign-in callback.
    public let callback: URL
    /// This double's base URL, `http://127.0.0.1:PORT`: what a client puts in place of
    /// `https://api.apple-cloudkit.com`.
    public let url: URL

    private let backend: URL
    private let backendToken: String
    private let clock: WallClock
    private let tokenLifetime: Int64
    private let usedTokensExpire: Bool
    private let state = Mutex(State())
    private let channel: any Channel

    private struct State {
        /// Each token handed out, and when it expires (milliseconds).
        var tokens: [String: Int64] = [:]
        var signIns = 0
        /// Every query string a request came with (a test looks for a token in clear).
        var queries: [String] = []
    }

    /// Apple's answer to a request that needs a user: the shape of its error dictionary.
    public static let authenticationRequired = "AUTHENTICATION_REQUIRED"
    public static let authenticationFailed = "AUTHENTICATION_FAILED"
    /// The response header a new web auth token comes in.
    public static let tokenHeader = "X-Apple-CloudKit-Web-Auth-Token"

    /// A double in front of the served remote at `backend` (its account signed in with
    /// `backendToken`), listening on a free port of 127.0.0.1.
    public init(
        backend: URL, backendToken: String, callback: URL, apiToken: String = AppleCloudKit.newAPIToken(),
        clock: WallClock = .system, tokenLifetime: Duration = .seconds(30 * 60), usedTokensExpire: Bool = false
    ) async throws {
        self.backend = backend
        self.backendToken = backendToken
        self.callback = callback
        self.apiToken = apiToken
        self.clock = clock
        self.tokenLifetime = tokenLifetime.components.seconds * 1000
        self.usedTokensExpire = usedTokensExpire
        let link = Link()
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(DoubleHandler(link: link))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw AppleCloudKitError(description: "the double did not listen") }
        url = URL(string: "http://127.0.0.1:\(port)")!
        link.attach(self)
    }

    deinit {
        channel.close(promise: nil)
    }

    /// A new API token: 64 lower-case hex digits.
    public static func newAPIToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// A web auth token handed out now, as if the person signed in in a browser and copied it.
    /// Apple's are base64 text; these always hold a `+`, a `/` and a `=`, so that a client that
    /// does not encode them in a URL fails every time, not one time in three.
    public func signIn() -> String {
        let random = Data((0..<47).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let token = "11_" + random.prefix(20) + "+" + random.dropFirst(20).prefix(20) + "/" + random.dropFirst(40)
        let now = clock.now().milliseconds
        state.withLock { state in
            state.signIns += 1
            state.tokens[token] = now + tokenLifetime
        }
        return token
    }

    /// How many times someone signed in.
    public var signIns: Int { state.withLock { $0.signIns } }

    /// Every query string a request came with, in order.
    public var queries: [String] { state.withLock { $0.queries } }

    /// Every token handed out so far stops working (the person signed out everywhere).
    public func expireEveryToken() {
        state.withLock { $0.tokens = [:] }
    }

    /// `text` as Apple wants a token in a URL: `+`, `/` and `=` percent-encoded.
    public static func encodedToken(_ text: String) -> String {
        text.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F")
            .replacingOccurrences(of: "=", with: "%3D")
    }

    // MARK: Answering

    /// The handlers' way to the double, set once it is made; weak, so that the double is
    /// released (and stops listening) when its test lets go of it.
    final class Link: Sendable {
        private let double = Mutex<Weak?>(nil)

        private struct Weak: @unchecked Sendable {
            weak var value: AppleCloudKit?
        }

        func attach(_ value: AppleCloudKit) {
            double.withLock { $0 = Weak(value: value) }
        }

        var value: AppleCloudKit? { double.withLock { $0?.value } }
    }

    /// An answer: its status, headers and body.
    typealias Answer = (status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer)

    /// The answer to the request `head` with `body`, on `eventLoop`.
    func answer(_ head: HTTPRequestHead, body: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Answer> {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let rawQuery = parts.count == 2 ? String(parts[1]) : ""
        state.withLock { $0.queries.append(rawQuery) }
        if path == "/signin" {
            var location = URLComponents(url: callback, resolvingAgainstBaseURL: false)!
            location.percentEncodedQuery = "ckWebAuthToken=" + Self.encodedToken(signIn())
            return eventLoop.makeSucceededFuture((.found, ["Location": location.string!, "Content-Length": "0"], ByteBuffer()))
        }
        let query = Self.parameters(rawQuery)
        guard query["ckAPIToken"] == apiToken else {
            return eventLoop.makeSucceededFuture(Self.error(.unauthorized, code: Self.authenticationFailed, reason: "no valid API token"))
        }
        guard let token = query["ckWebAuthToken"], take(token) else {
            return eventLoop.makeSucceededFuture(Self.error(
                .custom(code: 421, reasonPhrase: "Misdirected Request"), code: Self.authenticationRequired,
                reason: "request needs authorization", redirectURL: url.appendingPathComponent("signin").absoluteString))
        }
        return forward(head, path: path, query: query, body: body, on: eventLoop).map { [self] answer in
            var answer = answer
            answer.headers.replaceOrAdd(name: Self.tokenHeader, value: signIn())
            return answer
        }
    }

    /// Whether `token` is good now; a used token stops being good if `usedTokensExpire`.
    private func take(_ token: String) -> Bool {
        let now = clock.now().milliseconds
        return state.withLock { state in
            guard let expires = state.tokens[token], now < expires else { return false }
            if usedTokensExpire { state.tokens[token] = nil }
            return true
        }
    }

    /// The request sent on to the served remote with its account's token.
    private func forward(
        _ head: HTTPRequestHead, path: String, query: [String: String], body: ByteBuffer, on eventLoop: any EventLoop
    ) -> EventLoopFuture<Answer> {
        var components = URLComponents(url: backend, resolvingAgainstBaseURL: false)!
        components.path = path
        let items = query.filter { $0.key != "ckAPIToken" && $0.key != "ckWebAuthToken" }.map { URLQueryItem(name: $0.key, value: $0.value) }
        components.queryItems = items.isEmpty ? nil : items
        var headers: HTTPHeaders = ["Authorization": "Bearer " + backendToken]
        for name in ["Content-Type", "X-IdeaBox-Device"] {
            if let value = head.headers.first(name: name) { headers.add(name: name, value: value) }
        }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(
                url: components.string!, method: head.method == .POST ? .POST : .GET, headers: headers,
                body: head.method == .POST ? .byteBuffer(body) : nil)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        return HTTPClient.shared.execute(request: request, deadline: .now() + .seconds(60)).map { response in
            var headers = HTTPHeaders()
            if let type = response.headers.first(name: "Content-Type") { headers.add(name: "Content-Type", value: type) }
            return (response.status, headers, response.body ?? ByteBuffer())
        }
    }

    /// Apple's error dictionary.
    private static func error(_ status: HTTPResponseStatus, code: String, reason: String, redirectURL: String? = nil) -> Answer {
        var object: [String: String] = ["uuid": UUID().uuidString, "serverErrorCode": code, "reason": reason]
        if let redirectURL { object["redirectURL"] = redirectURL }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return (status, ["Content-Type": "application/json"], ByteBuffer(bytes: data))
    }

    /// A query string's parameters, decoded as a form is (`+` a space, `%XX` a byte): a token
    /// whose `+` was not encoded comes out changed, as at Apple.
    static func parameters(_ query: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            parameters[decoded(parts[0])] = parts.count == 2 ? decoded(parts[1]) : ""
        }
        return parameters
    }
}

/// Why the double could not start.
public struct AppleCloudKitError: Error, CustomStringConvertible {
    public let description: String
}

/// Reads each request of a connection to the double (its head and body) and writes the
/// double's answer once it is made, on the connection's event loop.
private final class DoubleHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let link: AppleCloudKit.Link
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(link: AppleCloudKit.Link) {
        self.link = link
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            self.head = nil
            let loop = context.eventLoop
            let bound = NIOLoopBound((context: context, handler: self), eventLoop: loop)
            let answer = link.value?.answer(head, body: body, on: loop)
                ?? loop.makeSucceededFuture((.serviceUnavailable, HTTPHeaders(), ByteBuffer()))
            answer.hop(to: loop).whenComplete { result in
                let answer = (try? result.get()) ?? (.badGateway, HTTPHeaders(), ByteBuffer())
                bound.value.handler.write(answer, for: head, context: bound.value.context)
            }
        }
    }

    private func write(_ answer: AppleCloudKit.Answer, for head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = answer.headers
        headers.replaceOrAdd(name: "Content-Length", value: String(answer.body.readableBytes))
        if !head.isKeepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: answer.status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
        let channel = context.channel
        let keepAlive = head.isKeepAlive
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
