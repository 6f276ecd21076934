import AccountEncryption
import CloudKitModel
import Foundation
import IdeaSync
import RemoteTestSupport
import Synchronization
import Testing

/// A locked device (encrypted account, no key here) looks for its key without hammering the
/// remote: each look reads the envelope, so they back off from 2 s to 30 s, and an unlock is
/// noticed by the next look or at once by a trigger.
@Suite("A locked device's looks")
struct LockedDeviceTests {
    @Test func looksBackOffFromTwoSecondsToThirty() {
        #expect((1...7).map(SyncEngine.lockedLookDelay(afterLooks:)) == [2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000])
    }

    @Test func aLockedDeviceReadsTheEnvelopeAFewTimesAMinuteNotEveryTwoSeconds() throws {
        let fixture = try SyncFixture()
        let lock = LockingRemote.Lock()
        let a = try fixture.device("a") { LockingRemote.over($0, lock: lock) }
        a.engine.start()
        fixture.scheduler.advance(by: 10)
        #expect(a.engine.status == .locked(keyHeldHere: false))

        fixture.scheduler.advance(by: 300_000)
        // 2, 4, 8, 16, then every 30 s: 13 looks in five minutes, where every 2 s made 150.
        #expect(lock.looks <= 14)
        #expect(a.engine.status == .locked(keyHeldHere: false))

        lock.unlock()
        fixture.scheduler.advance(by: SyncEngine.lockedLookMilliseconds)
        guard case .synced = a.engine.status else {
            Issue.record("expected synced once unlocked, got \(a.engine.status)")
            return
        }
    }

    @Test func anUnlockInAnotherProcessIsNoticedWithinTwoSecondsWithoutTheNetwork() throws {
        let fixture = try SyncFixture()
        let lock = LockingRemote.Lock()
        let keyFileVersion = Mutex<Int64?>(nil)
        let a = try fixture.device("a") { LockingRemote.over($0, lock: lock) }
        a.engine.lookForUnlock { keyFileVersion.withLock { $0 } }
        a.engine.start()
        fixture.scheduler.advance(by: 60_000)
        let looks = lock.looks
        fixture.scheduler.advance(by: 10_000)
        #expect(lock.looks <= looks + 1, "the two-second checks ask nothing of the remote")

        lock.unlock()
        keyFileVersion.withLock { $0 = 1 }
        fixture.scheduler.advance(by: SyncEngine.localModeMilliseconds)
        guard case .synced = a.engine.status else {
            Issue.record("expected synced within two seconds of the unlock, got \(a.engine.status)")
            return
        }
    }

    /// A save while locked is tried at once, but quietly: the bar goes on saying why nothing
    /// is sent, never "Syncing" for a sync that cannot be (a loaded end-to-end run caught the
    /// flash); `s` still shows that it tries.
    @Test func aChangeMadeWhileLockedLeavesTheBarOnWhyNothingIsSent() async throws {
        let fixture = try SyncFixture()
        let lock = LockingRemote.Lock()
        let a = try fixture.device("a") { LockingRemote.over($0, lock: lock) }
        let statuses = Mutex<[SyncStatus]>([])
        let engine = SyncEngine(session: a.session, scheduler: fixture.scheduler, onStatus: { status in
            statuses.withLock { $0.append(status) }
        })
        engine.start()
        fixture.scheduler.advance(by: 10)
        #expect(statuses.withLock { $0 } == [.syncing(pending: 0), .locked(keyHeldHere: false)])

        let looks = lock.looks
        _ = try a.repository.addIdea(title: "寫在鎖定時")
        engine.localChangeHappened()
        fixture.scheduler.advance(by: 10)
        #expect(lock.looks == looks + 1, "the change is tried at once")
        #expect(statuses.withLock { $0 } == [.syncing(pending: 0), .locked(keyHeldHere: false)])
        #expect(try await fixture.remoteRecordCount() == 0)

        engine.syncNow()
        fixture.scheduler.advance(by: 10)
        #expect(statuses.withLock { $0 }.suffix(2) == [.syncing(pending: 1), .locked(keyHeldHere: false)])
        engine.stop()
    }

    @Test func aTriggerLooksAtOnce() throws {
        let fixture = try SyncFixture()
        let lock = LockingRemote.Lock()
        let a = try fixture.device("a") { LockingRemote.over($0, lock: lock) }
        a.engine.start()
        fixture.scheduler.advance(by: 60_000)
        lock.unlock()
        a.engine.syncNow()
        fixture.scheduler.advance(by: 10)
        guard case .synced = a.engine.status else {
            Issue.record("expected synced at once, got \(a.engine.status)")
            return
        }
    }
}

/// A remote whose account is encrypted while `lock` is locked: every look (its account
/// status, the first request of a sync) is counted and throws `AccountLocked`, as
/// `EncryptedDatabase` does for a device without the key.
private enum LockingRemote {
    final class Lock: Sendable {
        private let state = Mutex((locked: true, looks: 0))
        var looks: Int { state.withLock { $0.looks } }
        func unlock() { state.withLock { $0.locked = false } }
        func look() -> Bool {
            state.withLock { state in
                state.looks += 1
                return state.locked
            }
        }
    }

    static func over(_ base: any CloudDatabase, lock: Lock) -> HookedDatabase {
        HookedDatabase(base, before: { call in
            if call == .accountStatus, lock.look() { throw AccountLocked() }
        })
    }
}
