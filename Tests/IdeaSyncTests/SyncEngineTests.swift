import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaStore
import IdeaSync
import RemoteTestSupport
import Synchronization
import Testing

/// The sync loop: triggers, retries and status, on a stepped scheduler.
@Suite struct SyncEngineTests {
    @Test func anIdeaAddedOnADeviceReachesAnotherWithoutAnyKey() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let b = try fixture.device("b")
        a.engine.start()
        b.engine.start()
        await fixture.scheduler.advance(by: 10)

        let idea = try a.repository.addIdea(title: "參加 iOS 開發工作坊")
        a.engine.localChangeHappened()
        await fixture.scheduler.advance(by: 0)
        #expect(try a.repository.pendingChangeCount() == 0)
        await fixture.scheduler.advance(by: SyncEngine.periodicMilliseconds)

        #expect(try b.ideas().map(\.title) == ["參加 iOS 開發工作坊"])
        #expect(try b.ideas().first?.id == idea.id)
        guard case .synced = a.engine.status else {
            Issue.record("expected synced, got \(a.engine.status)")
            return
        }
    }

    /// Local mode looks every two seconds without a word: signed out for 20 s is one status,
    /// not ten (the bar never flickers to "Syncing", `sync --watch` prints one line); a sign-in
    /// made meanwhile is noticed by the next look.
    @Test func localModeLooksQuietlyAndNoticesASignIn() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let statuses = Mutex<[SyncStatus.Kind]>([])
        let engine = SyncEngine(session: a.session, scheduler: fixture.scheduler, onStatus: { status in
            statuses.withLock { $0.append(status.kind) }
        })
        try fixture.cloud.network.signOut(device: "a")
        engine.start()
        await fixture.scheduler.advance(by: 20_000)
        #expect(statuses.withLock { $0 } == [.syncing, .notSignedIn])
        try fixture.cloud.network.signIn(device: "a", account: "default")
        await fixture.scheduler.advance(by: SyncEngine.localModeMilliseconds)
        #expect(statuses.withLock { $0 } == [.syncing, .notSignedIn, .synced])
        engine.stop()
    }

    /// A token the server refuses is its own state, local mode until a new sign-in.
    @Test func aRefusedTokenIsSignedOutByTheServer() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        try fixture.cloud.network.scriptErrors([ScriptedError(CloudError.tokenRefused)], device: "a")
        a.engine.start()
        await fixture.scheduler.runDue()
        #expect(a.engine.status == .signedOutByServer)
        #expect(!a.engine.status.canSync)
        await fixture.scheduler.advance(by: SyncEngine.localModeMilliseconds)
        guard case .synced = a.engine.status else { Issue.record("\(a.engine.status)"); return }
        a.engine.stop()
    }

    @Test func retriesWaitOneTwoThenFourSecondsThenMoreSlowlyUpToThirtySeconds() throws {
        #expect((1...8).map(SyncEngine.retryDelay(afterFailure:)) == [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000])
    }

    @Test func aServersRetryAfterIsKeptWithinAnHourAndNeverTraps() {
        #expect(SyncEngine.milliseconds(2.5) == 2500)
        #expect(SyncEngine.milliseconds(-1) == 0)
        #expect(SyncEngine.milliseconds(1e300) == 3_600_000)
        #expect(SyncEngine.milliseconds(.infinity) == 3_600_000)
        #expect(SyncEngine.milliseconds(.nan) == 3_600_000)
    }

    @Test func afterThreeRetriesSyncSaysWhenItTriesNextAndNoticesAHealedRemoteWithinThirtySeconds() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        try fixture.cloud.network.scriptErrors(Array(repeating: ScriptedError(CloudError.serviceUnavailable(retryAfter: nil)), count: 6), device: "a")
        _ = try a.repository.addIdea(title: "waits")
        a.engine.start()
        await fixture.scheduler.runDue()
        for delay: Int64 in [1000, 2000, 4000, 8000] {
            await fixture.scheduler.advance(by: delay)
        }
        guard case .failed(_, let retryAt) = a.engine.status else { Issue.record("\(a.engine.status)"); return }
        #expect(retryAt == fixture.scheduler.now.adding(milliseconds: 16_000))
        await fixture.scheduler.advance(by: 16_000)
        guard case .failed(_, let next) = a.engine.status else { Issue.record("\(a.engine.status)"); return }
        #expect(next == fixture.scheduler.now.adding(milliseconds: 30_000))
        await fixture.scheduler.advance(by: 30_000)
        guard case .synced = a.engine.status else { Issue.record("the healed remote was not noticed: \(a.engine.status)"); return }
        #expect(try a.repository.pendingChangeCount() == 0)
    }

    /// Issue 58: a server whose database is down answers 503 with a short retry-after; the
    /// engine waits that, try after try, never climbing to 16 or 30 s, so the change waiting
    /// goes out within it of the database's return.
    @Test func aServerDatabaseDownIsRetriedAfterItsRetryAfterNotABackoffThatClimbs() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let down = CloudError.serverDatabaseUnavailable(retryAfter: 2)
        try fixture.cloud.network.scriptErrors(Array(repeating: ScriptedError(down), count: 6), device: "a")
        _ = try a.repository.addIdea(title: "saved while the server's database is down")
        a.engine.start()
        await fixture.scheduler.runDue()
        for attempt in 1...6 {
            switch a.engine.status {
            case let .retrying(_, retryAt, .transient(error)), let .failed(.transient(error), retryAt):
                #expect(error == down)
                #expect(retryAt == fixture.scheduler.now.adding(milliseconds: 2000), "try \(attempt)")
            default:
                Issue.record("try \(attempt): \(a.engine.status)")
            }
            await fixture.scheduler.advance(by: 1999)
            #expect(try a.repository.pendingChangeCount() == 1)
            await fixture.scheduler.advance(by: 1)
        }
        guard case .synced = a.engine.status else { Issue.record("not sent 2 s after the database's return: \(a.engine.status)"); return }
        #expect(try a.repository.pendingChangeCount() == 0)
    }

    @Test func retriesWaitOneTwoThenFourSecondsThenAManualSyncTriesAtOnce() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        try fixture.cloud.network.scriptErrors(Array(repeating: ScriptedError(CloudError.serviceUnavailable(retryAfter: nil)), count: 4), device: "a")
        _ = try a.repository.addIdea(title: "waits")
        a.engine.start()
        await fixture.scheduler.runDue()
        guard case .retrying(1, let retryAt, _) = a.engine.status else {
            Issue.record("expected the first retry, got \(a.engine.status)")
            return
        }
        #expect(retryAt == fixture.scheduler.now.adding(milliseconds: 1000))
        await fixture.scheduler.advance(by: 1000)
        guard case .retrying(2, _, _) = a.engine.status else { Issue.record("\(a.engine.status)"); return }
        await fixture.scheduler.advance(by: 2000)
        guard case .retrying(3, _, _) = a.engine.status else { Issue.record("\(a.engine.status)"); return }
        await fixture.scheduler.advance(by: 4000)
        guard case .failed = a.engine.status else { Issue.record("\(a.engine.status)"); return }
        #expect(try a.repository.pendingChangeCount() == 1, "nothing is dropped")

        a.engine.syncNow()
        await fixture.scheduler.runDue()
        guard case .synced = a.engine.status else { Issue.record("\(a.engine.status)"); return }
        #expect(try a.repository.pendingChangeCount() == 0)
    }

    @Test func aCompanionRunsAfterEachSyncAndItsNetworkFailuresAreRetried() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let (engine, companion) = await Self.started(a.session, live: false, fixture)
        #expect(companion.runs == 1)
        guard case .synced = engine.status else { Issue.record("\(engine.status)"); return }

        companion.failures.withLock { $0 = [.networkFailure, .networkFailure] }
        await fixture.scheduler.advance(by: SyncEngine.periodicMilliseconds)
        guard case .retrying(1, _, _) = engine.status else { Issue.record("expected a retry, got \(engine.status)"); return }
        await fixture.scheduler.advance(by: 1000)
        guard case .retrying(2, _, _) = engine.status else { Issue.record("\(engine.status)"); return }
        await fixture.scheduler.advance(by: 2000)
        guard case .synced = engine.status else { Issue.record("\(engine.status)"); return }
        #expect(companion.runs == 4)
        engine.stop()
    }

    @Test func aCompanionsPendingChangesShowUntilItSyncsAndItsOverwriteRunsOnTheSyncQueue() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let (engine, companion) = await Self.started(a.session, live: false, fixture)
        #expect(engine.companionsPending.isEmpty)

        companion.pending.withLock { $0 = 3 }
        companion.failures.withLock { $0 = [.networkFailure] }
        await fixture.scheduler.advance(by: SyncEngine.periodicMilliseconds)
        #expect(engine.companionsPending == [CompanionPending(name: "library", count: 3)])
        await fixture.scheduler.advance(by: 1000)
        #expect(engine.companionsPending.isEmpty)

        engine.overwriteRemote(companionNamed: "elsewhere")
        engine.overwriteRemote(companionNamed: "library")
        #expect(companion.overwrites.withLock { $0 } == 0, "nothing runs off the sync queue")
        await fixture.scheduler.runDue()
        #expect(companion.overwrites.withLock { $0 } == 1)
        guard case .synced = engine.status else { Issue.record("\(engine.status)"); return }
        engine.stop()
    }

    // MARK: Notifications

    @Test func aNotificationSyncsOnlyThePartWhoseZoneItNames() async throws {
        let fixture = try SyncFixture()
        let watched = WatchedDatabase(fixture.cloud.database(forDevice: "a"))
        let a = try fixture.device("a", client: { _ in watched })
        let (engine, companion) = await Self.started(a.session, live: true, fixture)
        let (fetches, runs) = (watched.fetchCount, companion.runs)

        engine.changesArrived(in: [RecordZoneID(zoneName: "Ideas")])
        await fixture.scheduler.runDue()
        #expect(watched.fetchCount == fetches + 1 && companion.runs == runs)
        engine.changesArrived(in: [companion.zone])
        await fixture.scheduler.runDue()
        #expect(watched.fetchCount == fetches + 1 && companion.runs == runs + 1)
        engine.changesArrived(in: [RecordZoneID(zoneName: "Ideas"), companion.zone])
        await fixture.scheduler.runDue()
        #expect(watched.fetchCount == fetches + 2 && companion.runs == runs + 2)
        engine.stop()
    }

    @Test func aLocalChangeIsSentAtOnceInOneRequestWithoutAFetchOrTheLibrary() async throws {
        let fixture = try SyncFixture()
        let watched = WatchedDatabase(fixture.cloud.database(forDevice: "a"))
        let a = try fixture.device("a", client: { _ in watched })
        let (engine, companion) = await Self.started(a.session, live: true, fixture)
        let (fetches, runs) = (watched.fetchCount, companion.runs)

        _ = try a.repository.addIdea(title: "sent at once")
        engine.localChangeHappened()
        await fixture.scheduler.advance(by: 0)

        #expect(watched.modifySizes == [1])
        #expect(watched.fetchCount == fetches && companion.runs == runs)
        #expect(try a.repository.pendingChangeCount() == 0)
        #expect(try await fixture.remoteIdeas().map(\.title) == ["sent at once"])
        // A notification that comes before the change is sent makes it a whole sync of the zone.
        _ = try a.repository.addIdea(title: "with a fetch")
        engine.localChangeHappened()
        engine.changesArrived(in: [RecordZoneID(zoneName: "Ideas")])
        await fixture.scheduler.advance(by: 0)
        #expect(watched.modifySizes == [1, 1] && watched.fetchCount == fetches + 1 && companion.runs == runs)
        engine.stop()
    }

    @Test func whileLiveAnIdleEngineFetchesEveryFiveMinutesAndWhilePollingEverySecond() async throws {
        let fixture = try SyncFixture()
        let watched = WatchedDatabase(fixture.cloud.database(forDevice: "a"))
        let a = try fixture.device("a", client: { _ in watched })
        a.engine.deliveryChanged(.live)
        a.engine.start()
        await fixture.scheduler.runDue()
        let fetches = watched.fetchCount
        await fixture.scheduler.advance(by: SyncEngine.safetyMilliseconds - 1)
        #expect(watched.fetchCount == fetches, "an idle live engine asked the remote")
        await fixture.scheduler.advance(by: 1)
        #expect(watched.fetchCount == fetches + 1)

        // A lost poll is looked into at once (issue 59), then every second.
        a.engine.deliveryChanged(.polling)
        await fixture.scheduler.advance(by: SyncEngine.periodicMilliseconds * 3)
        #expect(watched.fetchCount == fetches + 5)
        a.engine.stop()
    }

    @Test func notificationsMoreOftenThanTheSafetyFetchNeverPutItOff() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let (engine, companion) = await Self.started(a.session, live: true, fixture)
        let runs = companion.runs
        for _ in 0..<4 {
            await fixture.scheduler.advance(by: 60_000)
            engine.changesArrived(in: [RecordZoneID(zoneName: "Ideas")])
            await fixture.scheduler.runDue()
        }
        #expect(companion.runs == runs, "an ideas notice ran the library")
        await fixture.scheduler.advance(by: SyncEngine.safetyMilliseconds - 4 * 60_000)
        #expect(companion.runs == runs + 1, "the safety fetch was put off by the notices")
        engine.stop()
    }

    @Test func aSyncOfTheLibraryAloneStillChecksTheAccount() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let (engine, companion) = await Self.started(a.session, live: true, fixture)
        let runs = companion.runs
        try fixture.cloud.network.signIn(device: "a", account: "someone-else")
        engine.changesArrived(in: [companion.zone])
        await fixture.scheduler.runDue()
        #expect(companion.runs == runs, "the library synced into another account")
        guard case .wrongAccount = engine.status else { Issue.record("\(engine.status)"); return }
        engine.stop()
    }

    @Test func whileLiveWhatAnotherProcessQueuedIsSentWithinTheLocalLookWithoutAFetch() async throws {
        let fixture = try SyncFixture()
        let watched = WatchedDatabase(fixture.cloud.database(forDevice: "a"))
        let a = try fixture.device("a", client: { _ in watched })
        a.engine.deliveryChanged(.live)
        a.engine.start()
        await fixture.scheduler.runDue()
        let (fetches, modifies) = (watched.fetchCount, watched.modifySizes)
        // `ideabox add` in another shell: queued, but this engine was not told.
        _ = try a.repository.addIdea(title: "另一個程序加的")
        await fixture.scheduler.advance(by: SyncEngine.localLookMilliseconds)
        #expect(try a.repository.pendingChangeCount() == 0)
        #expect(try await fixture.remoteIdeas().map(\.title) == ["另一個程序加的"])
        #expect(watched.modifySizes == modifies + [1] && watched.fetchCount == fetches, "the queued change was not sent alone, as a local one is")
        a.engine.stop()
    }

    @Test func theIdeasZoneIsCreatedOnceNotOnEverySync() async throws {
        let fixture = try SyncFixture()
        let watched = WatchedDatabase(fixture.cloud.database(forDevice: "a"))
        let a = try fixture.device("a", client: { _ in watched })
        for title in ["one", "two", "three"] {
            _ = try a.repository.addIdea(title: title)
            _ = try await a.session.run()
        }
        #expect(watched.createZoneCount == 1)
        // Deleted on the remote: the next fetch finds it gone and creates it again.
        try await fixture.cloud.database(forDevice: "a").deleteZone(RecordZoneID(zoneName: "Ideas"))
        _ = try await a.session.run()
        #expect(watched.createZoneCount == 2)
        #expect(try await fixture.remoteIdeas().count == 3)
    }

    /// An engine of `session` with a counting companion, started and through its first sync;
    /// `live`: told first that a long poll holds.
    private static func started(_ session: SyncSession, live: Bool, _ fixture: SyncFixture) async -> (SyncEngine, CountingCompanion) {
        let companion = CountingCompanion()
        let engine = SyncEngine(session: session, companions: [companion], scheduler: fixture.scheduler)
        if live { engine.deliveryChanged(.live) }
        engine.start()
        await fixture.scheduler.runDue()
        return (engine, companion)
    }
}

