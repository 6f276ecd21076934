import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// Edits of many ideas at once (a selection in the app): one transaction each, and their
/// undo all or nothing.
@Suite struct IdeaRepositoryBatchTests {
    @Test func setCompletedForManyIsOneChangeAndSkipsThoseAlreadyThere() throws {
        let store = try StoreFixture()
        let a = try store.repository.addIdea(title: "a")
        let b = try store.repository.addIdea(title: "b", isCompleted: true)
        let c = try store.repository.addIdea(title: "c")
        let revision = try store.repository.revision()
        let changed = try store.repository.setCompleted(true, ids: [a.id, b.id, c.id])
        #expect(try store.repository.revision() == revision + 1, "one transaction")
        #expect(changed.map(\.previous.title) == ["a", "c"])
        #expect(changed.allSatisfy { $0.idea.isCompleted && $0.idea.version == 1 })
        #expect(try store.repository.counts().completed == 3)
        #expect(try store.outbox().count == 3)
    }

    @Test func deleteIdeasLeavesATombstoneForEachInOneTransaction() throws {
        let store = try StoreFixture()
        let ideas = try (0..<3).map { try store.repository.addIdea(title: "idea \($0)") }
        let revision = try store.repository.revision()
        let deleted = try store.repository.deleteIdeas(ids: ideas.map(\.id))
        #expect(deleted.map(\.id) == ideas.map(\.id))
        #expect(try store.repository.revision() == revision + 1)
        #expect(try store.repository.counts().all == 0)
        #expect(try store.tombstones().count == 3)
    }

    @Test func aMissingIdeaInABatchChangesNothing() throws {
        let store = try StoreFixture()
        let a = try store.repository.addIdea(title: "a")
        #expect(throws: (any Error).self) { try store.repository.deleteIdeas(ids: [a.id, UUID()]) }
        #expect(try store.repository.counts().all == 1)
    }

    @Test func revertAllIsAllOrNothing() throws {
        let store = try StoreFixture()
        let ideas = try (0..<3).map { try store.repository.addIdea(title: "idea \($0)") }
        let deleted = try store.repository.deleteIdeas(ids: ideas.map(\.id))
        let restored = try store.repository.revertAll(deleted.map { .restore($0) }, reason: .undone)
        guard case .reverted = restored else { Issue.record("restored: \(restored)"); return }
        #expect(try store.repository.counts().all == 3)
        // One is edited elsewhere: deleting the three as they were (a redo) is refused whole.
        _ = try store.repository.editIdea(id: ideas[1].id, IdeaChanges(title: "changed"))
        let outcome = try store.repository.revertAll(ideas.map { .delete($0) }, reason: .redone)
        #expect(outcome == .changedElsewhere([.title]))
        #expect(try store.repository.counts().all == 3, "none deleted")
    }
}
