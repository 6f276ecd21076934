import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel
@testable import IdeaStore
import Testing

/// A deleted idea's search entries left in both indexes for later (`SearchText.leaveForLater`):
/// never a hit, taken back by an undo, taken out before a new idea takes the row id, and
/// taken out a few at a time.
@Suite struct SearchLeftEntriesTests {
    /// Every kind of query: a short gram (`茶`, `茶會`), a trigram without a check (`tea`),
    /// and a longer one checked against the text (`workshop`).
    private static let queries = ["茶", "茶會", "tea", "workshop"]

    private static func hits(_ query: String, _ repository: IdeaRepository) throws -> (list: [String], count: Int, capped: Int) {
        (
            try repository.ideas(.search(query), limit: 50).map(\.title),
            try repository.count(.search(query)),
            try repository.count(.search(query), upTo: 10)
        )
    }

    private static func leftCount(_ store: StoreFixture) throws -> Int {
        try store.database.writer.read { db in try SearchText.leftEntryCount(db) }
    }

    private static func localId(of id: UUID, _ store: StoreFixture) throws -> Int64? {
        try store.database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT localId FROM idea WHERE id = ?", arguments: [id.lowercasedString])
        }
    }

    /// How many rows each index holds the trigram `tea` and the character `茶` for (FTS5's
    /// vocabulary tables), left entries included.
    private static func indexedRows(_ store: StoreFixture) throws -> (trigram: Int, shortGram: Int) {
        try indexedRows(store.database.writer)
    }

    static func indexedRows(_ writer: any DatabaseWriter) throws -> (trigram: Int, shortGram: Int) {
        try writer.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE IF NOT EXISTS temp.trigramVocab USING fts5vocab(main, ideaTrigram, row);
                CREATE VIRTUAL TABLE IF NOT EXISTS temp.shortGramVocab USING fts5vocab(main, ideaShortGram, row);
                """)
            return (
                try Int.fetchOne(db, sql: "SELECT doc FROM temp.trigramVocab WHERE term = 'tea'") ?? 0,
                try Int.fetchOne(db, sql: "SELECT doc FROM temp.shortGramVocab WHERE term = ?", arguments: [String(0x8336, radix: 16)]) ?? 0
            )
        }
    }

    @Test func aDeletedIdeasLeftEntriesAreNoHitsForAnyQuery() throws {
        let store = try StoreFixture()
        let kept = try store.repository.addIdea(title: "茶會 tea workshop", description: "kept")
        let gone = try store.repository.addIdea(title: "茶會 tea workshop", description: "deleted")
        _ = try store.repository.addIdea(title: "the newest")
        _ = try store.repository.deleteIdea(id: gone.id)
        #expect(try Self.leftCount(store) == 1)
        #expect(try Self.indexedRows(store) == (2, 2), "the deleted idea's entries are still in both indexes")
        for query in Self.queries {
            let hits = try Self.hits(query, store.repository)
            #expect(hits.list == [kept.title] && hits.count == 1 && hits.capped == 1, "\(query): \(hits)")
        }
    }

    @Test func anUndoTakesTheRowIdAndTheEntriesBack() throws {
        let store = try StoreFixture()
        let ideas = try (0..<3).map { try store.repository.addIdea(title: "茶會 tea workshop \($0)") }
        let before = try ideas.map { try Self.localId(of: $0.id, store) }
        let deleted = try store.repository.deleteIdeas(ids: ideas.map(\.id))
        #expect(try Self.leftCount(store) == 3)
        let outcome = try store.repository.revertAll(deleted.map { .restore($0) }, reason: .undone)
        guard case .reverted = outcome else { Issue.record("undo: \(outcome)"); return }
        #expect(try ideas.map { try Self.localId(of: $0.id, store) } == before)
        #expect(try Self.leftCount(store) == 0)
        #expect(try Self.indexedRows(store) == (3, 3), "each idea is in both indexes once")
        for query in Self.queries {
            #expect(try Self.hits(query, store.repository).count == 3, "\(query)")
        }
    }

    @Test func anIdeaBackWithOtherTextHasItsOldEntriesTakenOut() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "茶會 tea workshop")
        _ = try store.repository.addIdea(title: "the newest")
        let deleted = try store.repository.deleteIdea(id: idea.id)
        var changed = deleted
        changed.title = "咖啡 coffee"
        _ = try store.repository.restoreIdea(changed)
        #expect(try Self.leftCount(store) == 0)
        #expect(try Self.indexedRows(store) == (0, 0))
        for query in Self.queries {
            #expect(try Self.hits(query, store.repository).count == 0, "\(query)")
        }
        #expect(try Self.hits("coffee", store.repository).list == ["咖啡 coffee"])
        #expect(try Self.hits("咖", store.repository).list == ["咖啡 coffee"])
    }

    @Test func aNewIdeaOnADeletedIdeasRowIdHasOnlyItsOwnEntries() throws {
        let store = try StoreFixture()
        _ = try store.repository.addIdea(title: "the oldest")
        let last = try store.repository.addIdea(title: "茶會 tea workshop")
        let rowId = try Self.localId(of: last.id, store)
        _ = try store.repository.deleteIdea(id: last.id)
        let next = try store.repository.addIdea(title: "咖啡 coffee")
        #expect(try Self.localId(of: next.id, store) == rowId, "SQLite gives the freed row id to the next idea")
        #expect(try Self.leftCount(store) == 0)
        #expect(try Self.indexedRows(store) == (0, 0))
        for query in Self.queries {
            #expect(try Self.hits(query, store.repository).count == 0, "\(query)")
        }
        #expect(try Self.hits("coffee", store.repository).list == ["咖啡 coffee"])
    }

    @Test func aNewIdeaAddedDirectlyOnADeletedIdeasRowIdHasOnlyItsOwnEntries() throws {
        try withTemporaryDirectory { directory in
            let clock = ManualClock(start: StoreFixture.start)
            let firstLaunch = IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english)
            var database = try IdeaDatabase.open(directory: directory, firstLaunch: firstLaunch, use: .command)
            var repository = database.repository(clock: clock.wallClock, ids: .random)
            _ = try repository.addIdea(title: "the oldest")
            let last = try repository.addIdea(title: "茶會 tea workshop")
            _ = try repository.deleteIdea(id: last.id)
            try database.close()

            let added = try DirectAdd.addIdea(
                title: "咖啡 coffee", description: "", isCompleted: false, directory: directory, clock: clock.wallClock, ids: .random)
            #expect(added != nil)
            database = try IdeaDatabase.open(directory: directory, firstLaunch: firstLaunch, use: .command)
            defer { try? database.close() }
            repository = database.repository(clock: clock.wallClock, ids: .random)
            #expect(try database.writer.read { db in try SearchText.leftEntryCount(db) } == 0)
            for query in Self.queries {
                #expect(try Self.hits(query, repository).count == 0, "\(query)")
            }
            #expect(try Self.hits("coffee", repository).list == ["咖啡 coffee"])
            #expect(try Self.indexedRows(database.writer) == (0, 0))
        }
    }

    @Test func leftEntriesAreTakenOutAFewAtATime() throws {
        let store = try StoreFixture()
        let ideas = try (0..<5).map { try store.repository.addIdea(title: "茶會 tea workshop \($0)") }
        _ = try store.repository.addIdea(title: "the newest")
        _ = try store.repository.deleteIdeas(ids: ideas.map(\.id))
        let revision = try store.repository.revision()
        #expect(try store.repository.clearLeftSearchEntries(limit: 2), "three left")
        #expect(try store.repository.clearLeftSearchEntries(limit: 2), "one left")
        #expect(try !store.repository.clearLeftSearchEntries(limit: 2), "none left")
        #expect(try !store.repository.clearLeftSearchEntries(limit: 2))
        #expect(try store.repository.revision() == revision, "nothing anyone reads changed")
        #expect(try Self.indexedRows(store) == (0, 0))
        for query in Self.queries {
            #expect(try Self.hits(query, store.repository).count == 0, "\(query)")
        }
    }
}
