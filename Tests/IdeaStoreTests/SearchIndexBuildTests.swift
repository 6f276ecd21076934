import Foundation
import GRDB
import IdeaModel
@testable import IdeaStore
import Testing

/// A big import into a profile with no idea builds both search indexes beside its rows and
/// copies them in (`SearchIndexBuild`): the indexes hold exactly what indexing one idea at a
/// time would, every later write keeps them whole, and a build that fails leaves the import
/// to index its ideas itself.
@Suite struct SearchIndexBuildTests {
    /// More than `IdeaRepository.bulkImportSize`: a bulk load.
    private static let count = 1_200

    /// Text of every kind the indexes meet: ASCII, Chinese, emoji, a combining mark (which
    /// takes the grapheme path), and a word only some ideas hold.
    private static func ideas(_ count: Int = count) -> [Idea] {
        (0..<count).map { number in
            Idea(
                id: UUID(uuidString: String(format: "abc00000-0000-4000-8000-%012x", number))!,
                title: number % 3 == 0 ? "茶會 Tea workshop \(number)" : "第\(number)個靈感 Idea",
                description: number % 5 == 0 ? "café ☕️ cafe\u{301} \(number)" : "",
                createdAt: StoreFixture.start, deviceId: "other-device")
        }
    }

    private static let queries = ["茶", "茶會", "tea", "workshop", "靈感", "café", "☕️", "12"]

