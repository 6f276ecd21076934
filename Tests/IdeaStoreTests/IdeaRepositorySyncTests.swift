import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import Testing

/// The store's side of sync: reading and acknowledging the outbox, and applying the
/// remote's state by last write wins, conflicts logged.
@Suite struct IdeaRepositorySyncTests {
    private static let otherDevice = "ffffffff-other-device"

    private func remoteIdea(
        _ id: String, title: String, at milliseconds: Int64, by deviceId: String = otherDevice, version: Int = 1
    ) -> Idea {
        Idea(
            id: uuid(id), title: title, createdAt: Timestamp(milliseconds: 1_000), updatedAt: Timestamp(milliseconds: milliseconds),
            deviceId: deviceId, version: version)
    }

    // MARK: Record names

    @Test func recordNamesAreRememberedBothWaysReplacedAndForgottenWithTheAccount() throws {
        let store = try StoreFixture()
        let (first, second) = (uuid("00000000-0000-4000-8000-000000000001"), uuid("00000000-0000-4000-8000-000000000002"))
        try store.repository.rememberRecordNames([first: "APP-NAME-1", second: "APP-NAME-2"])
        try store.repository.rememberRecordNames([second: "APP-NAME-2B"])
        #expect(try store.repository.recordNames(of: [first, second, UUID()]) == [first: "APP-NAME-1", second: "APP-NAME-2B"])
        #expect(try store.repository.ideaIds(ofRecordNames: ["APP-NAME-1", "APP-NAME-2", "APP-NAME-2B"]) == [
            "APP-NAME-1": first, "APP-NAME-2B": second,
        ])
        try store.repository.bindAccount("one")
        try store.repository.carryIdeas(to: "another")
        #expect(try store.repository.recordNames(of: [first, second]).isEmpty, "another account's records have names of their own")
    }

    // MARK: Outbox

    @Test func pendingChangesListSavesAndDeletesOldestFirst() throws {
        let store = try StoreFixture()
        let kept = try store.repository.addIdea(title: "kept")
        store.clock.advance(by: 10)
        let gone = try store.repository.addIdea(title: "gone")
        store.clock.advance(by: 10)
        _ = try store.repository.deleteIdea(id: gone.id)

        let pending = try store.repository.pendingChanges(limit: 10)
        #expect(pending.map(\.payload) == [
            .save(kept, FieldStamps(all: SyncOrder(kept))),
            .delete(ideaId: gone.id, order: SyncOrder(timestamp: StoreFixture.start.adding(milliseconds: 20), deviceId: store.database.deviceId)),
        ])
        #expect(try store.repository.pendingChanges(limit: 1).count == 1)
    }

    @Test func pendingChangesAfterOneGoOnInTheOutboxOrder() throws {
        let store = try StoreFixture()
        for number in 1...7 {
            _ = try store.repository.addIdea(title: "idea \(number)")
            // Pairs share a millisecond: their ids settle the order.
            if number.isMultiple(of: 2) { store.clock.advance(by: 5) }
        }
        let all = try store.repository.pendingChanges(limit: 100)
        #expect(all.count == 7)
        var paged: [PendingChange] = []
        while true {
            let page = try store.repository.pendingChanges(after: paged.last, limit: 3)
            if page.isEmpty { break }
            paged += page
        }
        #expect(paged == all)
        #expect(try store.repository.pendingChanges(after: all.last, limit: 3).isEmpty)
    }

    @Test func acknowledgingKeepsAChangeMadeWhileSending() throws {
        let store = try StoreFixture()
        let first = try store.repository.addIdea(title: "first")
        let second = try store.repository.addIdea(title: "second")
        let sent = try store.repository.pendingChanges(limit: 10)
        store.clock.advance(by: 5)
        _ = try store.repository.editIdea(id: second.id, IdeaChanges(title: "second, edited while sending"))

        try store.repository.acknowledge(sent, syncedAt: store.clock.now)

        #expect(try store.outbox().map(\.ideaId) == [second.idString])
        #expect(try store.repository.idea(id: first.id)?.lastSyncedAt == store.clock.now)
        #expect(try store.repository.idea(id: second.id)?.lastSyncedAt == nil)
        #expect(try store.repository.pendingChangeCount() == 1)
    }

    @Test func aChangeIsStaleAfter30DaysUnconfirmedCountedFromItsOldestUnconfirmedEdit() throws {
        let store = try StoreFixture()
        let day: Int64 = 86_400_000
        try store.repository.recordSyncSuccess(at: store.clock.now)
        let idea = try store.repository.addIdea(title: "waiting")
        let sent = try store.repository.pendingChanges(limit: 10)
        store.clock.advance(by: 10 * day)
        _ = try store.repository.editIdea(id: idea.id, IdeaChanges(title: "edited"))
        store.clock.advance(by: 21 * day)
        #expect(try store.repository.staleIdeaIds() == [idea.id], "31 days since the first edit the remote never confirmed")
        // The remote confirms the first version: only the edit of 21 days ago still waits.
        try store.repository.acknowledge(sent, syncedAt: store.clock.now)
        #expect(try store.repository.staleIdeaIds().isEmpty)
        store.clock.advance(by: 9 * day)
        #expect(try store.repository.staleIdeaIds() == [idea.id])
        #expect(try store.repository.pendingChangeCount() == 1)
    }

    /// Ideas imported with old times are changes made now: not a month of changes the remote
    /// never confirmed, on a device that has synced (nor on one that never has).
    @Test func importedOldIdeasAreQueuedAtTheImportsTime() throws {
        let store = try StoreFixture()
        let day: Int64 = 86_400_000
        let old = Idea(
            id: uuid("0ff1ce00-0000-4000-8000-000000000001"), title: "from a backup", createdAt: store.clock.now.adding(milliseconds: -400 * day),
            updatedAt: store.clock.now.adding(milliseconds: -300 * day), deviceId: "old-device")
        _ = try store.repository.importIdeas([old])
        #expect(try store.repository.staleIdeaIds().isEmpty)
        try store.repository.recordSyncSuccess(at: store.clock.now)
        #expect(try store.repository.staleIdeaIds().isEmpty)
        #expect(try store.repository.staleChangeCount() == 0)
        #expect(try store.outbox().map(\.enqueuedAt) == [store.clock.now])
        store.clock.advance(by: 31 * day)
        #expect(try store.repository.staleIdeaIds() == [old.id], "a month unconfirmed from the import on")
        #expect(try store.repository.staleChangeCount() == 1)
    }

    @Test func failedAttemptsAreCounted() throws {
        let store = try StoreFixture()
        _ = try store.repository.addIdea(title: "x")
        let pending = try store.repository.pendingChanges(limit: 10)
        try store.repository.recordFailedAttempt(pending)
        try store.repository.recordFailedAttempt(pending)
        #expect(try store.repository.pendingChanges(limit: 10).map(\.attempts) == [2])
    }

    // MARK: Applying the remote

    @Test func aNewRemoteIdeaIsInsertedAndTheTokenStoredWithIt() throws {
        let store = try StoreFixture()
        let idea = remoteIdea("00000000-0000-0000-0000-0000000000a1", title: "from B", at: 2_000)
        let summary = try store.repository.applyRemoteChanges([.legacy(idea)], changeToken: .set(Data([1, 2, 3])), syncedAt: store.clock.now, rule: ConflictRule.decide)

        #expect(summary == MergeSummary(applied: 1))
        var expected = idea
        expected.lastSyncedAt = store.clock.now
        #expect(try store.repository.idea(id: idea.id) == expected)
        #expect(try store.repository.syncMetadata().changeToken == Data([1, 2, 3]))
        #expect(try store.outbox().isEmpty, "a remote change is not sent back")
        #expect(try store.repository.ideas(.search("from b"), limit: 10).map(\.id) == [idea.id])
    }

    @Test func newerRemoteEditWinsSilentlyOverAPendingLocalEditAndIsLogged() throws {
        let store = try StoreFixture()
        let local = try store.repository.addIdea(title: "mine")
        try store.repository.acknowledge(try store.repository.pendingChanges(limit: 10), syncedAt: store.clock.now)
        store.clock.advance(by: 100)
        let edited = try store.repository.editIdea(id: local.id, IdeaChanges(description: "local edit"))
        var theirs = edited
        theirs.description = "their newer edit"
        theirs.updatedAt = edited.updatedAt.adding(milliseconds: 1)
        theirs.deviceId = Self.otherDevice

        let summary = try store.repository.applyRemoteChanges([.legacy(theirs)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)

        #expect(summary.applied == 1 && summary.conflicts == 1)
        #expect(try store.repository.idea(id: local.id)?.description == "their newer edit")
        #expect(try store.outbox().isEmpty, "the losing local edit is not sent")
        let conflict = try #require(try store.repository.conflicts().first)
        #expect(conflict.resolution == .remote)
        #expect(conflict.local == edited)
        #expect(conflict.remote == theirs)
    }

    @Test func olderRemoteEditLosesAndTheLocalStateIsSent() throws {
        let store = try StoreFixture()
        let local = try store.repository.addIdea(title: "mine")
        store.clock.advance(by: 1000)
        let edited = try store.repository.editIdea(id: local.id, IdeaChanges(title: "mine, newer"))
        var theirs = local
        theirs.title = "older remote"
        theirs.updatedAt = local.updatedAt.adding(milliseconds: 500)
        theirs.deviceId = Self.otherDevice

        let summary = try store.repository.applyRemoteChanges([.legacy(theirs)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)

        // The title stays; the fields the remote stamped later (with the same values) take
        // its stamps, so the merge is sent.
        #expect(summary.applied == 1 && summary.conflicts == 1)
        #expect(try store.repository.idea(id: local.id) == edited)
        #expect(try store.outbox().map(\.operation) == ["save"])
        #expect(try store.repository.conflicts().first?.resolution == .local)
    }

    @Test func equalTimesAreSettledByDeviceIdTheSameWayOnEveryDevice() throws {
        let store = try StoreFixture()
        let local = try store.repository.addIdea(title: "mine")
        var theirs = local
        theirs.title = "theirs"
        theirs.deviceId = String(repeating: "f", count: 40)
        let deviceWins = store.database.deviceId > theirs.deviceId

        _ = try store.repository.applyRemoteChanges([.legacy(theirs)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)

        #expect(try store.repository.idea(id: local.id)?.title == (deviceWins ? "mine" : "theirs"))
        #expect(try store.repository.conflicts().first?.resolution == .tieBreaker)
    }

    @Test func aNewerRemoteDeleteRemovesTheIdeaAndAnOlderEditNeverBringsItBack() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "doomed")
        try store.repository.acknowledge(try store.repository.pendingChanges(limit: 10), syncedAt: store.clock.now)
        let deletion = SyncOrder(timestamp: idea.updatedAt.adding(milliseconds: 50), deviceId: Self.otherDevice)

        _ = try store.repository.applyRemoteChanges([.deleted(ideaId: idea.id, order: deletion)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)
        #expect(try store.repository.idea(id: idea.id) == nil)
        #expect(try store.tombstones().map(\.deletedAt) == [deletion.timestamp])

        var olderEdit = idea
        olderEdit.title = "edited before the delete"
        olderEdit.updatedAt = idea.updatedAt.adding(milliseconds: 10)
        olderEdit.deviceId = "a third device"
        let summary = try store.repository.applyRemoteChanges([.legacy(olderEdit)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)

        #expect(summary.keptLocal == 1)
        #expect(try store.repository.idea(id: idea.id) == nil)
        #expect(try store.outbox().map(\.operation) == ["delete"], "the delete is sent so the remote catches up")
    }

    @Test func anEditNewerThanADeleteRecreatesTheIdea() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "back again")
        let deleted = try store.repository.deleteIdea(id: idea.id)
        try store.repository.acknowledge(try store.repository.pendingChanges(limit: 10), syncedAt: store.clock.now)
        var recreated = deleted
        recreated.updatedAt = store.clock.now.adding(milliseconds: 1000)
        recreated.deviceId = Self.otherDevice

        _ = try store.repository.applyRemoteChanges([.legacy(recreated)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)

        #expect(try store.repository.idea(id: idea.id)?.updatedAt == recreated.updatedAt)
        #expect(try store.tombstones().isEmpty)
    }

    @Test func theRemoteEchoOfOurOwnChangeClearsTheOutbox() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "round trip")
        let summary = try store.repository.applyRemoteChanges([.legacy(idea)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)
        #expect(summary.alreadyKnown == 1 && summary.conflicts == 0)
        #expect(try store.outbox().isEmpty)
        #expect(try store.repository.conflicts().isEmpty)
    }

    @Test func samplesSeededOnTwoDevicesStaySeven() throws {
        let deviceA = try StoreFixture(seedsSamples: true)
        let deviceB = try StoreFixture(seedsSamples: true)
        let fromA = try deviceA.repository.ideas(.all, limit: 100).map(RemoteChange.legacy)

        let summary = try deviceB.repository.applyRemoteChanges(fromA, changeToken: .keep, syncedAt: deviceB.clock.now, rule: ConflictRule.decide)

        #expect(summary.alreadyKnown == 7 && summary.conflicts == 0)
        #expect(try deviceB.repository.count(.all) == 7)
    }

    @Test func aDeviceNeverStampsAnEditEarlierThanARemoteTimeItHasSeen() throws {
        let store = try StoreFixture()
        let future = store.clock.now.adding(milliseconds: 3_600_000)
        let theirs = remoteIdea("00000000-0000-0000-0000-0000000000b2", title: "from a fast clock", at: future.milliseconds)
        _ = try store.repository.applyRemoteChanges([.legacy(theirs)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)

        let edited = try store.repository.editIdea(id: theirs.id, IdeaChanges(title: "edited after seeing it"))

        #expect(edited.updatedAt > future)
        #expect(SyncOrder(edited) > SyncOrder(theirs))
    }
}

extension RemoteChange {
    /// A remote version of `idea` whose every field is stamped at its `updatedAt`, as an
    /// older IdeaBox or a third-party client sends it.
    fileprivate static func legacy(_ idea: Idea) -> RemoteChange {
        .saved(idea, FieldStamps(legacy: idea))
    }
}
