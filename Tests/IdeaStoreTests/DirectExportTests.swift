import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// `export`'s read through SQLite's C API: it hands out what the repository's
/// `forEachIdeaBytes(.all)` hands out, and leaves every database it was not made for to the
/// usual path, having changed nothing.
@Suite struct DirectExportTests {
    private static let firstLaunch = IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english, clock: .fixed(StoreFixture.start))

    /// A prepared database in `directory` holding `count` ideas, added a second apart, its
    /// WAL emptied (as a reading command leaves it) unless `keepsWAL`.
    @discardableResult
    private static func prepared(_ directory: URL, count: Int = 0, keepsWAL: Bool = false) throws -> IdeaDatabase {
        let database = try IdeaDatabase.open(directory: directory, firstLaunch: firstLaunch, ids: .counting(from: 7), use: .command)
        let clock = WallClock.fixed(StoreFixture.start)
        for index in 0..<count {
            let repository = database.repository(clock: clock.offset(by: Int64(index) * 1000), ids: .random)
            let idea = try repository.addIdea(title: "Idea \(index) 靈感 \"q\"", description: index.isMultiple(of: 3) ? "咖啡\nline" : "")
            if index.isMultiple(of: 4) { _ = try repository.setCompleted(true, id: idea.id) }
        }
        if !keepsWAL {
            try database.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        return database
    }

    /// How many pages the WAL in `directory` holds, from its size.
    private static func walPages(_ directory: URL) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("ideabox.sqlite-wal").path)[.size] as? Int) ?? 0
        return max(0, size - 32) / (4096 + 24)
    }

    /// Every idea as JSON, through `DirectExport`; nil if it left the database to the usual path.
    private static func directJSON(_ directory: URL) -> [UInt8]? {
        var bytes: [UInt8] = []
        guard DirectExport.forEachIdea(directory: directory, { $0.writeJSON(to: &bytes, indent: "  ") }) else { return nil }
        return bytes
    }

    /// Every idea as JSON, through the usual path.
    private static func usualJSON(_ directory: URL) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try prepared(directory).repository(clock: .system, ids: .random).forEachIdeaBytes(.all, withStamps: true) {
            $0.writeJSON(to: &bytes, indent: "  ")
        }
        return bytes
    }

    /// The database file and its WAL, byte for byte.
    private static func files(_ directory: URL) -> [Data?] {
        ["ideabox.sqlite", "ideabox.sqlite-wal"].map { try? Data(contentsOf: directory.appendingPathComponent($0)) }
    }

    @Test func itHandsOutWhatTheRepositoryHandsOut() throws {
        try withTemporaryDirectory { directory in
            try Self.prepared(directory, count: 12)
            let direct = try #require(Self.directJSON(directory))
            let usual = try Self.usualJSON(directory)
            #expect(direct == usual)
            #expect(String(decoding: direct, as: UTF8.self).contains("Idea 11 靈感"))
        }
    }

    @Test func anEmptyDatabaseHandsOutNothing() throws {
        try withTemporaryDirectory { directory in
            try Self.prepared(directory)
            #expect(Self.directJSON(directory) == [])
        }
    }

    @Test func aFolderWithoutADatabaseIsLeftToTheUsualPathAndNothingIsMade() throws {
        try withTemporaryDirectory { root in
            let directory = root.appendingPathComponent("new")
            #expect(Self.directJSON(directory) == nil)
            #expect(!FileManager.default.fileExists(atPath: directory.path))
        }
    }

    @Test(arguments: [
        "DELETE FROM grdb_migrations WHERE identifier = 'v11-search-merges-apart'",
        "DELETE FROM meta WHERE key = 'samples'",
        // The newest row made before the others: the list's order is the index's, not the table's.
        "UPDATE idea SET createdAt = createdAt - 100000 WHERE localId = (SELECT max(localId) FROM idea)",
    ])
    func aDatabaseItWasNotMadeForIsLeftToTheUsualPathUntouched(change: String) throws {
        try withTemporaryDirectory { directory in
            try Self.prepared(directory, count: 3).writer.write { db in try db.execute(sql: change) }
            let before = Self.files(directory)
            #expect(Self.directJSON(directory) == nil)
            #expect(Self.files(directory) == before)
        }
    }

    @Test func aWALWithUpkeepDueIsLeftToTheUsualPath() throws {
        try withTemporaryDirectory { directory in
            // Each edit writes about twenty pages to the WAL; a reading command empties it at 160.
            try Self.prepared(directory, count: 12, keepsWAL: true)
            #expect(Self.walPages(directory) >= 160)
            #expect(Self.directJSON(directory) == nil)
            // A reading command's upkeep empties it; then the direct read takes the next export.
            _ = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .readingCommand)
            #expect(Self.walPages(directory) < 160)
            #expect(try Self.directJSON(directory) == Self.usualJSON(directory))
        }
    }

    @Test func aFileThatIsNotADatabaseIsLeftToTheUsualPathAsItWas() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let text = Data(String(repeating: "These are my notes, not a database.\n", count: 200).utf8)
            try text.write(to: file)
            #expect(Self.directJSON(directory) == nil)
            #expect(try Data(contentsOf: file) == text)
        }
    }
}
