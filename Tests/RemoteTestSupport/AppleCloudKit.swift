import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import IdeaBoxFoundation
import NIOCore
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
    private let serving: Task<Void, any Error>

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
        let port = Mutex<Int?>(nil)
        let ready = Latch()
        let router = Router()
        let handler = Handler()
        router.get("**") { request, _ in try await handler.respond(request) }
        router.post("**") { request, _ in try await handler.respond(request) }
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "AppleCloudKit"),
            onServerRunning: { channel in
                port.withLock { $0 = channel.localAddress?.port }
                ready.open()
            })
        serving = Task { try await application.runService() }
        await ready.opened()
        guard let listening = port.withLock({ $0 }) else { throw AppleCloudKitError(description: "the double did not listen") }
        url = URL(string: "http://127.0.0.1:\(listening)")!
        handler.attach(self)
    }

    deinit {
        serving.cancel()
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

    /// The router's way to the double, set once it is made; weak, so that the double, which
    /// holds the serving task, is released (and stops serving) when its test lets go of it.
    private final class Handler: @unchecked Sendable {
        private let lock = NSLock()
        private weak var double: AppleCloudKit?

        func attach(_ double: AppleCloudKit) {
            lock.withLock { self.double = double }
        }

        func respond(_ request: Request) async throws -> Response {
            guard let double = lock.withLock({ double }) else { return Response(status: .serviceUnavailable) }
            return try await double.respond(request)
        }
    }

    private func respond(_ request: Request) async throws -> Response {
        let rawQuery = request.uri.query ?? ""
        state.withLock { $0.queries.append(rawQuery) }
        if request.uri.path == "/signin" {
            let token = signIn()
            var location = URLComponents(url: callback, resolvingAgainstBaseURL: false)!
            location.percentEncodedQuery = "ckWebAuthToken=" + Self.encodedToken(token)
            return Response(status: .found, headers: [.location: location.string!])
        }
        let query = Self.parameters(rawQuery)
        guard query["ckAPIToken"] == apiToken else {
            return Self.error(.unauthorized, code: Self.authenticationFailed, reason: "no valid API token")
        }
        guard let token = query["ckWebAuthToken"], take(token) else {
            return Self.error(
                HTTPResponse.Status(code: 421, reasonPhrase: "Misdirected Request"), code: Self.authenticationRequired,
                reason: "request needs authorization", redirectURL: url.appendingPathComponent("signin").absoluteString)
        }
        var response = try await forward(request, query: query)
        response.headers[HTTPField.Name(Self.tokenHeader)!] = signIn()
        return response
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
    private func forward(_ request: Request, query: [String: String]) async throws -> Response {
        var components = URLComponents(url: backend, resolvingAgainstBaseURL: false)!
        components.path = request.uri.path
        let items = query.filter { $0.key != "ckAPIToken" && $0.key != "ckWebAuthToken" }.map { URLQueryItem(name: $0.key, value: $0.value) }
        components.queryItems = items.isEmpty ? nil : items
        var outgoing = HTTPClientRequest(url: components.string!)
        outgoing.method = request.method == .post ? .POST : .GET
        outgoing.headers.add(name: "Authorization", value: "Bearer " + backendToken)
        for field in request.headers where [.contentType, HTTPField.Name("X-IdeaBox-Device")!].contains(field.name) {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        let body = try await request.body.collect(upTo: 64 << 20)
        outgoing.body = .bytes(body)
        let answer = try await HTTPClient.shared.execute(outgoing, timeout: .seconds(60))
        let bytes = try await answer.body.collect(upTo: 256 << 20)
        var headers = HTTPFields()
        if let type = answer.headers.first(name: "Content-Type") { headers[.contentType] = type }
        return Response(
            status: HTTPResponse.Status(code: Int(answer.status.code)), headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    /// Apple's error dictionary.
    private static func error(_ status: HTTPResponse.Status, code: String, reason: String, redirectURL: String? = nil) -> Response {
        var object: [String: String] = ["uuid": UUID().uuidString, "serverErrorCode": code, "reason": reason]
        if let redirectURL { object["redirectURL"] = redirectURL }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
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
