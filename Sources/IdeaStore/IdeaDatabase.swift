import Foundation
import GRDB
import IdeaBoxCore

/// Keys of the `meta` table.
enum MetaKey {
    /// This database's device id.
    static let deviceId = "deviceId"
    /// Whether the first launch seeded the samples (`seeded`) or skipped them (`skipped`).
    static let samples = "samples"
    /// Grows with every committed change.
    static let revision = "revision"
    /// The latest edit time this device has made or seen, in milliseconds.
    static let highestTimestamp = "highestTimestamp"
}

/// An opened, migrated IdeaBox database: one device's local store.
public struct IdeaDatabase: Sendable {
    /// The connection(s) every repository of this database goes through.
    public let writer: any DatabaseWriter
    /// This device's stable id, made on first open.
    public let deviceId: String

    /// What the first open of a new database does.
    public struct FirstLaunch: Sendable {
        /// Whether to insert the seven sample ideas.
        public var seedsSamples: Bool
        /// The language of the samples.
        public var language: Language

        /// First-launch choices.
        public init(seedsSamples: Bool, language: Language) {
            self.seedsSamples = seedsSamples
            self.language = language
        }
    }

    /// Opens (creating if needed) the database in `directory`, in WAL mode, safe for many
    /// processes at once. Migrating and first-launch seeding run under an exclusive file
    /// lock, so two processes starting together in a new directory seed exactly once.
    public static func open(directory: URL, firstLaunch: FirstLaunch, ids: IdGenerator = .random) throws -> IdeaDatabase {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let lock = try FileLock(url: directory.appendingPathComponent("ideabox.lock"))
        defer { lock.unlock() }
        let pool = try DatabasePool(path: directory.appendingPathComponent("ideabox.sqlite").path, configuration: configuration)
        return try prepare(pool, firstLaunch: firstLaunch, ids: ids)
    }

    /// A private in-memory database, for tests and previews.
    public static func inMemory(firstLaunch: FirstLaunch, ids: IdGenerator = .random) throws -> IdeaDatabase {
        try prepare(try DatabaseQueue(configuration: configuration), firstLaunch: firstLaunch, ids: ids)
    }

    /// A repository over this database.
    public func repository(clock: WallClock, ids: IdGenerator) -> IdeaRepository {
        IdeaRepository(writer: writer, deviceId: deviceId, clock: clock, ids: ids)
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        // Other processes (another shell's `ideabox add`, the other profile's app) hold the
        // write lock for a millisecond or two; wait for them instead of failing.
        configuration.busyMode = .timeout(15)
        configuration.prepareDatabase { db in
            // With WAL, NORMAL keeps every committed transaction through a crash of the
            // process (kill -9); only a power loss may lose the last commits.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Statement journals in memory, not in temporary files.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            if !db.configuration.readonly {
                // Room for a whole sync page or import in the writer's page cache (32 MiB
                // at most), so a big transaction doesn't write pages to the WAL twice.
                try db.execute(sql: "PRAGMA cache_size = -32768")
                // Copy the WAL into the database every 40 MB rather than every 4 MB: a
                // first sync no longer checkpoints after each page. The file is cut back
                // to 4 MB after a checkpoint.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 10000")
                try db.execute(sql: "PRAGMA journal_size_limit = 4194304")
            }
        }
        return configuration
    }

    private static func prepare(_ writer: any DatabaseWriter, firstLaunch: FirstLaunch, ids: IdGenerator) throws -> IdeaDatabase {
        try IdeaSchema.migrator.migrate(writer)
        let deviceId = try writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO meta (key, value) VALUES (?, 0)", arguments: [MetaKey.revision])
            let deviceId = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.deviceId])
                ?? insertDeviceId(ids.next().lowercasedString, db)
            try seedSamplesOnce(firstLaunch, deviceId: deviceId, writer: writer, db)
            return deviceId
        }
        return IdeaDatabase(writer: writer, deviceId: deviceId)
    }

    private static func insertDeviceId(_ deviceId: String, _ db: Database) throws -> String {
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?)", arguments: [MetaKey.deviceId, deviceId])
        return deviceId
    }

    /// The samples are decided once per database: seeded or skipped on first launch, and
    /// never again, so deleting them never brings them back.
    private static func seedSamplesOnce(
        _ firstLaunch: FirstLaunch, deviceId: String, writer: any DatabaseWriter, _ db: Database
    ) throws {
        let decided = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.samples])
        guard decided == nil else { return }
        // A database that already holds ideas or deletes is not new, whatever made it.
        let isNew = try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM idea) OR EXISTS (SELECT 1 FROM tombstone)")!
        if firstLaunch.seedsSamples && isNew {
            let repository = IdeaRepository(writer: writer, deviceId: deviceId, clock: .system, ids: .random)
            _ = try repository.merge(SampleIdeas.ideas(in: firstLaunch.language), db)
        }
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES (?, ?)",
            arguments: [MetaKey.samples, firstLaunch.seedsSamples && isNew ? "seeded" : "skipped"])
    }
}
