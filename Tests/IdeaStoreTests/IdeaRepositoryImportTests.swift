import Foundation
import GRDB
import IdeaModel
@testable import IdeaStore
import Testing

/// How an import sizes the page cache of its one transaction.
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
}