    /// Every (token, row id) of both indexes, left entries included (FTS5's vocabulary tables).
    private static func entries(_ store: StoreFixture) throws -> [String] {
        try store.database.writer.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE IF NOT EXISTS temp.trigramEntries USING fts5vocab(main, ideaTrigram, instance);
                CREATE VIRTUAL TABLE IF NOT EXISTS temp.shortGramEntries USING fts5vocab(main, ideaShortGram, instance);
                """)
            return try ["trigramEntries", "shortGramEntries"].flatMap { table in
                try Row.fetchAll(db, sql: "SELECT term, doc FROM temp.\(table) ORDER BY term, doc").map {
                    "\(table) \($0[0] as String) \($0[1] as Int64)"
                }
            }
        }
    }

    /// Each query's first page of titles and its count.
    private static func answers(_ repository: IdeaRepository) throws -> [String] {
        try queries.map { query in
            let titles = try repository.ideas(.search(query), limit: 50).map(\.title)
            return "\(query): \(try repository.count(.search(query))) \(titles)"
        }
    }

    /// FTS5's own check of both indexes.
    private static func checkIndexes(_ store: StoreFixture) throws {
        try store.database.writer.write { db in
            for table in SearchText.indexTables {
                try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES ('integrity-check')")
            }
        }
    }

    /// The same ideas imported below the bulk size, each indexed as it is added.
    private static func indexedOneAtATime(_ ideas: [Idea] = ideas()) throws -> StoreFixture {
        let store = try StoreFixture()
        let half = ideas.count / 2
        #expect(half < IdeaRepository.bulkImportSize)
        _ = try store.repository.importIdeas(Array(ideas[..<half]))
        _ = try store.repository.importIdeas(Array(ideas[half...]))
        return store
    }

    /// The writes a person makes after an import: an add, an edit of the text, a delete.
    private static func writeAfter(_ repository: IdeaRepository) throws {
        _ = try repository.addIdea(title: "茶會 new tea", description: "☕️")
        _ = try repository.editIdea(id: ideas()[3].id, IdeaChanges(title: "咖啡 coffee workshop"))
        _ = try repository.deleteIdea(id: ideas()[6].id)
    }

    @Test func aBulkImportIndexesAsOneIdeaAtATimeWould() throws {
        let store = try StoreFixture()
        let summary = try store.repository.importIdeas(Self.ideas())
        #expect(summary.inserted == Self.count)
        let expected = try Self.indexedOneAtATime()
        #expect(try Self.entries(store) == Self.entries(expected))
        #expect(try Self.answers(store.repository) == Self.answers(expected.repository))
        #expect(try store.repository.count(.search("茶")) == Self.count / 3)
        try Self.checkIndexes(store)
    }

    @Test func writesAfterABulkImportKeepTheIndexesWhole() throws {
        let store = try StoreFixture()
        _ = try store.repository.importIdeas(Self.ideas())
        let expected = try Self.indexedOneAtATime()
        try Self.writeAfter(store.repository)
        try Self.writeAfter(expected.repository)
        #expect(try Self.entries(store) == Self.entries(expected))
        #expect(try Self.answers(store.repository) == Self.answers(expected.repository))
        #expect(try store.repository.ideas(.search("coffee"), limit: 5).map(\.title) == ["咖啡 coffee workshop"])
        try Self.checkIndexes(store)
    }

    @Test func aBulkImportTakesOutWhatDeletesLeftInTheIndexes() throws {
        let store = try StoreFixture()
        let gone = try store.repository.addIdea(title: "茶會 tea left behind")
        _ = try store.repository.deleteIdea(id: gone.id)
        try store.database.writer.write { db in try db.execute(sql: "DELETE FROM tombstone") }
        #expect(try store.repository.leftSearchEntryCount() == 1, "a delete whose tombstone is gone: the profile holds nothing")
        _ = try store.repository.importIdeas(Self.ideas())
        #expect(try store.repository.leftSearchEntryCount() == 0)
        #expect(try Self.entries(store) == Self.entries(Self.indexedOneAtATime()))
        try Self.checkIndexes(store)
    }

    @Test("A build that can't start or fails part way leaves the import to index its ideas", arguments: [
        "file:/nonexistent-folder/search.sqlite?mode=ro", "read-only",
    ])
    func aFailedBuildIndexesAsBefore(location: String) throws {
        try withTemporaryDirectory { directory in
            let store = try StoreFixture()
            var repository = store.repository
            repository.searchBuildLocation = location == "read-only" ? try Self.readOnlyLocation(in: directory) : location
            #expect(try repository.importIdeas(Self.ideas()).inserted == Self.count)
            let expected = try Self.indexedOneAtATime()
            #expect(try Self.entries(store) == Self.entries(expected))
            #expect(try Self.answers(repository) == Self.answers(expected.repository))
            try Self.checkIndexes(store)
        }
    }

    @Test func anImportIntoAProfileWithIdeasIndexesEachIdeaAsItIsAdded() throws {
        let store = try StoreFixture()
        var repository = store.repository
        // A build would fail: the import must not be taking one.
        repository.searchBuildLocation = "file:/nonexistent-folder/search.sqlite?mode=ro"
        let all = Self.ideas(Self.count + 1)
        _ = try repository.importIdeas([all[0]])
        _ = try repository.importIdeas(Array(all[1...]))
        #expect(try Self.entries(store) == Self.entries(Self.indexedOneAtATime(all)))
    }
}

extension SearchIndexBuildTests {
    /// A temporary database the build can open but not write: it fails on its thread.
    private static func readOnlyLocation(in directory: URL) throws -> String {
        let file = directory.appendingPathComponent("search.sqlite")
        try DatabaseQueue(path: file.path).write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        return "file:\(file.path)?mode=ro"
    }

    /// Which builds fail: none, both, or only the trigram index's, which is copied in after the
    /// short grams' (whose copied entries must go out again).
    enum Failing: CaseIterable { case none, both, trigramAfterShortGrams }

    @Test("The entries are built beside the transaction and go in whole", arguments: Failing.allCases)
    func theBuiltEntriesGoIn(failing: Failing) throws {
        try withTemporaryDirectory { directory in
            let store = try StoreFixture()
            let ideas = Self.ideas().map { ExportedIdea(idea: $0) }
            let readOnly = try Self.readOnlyLocation(in: directory)
            let canBuild = failing == .none
            let copied = try store.database.writer.write { db in
                let build = try #require(try SearchIndexBuild.start(ideas, firstLocalId: 41, declaredBy: db) { table in
                    switch failing {
                    case .none: ""
                    case .both: readOnly
                    case .trigramAfterShortGrams: table == "ideaTrigram" ? readOnly : ""
                    }
                })
                return try build.finish(into: db)
            }
            #expect(copied == canBuild)
            // Without rows, only the built entries can hold `茶`: every third idea's, from row id 41.
            let rows = try store.database.writer.write { db in
                try db.execute(sql: "CREATE VIRTUAL TABLE temp.entries USING fts5vocab(main, ideaShortGram, instance)")
                return try Int64.fetchAll(db, sql: "SELECT doc FROM temp.entries WHERE term = ? ORDER BY doc", arguments: ["8336"])
            }
            #expect(rows == (canBuild ? Array(stride(from: 41, to: 41 + Int64(Self.count), by: 3)) : []))
        }
    }
}