/// A companion that counts its runs and throws the errors queued for it; a successful run
/// sends its pending changes.
private final class CountingCompanion: SyncCompanion {
    let failures = Mutex<[CloudError]>([])
    let pending = Mutex(0)
    let overwrites = Mutex(0)
    private let count = Mutex(0)

    var runs: Int { count.withLock { $0 } }
    var name: String { "library" }
    var zone: RecordZoneID { RecordZoneID(zoneName: "RawLibraryZone") }

    func sync() throws {
        count.withLock { $0 += 1 }
        if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
        pending.withLock { $0 = 0 }
    }

    func pendingCount() -> Int? { pending.withLock { $0 } }

    func overwriteRemote() throws {
        overwrites.withLock { $0 += 1 }
        if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
        pending.withLock { $0 = 0 }
    }
}

/// Issue 59: any answer of the remote heals a failure at once; the backoff spaces the tries
/// only while nothing answers; a sign-in made elsewhere is followed within two seconds.
extension SyncEngineTests {
    /// Nothing listens at the server: the retries climb (1, 2, 4, 8 s) without a word of
    /// `Syncing`; then the long poll gets an answer, and the change waiting goes out at that
    /// very moment, not at the backoff's next step 16 s later, and the listener is told.
    @Test func anAnsweredRequestClearsTheFailureAndAWaitingChangeIsSentAtOnce() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let statuses = Mutex<[SyncStatus]>([])
        let healed = Mutex(0)
        let engine = SyncEngine(
            session: a.session, scheduler: fixture.scheduler, onStatus: { status in statuses.withLock { $0.append(status) } },
            onHealed: { healed.withLock { $0 += 1 } })
        let down = CloudError.serverUnreachable(host: "127.0.0.1:8420", cause: .refused)
        try fixture.cloud.network.scriptErrors(Array(repeating: ScriptedError(down), count: 5), device: "a")
        _ = try a.repository.addIdea(title: "寫在伺服器停機時")
        engine.start()
        await fixture.scheduler.runDue()
        for delay: Int64 in [1000, 2000, 4000, 8000] {
            await fixture.scheduler.advance(by: delay)
        }
        guard case .failed(_, let retryAt) = engine.status else { Issue.record("\(engine.status)"); return }
        #expect(retryAt == fixture.scheduler.now.adding(milliseconds: 16_000), "the backoff still spaces the tries")
        // Only the first try, before anything was known to fail, says it syncs.
        #expect(statuses.withLock { $0 }.filter { $0.kind == .syncing }.count == 1, "\(statuses.withLock { $0 })")

