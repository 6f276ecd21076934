import CloudHTTPClient
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import ProcessTestSupport
import RemoteTestSupport
import Testing

/// `WebAuthCallback` and `WebServicesDatabase.signInPage`, the two ends of a sign-in through
/// Apple's page, against `AppleCloudKit`: the page a request without a user names, its
/// redirect to the callback on this machine, and the token that arrives there signing the
/// client in.
@Suite struct WebAuthCallbackTests {
    /// `GET target` (a path, or a whole http://127.0.0.1 URL) on `port`; the whole answer.
    static func get(_ target: String, port: Int) async throws -> String {
        try await OwnThread.run {
            try LoopbackSocket.exchange(port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", waitingAtMost: 20)
        }
    }

    @Test func theSignInPagesRedirectBringsATokenThatSignsTheClientIn() async throws {
        let clock = ManualClock(start: TestTime.start)
        let served = try await ServedRemote(
            store: try SimulatedCloud.inMemory(clock: clock.wallClock).store, account: "alice", maximumRecordsPerRequest: 200, clock: clock.wallClock)
        let callback = try await WebAuthCallback.listen(port: 0)
        let apple = try await AppleCloudKit(
            backend: served.endpoint.server, backendToken: served.token, callback: URL(string: "http://127.0.0.1:\(callback.port)/")!,
            clock: clock.wallClock)
        let endpoint = WebServicesDatabase.Endpoint(server: apple.url, container: ServedRemote.container, apiToken: apple.apiToken)
        let page = try await WebServicesDatabase(endpoint: endpoint, accountName: "alice", token: nil).signInPage()
        #expect(page.absoluteString == apple.url.absoluteString + "/signin")

        // The browser: the page, its redirect, the callback.
        let signedIn = try await Self.get(page.path, port: apple.url.port!)
        let location = try #require(signedIn.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location: ") }?.dropFirst(10))
        let url = try #require(URL(string: String(location)))
        let answer = try await Self.get(url.path + "?" + (url.query(percentEncoded: true) ?? ""), port: callback.port)
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("You can close this tab"))

        let token = await callback.token()
        await callback.close()
        #expect(token.hasPrefix("11_") && token.contains("+") && token.contains("/") && token.hasSuffix("="), "decoded: \(token)")
        try await WebServicesDatabase(endpoint: endpoint, accountName: "alice", token: token).checkSignIn()
    }

    @Test func aRequestWithoutATokenGets404AndTheWaitGoesOn() async throws {
        let callback = try await WebAuthCallback.listen(port: 0)
        let favicon = try await Self.get("/favicon.ico", port: callback.port)
        #expect(favicon.hasPrefix("HTTP/1.1 404"))
        let empty = try await Self.get("/?ckWebAuthToken=", port: callback.port)
        #expect(empty.hasPrefix("HTTP/1.1 404"))
        let answer = try await Self.get("/?state=1&ckWebAuthToken=ab%2Bc%2Fd%3D", port: callback.port)
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(await callback.token() == "ab+c/d=")
        await callback.close()
    }

    @Test func aPortInUseFailsAtOnce() async throws {
        let first = try await WebAuthCallback.listen(port: 0)
        await #expect(throws: (any Error).self) { _ = try await WebAuthCallback.listen(port: first.port) }
        await first.close()
    }

    @Test func signInPageWithoutOrWithAWrongAPIToken() async throws {
        let clock = ManualClock(start: TestTime.start)
        let served = try await ServedRemote(
            store: try SimulatedCloud.inMemory(clock: clock.wallClock).store, account: "alice", maximumRecordsPerRequest: 200, clock: clock.wallClock)
        let apple = try await AppleCloudKit(
            backend: served.endpoint.server, backendToken: served.token, callback: URL(string: "http://127.0.0.1:8421/")!, clock: clock.wallClock)
        let none = WebServicesDatabase(endpoint: .init(server: apple.url, container: ServedRemote.container), accountName: "", token: nil)
        #expect(await cloudError { try await none.signInPage() } == .notAuthenticated)
        let wrong = WebServicesDatabase(
            endpoint: .init(server: apple.url, container: ServedRemote.container, apiToken: String(repeating: "0", count: 64)),
            accountName: "", token: nil)
        #expect(await cloudError { try await wrong.signInPage() } == .tokenRefused)
    }
}
