import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import ProcessTestSupport
import RemoteTestSupport
import Testing

/// `AppleCloudKit`, the double of Apple's endpoint the iCloud sign-in is tested against,
/// answers as Apple's pages say (`docs/icloud-digest.md` §3): a request is checked for the
/// API token, then for a user's web auth token (421 with the sign-in page without one), the
/// sign-in page redirects to the callback with an encoded token, and each answer hands out a
/// new token.
@Suite struct AppleCloudKitTests {
    let clock = ManualClock(start: TestTime.start)
    let served: ServedRemote
    let apple: AppleCloudKit

    init() async throws {
        let cloud = try SimulatedCloud.inMemory(clock: clock.wallClock)
        served = try await ServedRemote(store: cloud.store, account: "alice", maximumRecordsPerRequest: 200, clock: clock.wallClock)
        apple = try await AppleCloudKit(
            backend: served.endpoint.server, backendToken: served.token, callback: URL(string: "http://127.0.0.1:8421/")!,
            clock: clock.wallClock)
    }

    /// `GET path?query` to the double; the whole answer.
    func get(_ pathAndQuery: String) async throws -> String {
        let port = apple.url.port!
        return try await OwnThread.run {
            try LoopbackSocket.exchange(port: port, "GET \(pathAndQuery) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", waitingAtMost: 20)
        }
    }

    var zonesList: String { "/database/1/\(ServedRemote.container)/production/private/zones/list" }

    @Test func aWrongOrMissingAPITokenIsAuthenticationFailed() async throws {
        for query in ["", "?ckAPIToken=" + String(repeating: "0", count: 64)] {
            let answer = try await get(zonesList + query)
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer)")
            #expect(answer.contains("\"serverErrorCode\":\"AUTHENTICATION_FAILED\""))
        }
    }

    @Test func withoutAUserTheAnswerIs421WithTheSignInPage() async throws {
        let answer = try await get(zonesList + "?ckAPIToken=\(apple.apiToken)")
        #expect(answer.hasPrefix("HTTP/1.1 421"), "\(answer)")
        #expect(answer.contains("\"serverErrorCode\":\"AUTHENTICATION_REQUIRED\""))
        #expect(answer.contains("\"redirectURL\":\"\(apple.url.absoluteString)/signin\"") || answer.contains("\\/signin"), "\(answer)")
    }

    @Test func theSignInPageRedirectsToTheCallbackWithAnEncodedToken() async throws {
        let answer = try await get("/signin")
        #expect(answer.hasPrefix("HTTP/1.1 302"), "\(answer)")
        let location = try #require(answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") })
        #expect(location.contains("http://127.0.0.1:8421/?ckWebAuthToken=11_"))
        let value = String(location.split(separator: "ckWebAuthToken=", maxSplits: 1)[1])
        #expect(!value.contains("+") && !value.contains("/") && !value.contains("="), "encoded: \(value)")
        #expect(value.contains("%2B") && value.contains("%2F") && value.contains("%3D"), "\(value)")
        #expect(apple.signIns == 1)
    }

    @Test func aSignedInRequestReachesTheAccountAndHandsOutANewToken() async throws {
        let token = apple.signIn()
        let answer = try await get(zonesList + "?ckAPIToken=\(apple.apiToken)&ckWebAuthToken=\(AppleCloudKit.encodedToken(token))")
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        #expect(answer.contains("\"zones\""))
        let rotated = try #require(answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-apple-cloudkit-web-auth-token:") })
        #expect(!rotated.contains(token), "a new token, not the one sent")
    }

    @Test func aTokenWhosePlusWasNotEncodedIsNoToken() async throws {
        let token = apple.signIn()
        let answer = try await get(zonesList + "?ckAPIToken=\(apple.apiToken)&ckWebAuthToken=\(token)")
        #expect(answer.hasPrefix("HTTP/1.1 421"), "a + in a query is a space")
    }

    @Test func anExpiredTokenNeedsASignInAgain() async throws {
        let token = AppleCloudKit.encodedToken(apple.signIn())
        clock.advance(by: 31 * 60 * 1000)
        let answer = try await get(zonesList + "?ckAPIToken=\(apple.apiToken)&ckWebAuthToken=\(token)")
        #expect(answer.hasPrefix("HTTP/1.1 421"), "\(answer)")
    }

    @Test func usedTokensExpireWhenTheDoubleIsToldApplesWordHolds() async throws {
        let strict = try await AppleCloudKit(
            backend: served.endpoint.server, backendToken: served.token, callback: URL(string: "http://127.0.0.1:8421/")!,
            clock: clock.wallClock, usedTokensExpire: true)
        let token = AppleCloudKit.encodedToken(strict.signIn())
        let port = strict.url.port!
        let request = "GET \(zonesList)?ckAPIToken=\(strict.apiToken)&ckWebAuthToken=\(token) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        let first = try await OwnThread.run { try LoopbackSocket.exchange(port: port, request, waitingAtMost: 20) }
        let second = try await OwnThread.run { try LoopbackSocket.exchange(port: port, request, waitingAtMost: 20) }
        #expect(first.hasPrefix("HTTP/1.1 200"))
        #expect(second.hasPrefix("HTTP/1.1 421"))
    }
}
