import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// `ideabox add` through SQLite's C API: it writes exactly what the repository's `addIdea`
/// writes, and leaves every database it was not made for to the usual path, untouched.
@Suite struct DirectAddTests {
    private static let firstLaunch = IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english, clock: .fixed(StoreFixture.start))

    /// A prepared database in `directory`, as a first command leaves it; its device id is
    /// the same in every directory.
    @discardableResult
    private static func prepared(_ directory: URL) throws -> IdeaDatabase {
        try IdeaDatabase.open(directory: directory, firstLaunch: firstLaunch, ids: .counting(from: 7), use: .command)
    }

    /// Every row of every table, the search indexes' own tables included, as text: what an add
    /// wrote, wherever it wrote it.
    private static func contents(_ directory: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("ideabox.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { db in
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")
            return try tables.flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").map { "\(table) \($0)" }.sorted()
            }
        }
    }

    private static let additions: [(title: String, description: String, done: Bool)] = [
        ("  Coffee in the garden  ", "咖啡 and notes\nsecond line", false),
        ("靈感 👩‍💻 a \"quoted\" title", "", true),
        ("Third", "garden", false),
    ]

    @Test func itWritesWhatTheRepositoryWrites() throws {
        try withTemporaryDirectory { root in
            let usual = root.appendingPathComponent("usual"), direct = root.appendingPathComponent("direct")
            let repository = try Self.prepared(usual).repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 100))
            try Self.prepared(direct)
            let ids = IdGenerator.counting(from: 100)
            for addition in Self.additions {
                let expected = try repository.addIdea(title: addition.title, description: addition.description, isCompleted: addition.done)
                let added = try DirectAdd.addIdea(
                    title: addition.title, description: addition.description, isCompleted: addition.done, directory: direct,
                    clock: .fixed(StoreFixture.start), ids: ids)
                #expect(added == expected)
            }
            #expect(try Self.contents(direct) == Self.contents(usual))
            // And the usual path reads it back, search included.
            let reread = try Self.prepared(direct).repository(clock: .system, ids: .random)
            #expect(try reread.ideas(.search("咖啡"), limit: 10).map(\.title) == ["Coffee in the garden"])
            #expect(try reread.ideas(.search("GARDEN"), limit: 10).map(\.title) == ["Third", "Coffee in the garden"])
        }
    }

    @Test func theMigrationsItChecksAreTheMigratorsInItsOrder() {
        #expect(IdeaSchema.Migration.allCases.map(\.rawValue) == IdeaSchema.migrator.migrations)
    }

    @Test func aFolderWithoutADatabaseIsLeftToTheUsualPathAndNothingIsMade() throws {
        try withTemporaryDirectory { root in
            let directory = root.appendingPathComponent("new")
            let added = try DirectAdd.addIdea(
                title: "First", description: "", isCompleted: false, directory: directory, clock: .system, ids: .random)
            #expect(added == nil)
            #expect(!FileManager.default.fileExists(atPath: directory.path))
        }
    }

    @Test(arguments: [
        "DELETE FROM grdb_migrations WHERE identifier = 'v11-search-merges-apart'",
        "DELETE FROM grdb_migrations WHERE identifier = 'v3-search'",
        "DELETE FROM meta WHERE key = 'samples'",
        "DELETE FROM meta WHERE key = 'revision'",
    ])
    func aDatabaseThatNeedsPreparingIsLeftToTheUsualPathUntouched(change: String) throws {
        try withTemporaryDirectory { directory in
            try Self.prepared(directory).writer.write { db in try db.execute(sql: change) }
            let before = try Self.contents(directory)
            let added = try DirectAdd.addIdea(
                title: "Not here", description: "", isCompleted: false, directory: directory, clock: .system, ids: .random)
            #expect(added == nil)
            #expect(try Self.contents(directory) == before)
        }
    }

    @Test func aFileThatIsNotADatabaseIsLeftToTheUsualPathAsItWas() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let text = Data(String(repeating: "These are my notes, not a database.\n", count: 200).utf8)
            try text.write(to: file)
            let added = try DirectAdd.addIdea(
                title: "Idea", description: "", isCompleted: false, directory: directory, clock: .system, ids: .random)
            #expect(added == nil)
            #expect(try Data(contentsOf: file) == text)
            // The usual path then says what is wrong, in one sentence.
            #expect(throws: StorageError.damaged(path: file.path)) {
                try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .command)
            }
        }
    }

    @Test func badTextIsRefusedAndNothingIsWritten() throws {
        try withTemporaryDirectory { directory in
            try Self.prepared(directory)
            let before = try Self.contents(directory)
            #expect(throws: IdeaValidationError.self) {
                try DirectAdd.addIdea(title: "  \n ", description: "", isCompleted: false, directory: directory, clock: .system, ids: .random)
            }
            #expect(throws: IdeaValidationError.self) {
                try DirectAdd.addIdea(
                    title: "Long", description: String(repeating: "長", count: 5000), isCompleted: false, directory: directory,
                    clock: .system, ids: .random)
            }
            #expect(try Self.contents(directory) == before)
        }
    }

    @Test func aLaterAddIsStampedAfterEverythingThisDeviceHasSeen() throws {
        try withTemporaryDirectory { directory in
            try Self.prepared(directory)
            let first = try #require(try DirectAdd.addIdea(
                title: "One", description: "", isCompleted: false, directory: directory, clock: .fixed(StoreFixture.start), ids: .random))
            // A clock that went back: the hybrid clock still moves forward.
            let second = try #require(try DirectAdd.addIdea(
                title: "Two", description: "", isCompleted: false, directory: directory,
                clock: .fixed(StoreFixture.start.adding(milliseconds: -5_000)), ids: .random))
            #expect(first.createdAt == StoreFixture.start)
            #expect(second.createdAt == StoreFixture.start.adding(milliseconds: 1))
            let revision = try Self.prepared(directory).repository(clock: .system, ids: .random).revision()
            #expect(revision == 2)
        }
    }
}
