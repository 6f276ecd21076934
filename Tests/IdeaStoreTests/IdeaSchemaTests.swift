import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// Named migrations, and an old database upgrading without losing a row.
@Suite struct IdeaSchemaTests {
    @Test func migrationsAreTheRegisteredOnesInOrder() {
        #expect(IdeaSchema.migrator.migrations == ["v1-ideas", "v2-sync", "v3-search", "v4-remote-state", "v5-search-without-triggers", "v6-outbox-order", "v7-outbox-pending-since", "v8-field-stamps-and-history", "v9-sync-log-events", "v10-list-orders", "v11-search-merges-apart", "v12-overwrite-journal", "v13-device-names", "v14-remote-record-names", "v15-outbox-stale-order", "v16-trigrams-without-positions", "v17-search-entries-left-for-later"])
        #expect(IdeaSchema.Migration.allCases.map(\.rawValue) == IdeaSchema.migrator.migrations)
    }

    @Test func aNewDatabaseHasEveryMigration() throws {
        let store = try StoreFixture()
        let applied = try store.database.writer.read { db in try IdeaSchema.migrator.appliedMigrations(db) }
        #expect(applied == IdeaSchema.migrator.migrations)
        let completed = try store.database.writer.read { db in try IdeaSchema.migrator.hasCompletedMigrations(db) }
        #expect(completed)
    }

    @Test func editsLeaveTheSearchIndexesToBeMergedApart() throws {
        let store = try StoreFixture()
        let automerge = try store.database.writer.read { db in
            try ["ideaTrigram", "ideaShortGram"].map { table in
                try Int.fetchOne(db, sql: "SELECT v FROM \(table)_config WHERE k = 'automerge'")
            }
        }
        #expect(automerge == [0, 0])
    }

