import Foundation
import GRDB
import IdeaModel
@testable import IdeaStore
import Testing

/// How an import sizes the page cache of its one transaction, and what a bulk load into a
/// profile with no idea leaves behind.
@Suite("IdeaRepository+Import")
struct IdeaRepositoryImportTests {
    @Test("An import's cache is a kibibyte an idea, from a sync page's to a gibibyte", arguments: [
        (1, -32768), (10_000, -32768), (100_000, -100_000), (1_000_000, -1_000_000), (5_000_000, -1_048_576),
    ])
    func cacheSize(ideas: Int, expected: Int) {
        #expect(IdeaRepository.importCacheSize(ideas: ideas) == expected)
    }

    @Test("After an import the connection keeps the cache it had")
    func cacheRestored() throws {
        let store = try StoreFixture()
        let cacheSize = { try store.database.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") } }
        // A command's small cache, other than the import's.
        try store.database.writer.write { db in try db.execute(sql: "PRAGMA cache_size = -2000") }
        let before = try cacheSize()
        let ideas = (1...3).map { number in
            Idea(
                id: UUID(uuidString: "abc00000-0000-4000-8000-00000000000\(number)")!, title: "靈感 \(number)",
                createdAt: StoreFixture.start, deviceId: "other-device")
        }
        #expect(try store.repository.importIdeas(ideas).inserted == 3)
        #expect(before == -2000)
        #expect(try cacheSize() == before)
    }

    /// More than `IdeaRepository.bulkImportSize`, at times, completions and titles in no order
    /// of the ids', all before the clock's start.
    private static let bulk: [Idea] = (0..<1_200).map { number in
        let scrambled = (number * 7_919) % 1_200
        let createdAt = StoreFixture.start.adding(milliseconds: -Int64(scrambled + 1) * 1_000)
        return Idea(
            id: UUID(uuidString: String(format: "abc00000-0000-4000-8000-%012x", scrambled))!,
            title: number % 2 == 0 ? "靈感 \(scrambled)" : "Idea \((number * 31) % 97)",
            isCompleted: number % 3 == 0,
            createdAt: createdAt, updatedAt: createdAt.adding(milliseconds: Int64(number % 1_000)),
            deviceId: "other-device")
    }

    /// Every index's statement, every row and every outbox entry, and SQLite's own check.
    private static func contents(_ store: StoreFixture) throws -> [String] {
        try store.database.writer.read { db in
            let indexes = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_schema WHERE type = 'index' ORDER BY name")
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM idea ORDER BY id")
            let outbox = try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY ideaId")
            let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            return (indexes + rows + outbox).map(\.description) + check
        }
    }

    @Test("A bulk load leaves the rows, their indexes and the outbox as adding fewer at a time would")
    func bulkLoad() throws {
        let store = try StoreFixture()
        #expect(try store.repository.importIdeas(Self.bulk).inserted == Self.bulk.count)
        let expected = try StoreFixture()
        let half = Self.bulk.count / 2
        #expect(half < IdeaRepository.bulkImportSize)
        _ = try expected.repository.importIdeas(Array(Self.bulk[..<half]))
        _ = try expected.repository.importIdeas(Array(Self.bulk[half...]))
        // Row ids differ by nothing: each goes in after the last, in the file's order.
        #expect(try Self.contents(store) == Self.contents(expected))
        #expect(try store.repository.ideas(.all, limit: 3).map(\.id) == expected.repository.ideas(.all, limit: 3).map(\.id))
    }

    @Test("A bulk load that fails part way leaves the profile as it was, indexes and all")
    func bulkLoadFails() throws {
        let store = try StoreFixture()
        let before = try Self.contents(store)
        let last = Self.bulk[Self.bulk.count - 1].idString
        try store.database.writer.write { db in
            try db.execute(sql: """
                CREATE TEMP TRIGGER refuseTheLast BEFORE INSERT ON main.idea WHEN NEW.id = '\(last)'
                BEGIN SELECT RAISE(ABORT, 'refused'); END
                """)
        }
        #expect(throws: (any Error).self) { try store.repository.importIdeas(Self.bulk) }
        #expect(try Self.contents(store) == before)
        try store.database.writer.write { db in try db.execute(sql: "DROP TRIGGER temp.refuseTheLast") }
        #expect(try store.repository.importIdeas(Self.bulk).inserted == Self.bulk.count)
    }
}
