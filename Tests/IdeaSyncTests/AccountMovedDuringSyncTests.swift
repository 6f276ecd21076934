import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import RemoteTestSupport
import Synchronization
import Testing

/// A sign-in in another terminal carries the profile's ideas to another account while a
/// sync of the one before is under way (an app open, `sync --watch`): what that sync fetched
/// or had acknowledged belongs to the old account and is not written, so the new account's
/// first pull starts from its beginning and every carried idea stays queued for it.
@Suite struct AccountMovedDuringSyncTests {
    @Test func whatAPullFetchedFromTheAccountBeforeIsNotWritten() async throws {
        let fixture = try SyncFixture()
        let b = try fixture.device("b")
        _ = try b.repository.addIdea(title: "of the account before")
        _ = try await b.session.run()
        let signIn = SignInMidway()
        let a = try fixture.device("a") { SignInMidwayDatabase.over($0, signIn: signIn, during: .fetch) }
        signIn.carry = { try a.repository.carryIdeas(to: "moved") }

        let report = try await a.session.run()

        #expect(report.received == 0)
        #expect(try a.repository.ideas(.all, limit: 10).isEmpty, "the old account's idea is not applied")
        let metadata = try a.repository.syncMetadata()
        #expect(metadata.accountName == "moved" && metadata.changeToken == nil, "no token of the old account")
        #expect(try a.repository.syncLog(limit: 5).contains { $0.event == .accountMovedDuringSync })
    }

    @Test func whatAPushSentToTheAccountBeforeStaysQueuedForTheNewOne() async throws {
        let fixture = try SyncFixture()
        let signIn = SignInMidway()
        let a = try fixture.device("a") { SignInMidwayDatabase.over($0, signIn: signIn, during: .modify) }
        _ = try await a.session.run()
        _ = try a.repository.addIdea(title: "typed as the sign-in ran")
        signIn.carry = { try a.repository.carryIdeas(to: "moved") }

        _ = try await a.session.run()

        #expect(try a.repository.pendingChangeCount() == 1, "the carried idea still waits for the new account")
        #expect(try a.repository.syncMetadata().changeToken == nil)
    }
}

/// What runs once, while a request is under way: the sign-in in the other terminal.
private final class SignInMidway: @unchecked Sendable {
    var carry: () throws -> Void = {}
    private let done = Mutex(false)

    func runOnce() throws {
        guard done.withLock({ was in defer { was = true }; return !was }) else { return }
        try carry()
    }
}

/// A remote whose first fetch or save answers after `signIn` ran.
private enum SignInMidwayDatabase {
    enum Request { case fetch, modify }

    static func over(_ base: any CloudDatabase, signIn: SignInMidway, during request: Request) -> HookedDatabase {
        HookedDatabase(base, after: { call in
            switch (call, request) {
            case (.modify, .modify), (.fetchChanges, .fetch): try signIn.runOnce()
            default: break
            }
        })
    }
}