    /// The trigram index keeps no positions and no token counts (v16): a fifth of the size.
    @Test func theTrigramIndexKeepsNoPositions() throws {
        let store = try StoreFixture()
        let sql = try store.database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'ideaTrigram'")
        }
        #expect(sql?.contains("detail='none'") == true)
        #expect(sql?.contains("columnsize=0") == true)
        #expect(try store.database.writer.read { db in try db.tableExists("ideaTrigram_docsize") } == false)
    }

    @Test func migratingAgainChangesNothing() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "Survivor 靈感")
        try IdeaSchema.migrator.migrate(store.database.writer)
        #expect(try store.allIdeas() == [idea])
        #expect(try store.repository.search("靈") == [idea])
    }

    /// Ideas as a database of the first schema version held them.
    private static let v1Ideas: [Idea] = {
        var ideas = [
            Idea(
                id: uuid("1dea0001-5a3e-4000-8000-5a3e1dea5a3e"), title: "學習 SwiftData", description: "讀完資料持久化指南",
                createdAt: Timestamp(milliseconds: 1_762_246_800_000), deviceId: "old-device"),
            Idea(
                id: uuid("abc00000-0000-4000-8000-000000000002"), title: "Ärger vermeiden", description: "",
                isCompleted: true, createdAt: Timestamp(milliseconds: 1_762_246_900_000),
                updatedAt: Timestamp(milliseconds: 1_762_247_000_000), deviceId: "old-device", version: 4,
                lastSyncedAt: Timestamp(milliseconds: 1_762_247_000_001)),
            Idea(
                id: uuid("abc00000-0000-4000-8000-000000000003"), title: "Party 🎉", description: "line one\nLINE TWO\t靈感",
                createdAt: Timestamp(milliseconds: -86_400_000), deviceId: "another-device", version: 1),
        ]
        for index in 10..<66 {
            ideas.append(Idea(
                id: uuid("abc00000-0000-4000-8000-0000000000\(index)"), title: "Old idea \(index)",
                description: index.isMultiple(of: 5) ? "靈感 number \(index)" : "",
                isCompleted: index.isMultiple(of: 3), createdAt: Timestamp(milliseconds: 1_700_000_000_000 + Int64(index)),
                deviceId: "old-device", version: index))
        }
        return ideas
    }()

    /// Makes `ideabox.sqlite` in `directory` with the first migration only, and fills it with
    /// raw SQL as that version of IdeaBox wrote it.
    private static func makeVersionOneDatabase(in directory: URL) throws {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("ideabox.sqlite").path)
        try IdeaSchema.migrator.migrate(queue, upTo: IdeaSchema.Migration.ideas.rawValue)
        try queue.write { db in
            #expect(try db.tableExists("idea"))
            #expect(try !db.tableExists("outbox"))
            #expect(try !db.columns(in: "idea").contains { $0.name == "foldedTitle" })
            for idea in v1Ideas {
                try db.execute(
                    sql: """
                        INSERT INTO idea (id, title, description, isCompleted, createdAt, updatedAt, deviceId, version, lastSyncedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        idea.idString, idea.title, idea.description, idea.isCompleted, idea.createdAt.milliseconds,
                        idea.updatedAt.milliseconds, idea.deviceId, idea.version, idea.lastSyncedAt?.milliseconds,
                    ])
            }
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('deviceId', 'v1-device'), ('samples', 'seeded')")
        }
        try queue.close()
    }

    @Test func aVersionOneDatabaseUpgradesWithoutLosingARow() throws {
        try withTemporaryDirectory { directory in
            try Self.makeVersionOneDatabase(in: directory)
            let database = try IdeaDatabase.open(
                directory: directory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: true, language: .english),
                ids: .counting())
            #expect(database.deviceId == "v1-device")
            let applied = try database.writer.read { db in try IdeaSchema.migrator.appliedMigrations(db) }
            #expect(applied == IdeaSchema.migrator.migrations)

            let repository = database.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1000))
            let stored = try repository.ideas(.all, limit: 1000)
            #expect(stored.count == Self.v1Ideas.count, "no row lost, no sample added")
            #expect(Set(stored) == Set(Self.v1Ideas), "every field kept")
            #expect(stored == Self.v1Ideas.sorted { $0.createdAt > $1.createdAt })
            #expect(try repository.counts() == IdeaCounts(all: 59, completed: Self.v1Ideas.filter { $0.isCompleted }.count))
            #expect(try repository.pendingChangeCount() == 0)
        }
    }

    @Test("Upgraded rows are searchable with queries of every length", arguments: [
        "學", "學習", "swiftdata", "SwiftData", "持久化", "ä", "är", "ärger", "🎉", "party 🎉", "line two", "two", "靈", "靈感",
        "number 1", "old idea 5", "old idea 65", "5", "idea", "nowhere",
    ])
    func upgradedRowsAreSearchable(query: String) throws {
        try withTemporaryDirectory { directory in
            try Self.makeVersionOneDatabase(in: directory)
            let database = try IdeaDatabase.open(
                directory: directory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
            let repository = database.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1000))
            let folded = query.lowercased()
            let expected = Self.v1Ideas
                .filter { $0.title.lowercased().contains(folded) || $0.description.lowercased().contains(folded) }
                .sorted { $0.createdAt > $1.createdAt }
            #expect(try repository.ideas(.search(query), limit: 1000) == expected)
            #expect(try repository.count(.search(query)) == expected.count)
        }
    }

    /// The migration built the short-gram index; an edit must be able to take an old row's
    /// grams out of it again.
    @Test func upgradedRowsCanBeEditedAndDeleted() throws {
        try withTemporaryDirectory { directory in
            try Self.makeVersionOneDatabase(in: directory)
            let database = try IdeaDatabase.open(
                directory: directory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
            let repository = database.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1000))
            let first = Self.v1Ideas[0]
            let edited = try repository.editIdea(id: first.id, IdeaChanges(title: "Learn it", description: "later"))
            #expect(try repository.ideas(.search("學"), limit: 10).isEmpty)
            #expect(try repository.ideas(.search("學習"), limit: 10).isEmpty)
            #expect(try repository.ideas(.search("持久化"), limit: 10).isEmpty)
            #expect(try repository.ideas(.search("Le"), limit: 10) == [edited])
            let third = Self.v1Ideas[2]
            _ = try repository.deleteIdea(id: third.id)
            #expect(try repository.ideas(.search("🎉"), limit: 10).isEmpty)
            #expect(try repository.count(.search("靈")) == Self.v1Ideas.filter { $0.description.contains("靈") }.count - 1)
            #expect(try repository.count(.all) == Self.v1Ideas.count - 1)
        }
    }
}