        await fixture.scheduler.advance(by: 3000)
        #expect(try a.repository.pendingChangeCount() == 1)
        let answeredAt = fixture.scheduler.now
        engine.remoteAnswered()
        await fixture.scheduler.runDue()
        #expect(fixture.scheduler.now == answeredAt)
        guard case .synced(let lastSync) = engine.status else { Issue.record("not healed at the answer: \(engine.status)"); return }
        #expect(lastSync == answeredAt)
        #expect(try a.repository.pendingChangeCount() == 0)
        #expect(try await fixture.remoteIdeas().map(\.title) == ["寫在伺服器停機時"])
        #expect(healed.withLock { $0 } == 1)
        #expect(statuses.withLock { $0 }.filter { $0.kind == .syncing }.count == 1, "a retry said Syncing while the server was down")
        engine.stop()
    }

    /// An answer while nothing failed changes nothing: no sync, no heal.
    @Test func anAnswerWhileSyncedAsksForNothing() async throws {
        let fixture = try SyncFixture()
        let watched = WatchedDatabase(fixture.cloud.database(forDevice: "a"))
        let a = try fixture.device("a", client: { _ in watched })
        let healed = Mutex(0)
        let engine = SyncEngine(session: a.session, scheduler: fixture.scheduler, onHealed: { healed.withLock { $0 += 1 } })
        engine.deliveryChanged(.live)
        engine.start()
        await fixture.scheduler.runDue()
        let fetches = watched.fetchCount
        engine.remoteAnswered()
        await fixture.scheduler.advance(by: 10_000)
        #expect(watched.fetchCount == fetches)
        #expect(healed.withLock { $0 } == 0)
        engine.stop()
    }

    /// `s` while a failure is waited out still says it tries.
    @Test func aManualSyncWhileFailingSaysItSyncs() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let statuses = Mutex<[SyncStatus.Kind]>([])
        let engine = SyncEngine(session: a.session, scheduler: fixture.scheduler, onStatus: { status in statuses.withLock { $0.append(status.kind) } })
        try fixture.cloud.network.scriptErrors(Array(repeating: ScriptedError(CloudError.networkFailure), count: 2), device: "a")
        engine.start()
        await fixture.scheduler.runDue()
        engine.syncNow()
        await fixture.scheduler.runDue()
        await fixture.scheduler.advance(by: 1000)
        #expect(statuses.withLock { $0 } == [.syncing, .retrying, .syncing, .retrying, .synced])
        engine.stop()
    }

    /// A live, idle engine asks the remote nothing for five minutes; a sign-in made elsewhere
    /// (the account file's version changes) is followed within a second, here into
    /// another account's ideas.
    @Test func aSignInMadeElsewhereIsFollowedWithinTwoSeconds() async throws {
        let fixture = try SyncFixture()
        let a = try fixture.device("a")
        let signal = Mutex<Int64?>(1)
        a.engine.followAccount { signal.withLock { $0 } }
        a.engine.deliveryChanged(.live)
        a.engine.start()
        await fixture.scheduler.runDue()
        guard case .synced = a.engine.status else { Issue.record("\(a.engine.status)"); return }
        try fixture.cloud.network.signIn(device: "a", account: "someone-else")
        await fixture.scheduler.advance(by: 10_000)
        guard case .synced = a.engine.status else { Issue.record("looked without a reason: \(a.engine.status)"); return }

        signal.withLock { $0 = 2 }
        await fixture.scheduler.advance(by: SyncEngine.accountLookMilliseconds)
        #expect(a.engine.status == .wrongAccount(bound: "default", current: "someone-else"))
        a.engine.stop()
    }
}
