import CloudKitModel
import IdeaSync
import Testing

/// Why a sync failed, in the person's language: no remote error reaches a Chinese screen in
/// English, and a server that can't be reached is named with its host and how.
@Suite struct SyncFailureTests {
    @Test("Every remote error has its own Chinese reason", arguments: CloudError.Code.allCases)
    func everyReasonIsChinese(code: CloudError.Code) {
        let error = CloudError(code: code, retryAfter: 2)
        let chinese = error.reason(in: .traditionalChinese)
        #expect(chinese != error.reason(in: .english))
        #expect(chinese.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) }, "\(chinese)")
        let failure = SyncFailure.transient(error)
        #expect(!failure.message(in: .traditionalChinese).contains(error.description), "\(failure.message(in: .traditionalChinese))")
    }

    @Test("A server that can't be reached is named with its host, each cause in its own words", arguments: UnreachableCause.allCases)
    func unreachableNamesTheHost(cause: UnreachableCause) {
        let error = CloudError.serverUnreachable(host: "ideas.example:8420", cause: cause)
        #expect(error.reason(in: .english).contains("ideas.example:8420"))
        #expect(error.reason(in: .traditionalChinese).contains("ideas.example:8420"))
        let others = UnreachableCause.allCases.filter { $0 != cause }
        #expect(others.allSatisfy { $0.description(host: "h") != cause.description(host: "h") })
    }

    @Test func whatEachRemoteErrorMeansToTheEngine() {
        #expect(SyncFailure.transient(.tokenRefused) != SyncFailure(CloudError.tokenRefused))
        #expect(SyncFailure(CloudError.tokenRefused) == .signedOutByServer)
        #expect(SyncFailure(CloudError.notAuthenticated) == .notSignedIn)
        #expect(SyncFailure(CloudError.serverUnreachable(host: "h", cause: .refused)) == .transient(.serverUnreachable(host: "h", cause: .refused)))
        #expect(SyncFailure(CloudError.zoneBusy(retryAfter: 3)).retryAfter == 3)
    }
}
