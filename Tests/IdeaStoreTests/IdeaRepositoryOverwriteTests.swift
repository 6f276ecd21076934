import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// An overwrite of the remote as the store keeps it (`IdeaRepository+Overwrite`): begun,
/// finished, or taken back, so that an overwrite that failed is never carried out later.
@Suite struct IdeaRepositoryOverwriteTests {
    private static let remoteOnly = uuid("00000000-0000-0000-0000-0000000000aa")

    /// Everything an overwrite touches: each idea and delete with its stamps, the outbox and
    /// the remote's tags.
    private struct State: Equatable {
        var ideas: [RemoteChange]
        var outbox: [OutboxEntry]
        var tags: [String]
    }

    private func state(of store: StoreFixture) throws -> State {
        var ideas: [RemoteChange] = []
        try store.repository.forEachSyncState { ideas.append($0) }
        let tags = try store.database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT ideaId || ' ' || tag FROM remoteTag ORDER BY ideaId")
        }
        return State(ideas: ideas.sorted { $0.ideaId.uuidString < $1.ideaId.uuidString }, outbox: try store.outbox(), tags: tags)
    }

    /// A device with an idea the remote has (sent, tagged), one waiting to be sent, and a
    /// delete the remote has.
    private func device() throws -> (StoreFixture, synced: Idea, pending: Idea) {
        let store = try StoreFixture()
        let synced = try store.repository.addIdea(title: "synced")
        let deleted = try store.repository.addIdea(title: "deleted")
        _ = try store.repository.deleteIdea(id: deleted.id)
        try store.repository.acknowledge(
            try store.repository.pendingChanges(limit: 10), tags: [synced.id: "tag-1", deleted.id: "tag-2"],
            syncedAt: store.clock.now)
        store.clock.advance(by: 1000)
        let pending = try store.repository.addIdea(title: "pending")
        store.clock.advance(by: 1000)
        return (store, synced, pending)
    }

    @Test func aBegunOverwriteTakenBackLeavesEverythingAsItWas() throws {
        let (store, synced, _) = try device()
        let before = try state(of: store)
        try store.repository.beginOverwrite(
            remoteTags: [synced.id: "tag-9", Self.remoteOnly: "tag-3"], deleting: [Self.remoteOnly])
        let begun = try state(of: store)
        #expect(begun.outbox.count == 4, "every idea and delete here, and the remote's own idea, queued")
        #expect(begun.ideas != before.ideas)
        #expect(try store.repository.overwriteIsPending())

        #expect(try store.repository.abandonOverwrite())
        #expect(try state(of: store) == before)
        #expect(try store.repository.overwriteIsPending() == false)
        #expect(try store.repository.abandonOverwrite() == false, "nothing left to take back")
    }

    @Test func whatWasSentStaysAndOnlyTheRestIsTakenBack() throws {
        let (store, synced, pending) = try device()
        let before = try state(of: store)
        try store.repository.beginOverwrite(remoteTags: [synced.id: "tag-1"], deleting: [])
        let sent = try #require(try store.repository.pendingChanges(limit: 10).first { $0.ideaId == synced.id })
        try store.repository.acknowledge([sent], tags: [synced.id: "tag-10"], syncedAt: store.clock.now)

        try store.repository.abandonOverwrite()
        let after = try state(of: store)
        #expect(after.outbox == before.outbox, "only what was waiting before waits now")
        #expect(stamps(of: synced.id, in: after) == sentStamps(of: sent), "the remote holds the overwrite's version")
        #expect(after.ideas.first { $0.ideaId == pending.id } == before.ideas.first { $0.ideaId == pending.id })
        #expect(after.tags.contains("\(synced.id.lowercasedString) tag-10"))
    }

    @Test func anEditMadeAfterTheOverwriteKeepsItsStampAndStaysQueued() throws {
        let (store, synced, _) = try device()
        try store.repository.beginOverwrite(remoteTags: [:], deleting: [])
        store.clock.advance(by: 1000)
        let edited = try store.repository.editIdea(id: synced.id, IdeaChanges(title: "edited after"))

        try store.repository.abandonOverwrite()
        var stamps: FieldStamps?
        try store.repository.forEachSyncState { if case let .saved(idea, fieldStamps) = $0, idea.id == synced.id { stamps = fieldStamps } }
        let kept = try #require(stamps)
        #expect(kept[.title] == SyncOrder(edited), "the edit's own stamp")
        #expect(kept[.description] == SyncOrder(synced), "the overwrite's stamp taken back")
        #expect(try store.outbox().contains { $0.ideaId == synced.id.lowercasedString && $0.enqueuedAt == edited.updatedAt })
    }

    @Test func aFinishedOverwriteIsNeverTakenBack() throws {
        let (store, synced, _) = try device()
        try store.repository.beginOverwrite(remoteTags: [:], deleting: [])
        let begun = try state(of: store)
        try store.repository.finishOverwrite()
        #expect(try store.repository.abandonOverwrite() == false)
        #expect(try state(of: store) == begun)
        #expect(try store.repository.idea(id: synced.id)?.version == synced.version + 1)
    }

    /// The field stamps a sent change carried.
    private func sentStamps(of change: PendingChange) -> FieldStamps? {
        guard case let .save(_, stamps) = change.payload else { return nil }
        return stamps
    }

    /// The field stamps of idea `id` in `state`.
    private func stamps(of id: UUID, in state: State) -> FieldStamps? {
        guard case let .saved(_, stamps)? = state.ideas.first(where: { $0.ideaId == id }) else { return nil }
        return stamps
    }
}
