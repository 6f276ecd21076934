import Foundation
import IdeaModel
import IdeaStore
import IdeaSync
import Testing

/// The history of each idea (every value it had here and no longer has), restoring a
/// version as a new edit, and undo or redo as an edit against the present.
@Suite struct IdeaRepositoryHistoryTests {
    private static let laptop = "7c1e9a40-laptop"

    @Test func anEditKeepsTheVersionItReplacedAndOnlyChangedFieldsGetNewStamps() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "Plan", description: "notes")
        store.clock.advance(by: 1000)
        let edited = try store.repository.editIdea(id: idea.id, IdeaChanges(title: "Plan the trip"))
        let versions = try store.repository.history(of: idea.id)
        #expect(versions.map(\.number?.description) == [nil, "1"])
        #expect(versions[0].title == "Plan the trip" && versions[0].writtenAt == edited.updatedAt)
        #expect(versions[1].title == "Plan" && versions[1].reason == .edited && versions[1].fields == [.title])
        var stamps: FieldStamps?
        try store.repository.forEachSyncState { if case let .saved(stored, s) = $0, stored.id == idea.id { stamps = s } }
        #expect(stamps?.title == SyncOrder(edited) && stamps?.description == SyncOrder(idea))
    }

    @Test func aRestoreIsANewEditAndBringsADeletedIdeaBack() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "first words")
        store.clock.advance(by: 1000)
        _ = try store.repository.editIdea(id: idea.id, IdeaChanges(title: "second words"))
        let first = try #require(try store.repository.history(of: idea.id).last?.number)
        store.clock.advance(by: 1000)
        let restored = try store.repository.restoreVersion(first, of: idea.id)
        #expect(restored.title == "first words" && restored.updatedAt == store.clock.now && restored.version == 2)
        #expect(try store.repository.history(of: idea.id).dropFirst().first?.reason == .restored)

        store.clock.advance(by: 1000)
        _ = try store.repository.deleteIdea(id: idea.id)
        let versions = try store.repository.history(of: idea.id)
        #expect(versions.first?.isDeleted == true && versions.dropFirst().first?.reason == .deleted)
        #expect(try store.repository.ideaIdWithHistory(matching: String(idea.idString.prefix(6))) == idea.id)
        let back = try store.repository.restoreVersion(try #require(versions.last?.number), of: idea.id)
        #expect(back.title == "first words" && back.createdAt == idea.createdAt)
        #expect(try store.tombstones().isEmpty)
        #expect(throws: IdeaStoreError.unknownVersion(id: idea.idString, version: 999)) {
            try store.repository.restoreVersion(999, of: idea.id)
        }
    }

    @Test func everyVersionOfTheLast30DaysAndAtLeast50AreKept() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "v0")
        for number in 1...80 {
            store.clock.advance(by: 60_000)
            _ = try store.repository.editIdea(id: idea.id, IdeaChanges(title: "v\(number)"))
        }
        #expect(try store.repository.history(of: idea.id).count == 81, "all 80 within 30 days, and the current one")
        store.clock.advance(by: 31 * 86_400_000)
        _ = try store.repository.editIdea(id: idea.id, IdeaChanges(title: "much later"))
        let kept = try store.repository.history(of: idea.id)
        #expect(kept.count == 1 + IdeaRepository.historyVersionsKept)
        #expect(kept.last?.title == "v31" && kept.dropFirst().first?.title == "v80")
    }

    @Test func aValueThatLostAMergeIsKeptOnTheDeviceWhereItLost() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "mine")
        var theirs = idea
        theirs.title = "theirs"
        theirs.updatedAt = idea.updatedAt.adding(milliseconds: 5000)
        theirs.deviceId = Self.laptop
        _ = try store.repository.applyRemoteChanges(
            [.saved(theirs, FieldStamps(all: SyncOrder(theirs)))], changeToken: .keep, syncedAt: store.clock.now,
            rule: ConflictRule.decide)
        let versions = try store.repository.history(of: idea.id)
        #expect(versions.map(\.title) == ["theirs", "mine"])
        #expect(versions.last?.reason == .lost && versions.last?.fields == [.title])
        #expect(try store.repository.conflicts().first?.fields == [.title: .remote])
    }

    /// Both devices renamed the idea; this one alone marked it done, the laptop alone wrote
    /// the description. Only the title met a rival: the history says "lost a merge" of the
    /// title alone, on the side whose title lost, and the conflict log names the same field.
    /// (It once said the laptop's version "lost a merge (done)", a flag the laptop never touched.)
    @Test(arguments: [(Int64(9_000), true), (Int64(500), false)])
    func aThreeFieldMergeSaysLostOnlyOfTheFieldThatLost(laptopTitleAfter: Int64, laptopWins: Bool) throws {
        let store = try StoreFixture()
        let created = store.clock.now
        let base = Idea(id: UUID(), title: "Plan", description: "old", createdAt: created, deviceId: Self.laptop)
        _ = try store.repository.applyRemoteChanges(
            [.saved(base, FieldStamps(all: SyncOrder(base)))], changeToken: .keep, syncedAt: created,
            rule: ConflictRule.decide)
        store.clock.advance(by: 1_000)
        _ = try store.repository.editIdea(id: base.id, IdeaChanges(title: "Plan (mine)", isCompleted: true))
        var theirs = base
        theirs.title = "Plan (laptop)"
        theirs.description = "new"
        theirs.updatedAt = created.adding(milliseconds: laptopTitleAfter)
        let theirStamps = FieldStamps(all: SyncOrder(base)).setting([.title, .description], to: SyncOrder(theirs))
        store.clock.advance(by: 10_000)
        _ = try store.repository.applyRemoteChanges(
            [.saved(theirs, theirStamps)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)

        let current = try #require(try store.repository.idea(id: base.id))
        #expect(current.isCompleted && current.description == "new")
        #expect(current.title == (laptopWins ? "Plan (laptop)" : "Plan (mine)"))
        let lost = try store.repository.history(of: base.id).filter { $0.reason == .lost }
        #expect(lost.count == 1)
        #expect(lost.first?.fields == [.title])
        #expect(lost.first?.writtenBy == (laptopWins ? store.repository.deviceId : Self.laptop))
        #expect(lost.first?.title == (laptopWins ? "Plan (mine)" : "Plan (laptop)"))
        let conflicts = try store.repository.conflicts()
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.fields == [.title: laptopWins ? .remote : .local])
    }

    @Test func undoPutsBackOnlyWhatTheActionWroteAndNeverOverANewerEditFromElsewhere() throws {
        let store = try StoreFixture()
        let before = try store.repository.addIdea(title: "draft", description: "notes")
        store.clock.advance(by: 1000)
        let after = try store.repository.editIdea(id: before.id, IdeaChanges(title: "v1"))
        // Another device changes the description: the undo of the title still applies.
        var theirs = after
        theirs.description = "their notes"
        theirs.updatedAt = after.updatedAt.adding(milliseconds: 1000)
        theirs.deviceId = Self.laptop
        var stamps = FieldStamps(all: SyncOrder(before)).setting([.title], to: SyncOrder(after))
        stamps.description = SyncOrder(theirs)
        _ = try store.repository.applyRemoteChanges(
            [.saved(theirs, stamps)], changeToken: .keep, syncedAt: store.clock.now, rule: ConflictRule.decide)
        store.clock.advance(by: 1000)
        let outcome = try store.repository.revert(id: before.id, fields: [.title], from: after, to: before, reason: .undone)
        guard case .reverted(let undone) = outcome else { Issue.record("\(outcome)"); return }
        #expect(undone.title == "draft" && undone.description == "their notes")

        // Then it changes the title: a redo would wipe it, so nothing happens.
        var newer = undone
        newer.title = "v1 v2"
        newer.updatedAt = undone.updatedAt.adding(milliseconds: 1000)
        newer.deviceId = Self.laptop
        _ = try store.repository.applyRemoteChanges(
            [.saved(newer, stamps.setting([.title], to: SyncOrder(newer)))], changeToken: .keep, syncedAt: store.clock.now,
            rule: ConflictRule.decide)
        #expect(try store.repository.revert(id: before.id, fields: [.title], from: before, to: after, reason: .redone)
            == .changedElsewhere([.title]))
        #expect(try store.repository.idea(id: before.id)?.title == "v1 v2")
        #expect(try store.repository.deleteUnlessChanged(before, reason: .undone) == .changedElsewhere([.title, .description]))
    }

    @Test func aDatabaseFromBeforeFieldStampsReadsEveryFieldStampedAtItsUpdatedAt() throws {
        let store = try StoreFixture(seedsSamples: true)
        let idea = try store.repository.addIdea(title: "old row")
        // As the previous version of IdeaBox left its rows: no stamp columns written.
        try store.database.writer.write { db in
            try db.execute(sql: """
                UPDATE idea SET titleAt = NULL, titleBy = NULL, descriptionAt = NULL, descriptionBy = NULL,
                    completedAt = NULL, completedBy = NULL
                """)
        }
        var stamps: [UUID: FieldStamps] = [:]
        try store.repository.forEachSyncState { if case let .saved(stored, s) = $0 { stamps[stored.id] = s } }
        #expect(stamps[idea.id] == FieldStamps(all: SyncOrder(idea)))
        #expect(stamps[SampleIdeas.ids[0]]?.isUntouchedSample == true, "an untouched sample stays one")
        #expect(try store.repository.history(of: idea.id).count == 1)
    }

    /// An older IdeaBox on the same database writes the row but not its stamps: stamps that
    /// no longer fit the row read as every field written at its `updatedAt`.
    @Test func stampsAnOlderIdeaBoxLeftBehindReadAsItsWrite() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "before")
        try store.database.writer.write { db in
            try db.execute(
                sql: "UPDATE idea SET title = 'written by an old build', updatedAt = updatedAt + 5000, deviceId = 'old-build'")
        }
        var stamps: FieldStamps?
        try store.repository.forEachSyncState { if case let .saved(_, s) = $0 { stamps = s } }
        #expect(stamps == FieldStamps(all: SyncOrder(timestamp: idea.updatedAt.adding(milliseconds: 5000), deviceId: "old-build")))
    }
}

