import CSQLiteOptions
import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
import ServerStore

/// The records, assets, access tokens and quotas of a CloudKit-like server's accounts, in
/// one SQLite file: what `ideabox serve --store sqlite` serves (one machine, any number of
/// `serve` processes on it) and what the embedded remote (`SimulatedCloud`) keeps its
/// accounts in. `PostgresRecordStore` is the store for more than one machine.
///
/// The file is opened in WAL mode, safe for many processes at once; its schema is `SQLiteSchema`.
/// Its methods are synchronous, for the embedded remote; a `RecordStore` caller awaits them
/// off the cooperative pool (`SQLiteRecordStore+RecordStore.swift`).
public struct SQLiteRecordStore: Sendable {
    /// The file name of the embedded remote under the data root, and of `serve`'s store.
    public static let fileName = "remote.sqlite"

    /// The connection(s) to the file.
    let writer: any DatabaseWriter
    /// The server's clock, for creation and modification times.
    let clock: WallClock
    /// The most items the server accepts in one `modify`.
    public let maximumRecordsPerRequest: Int
    /// What makes the tokens and change tags it hands out, from the file's `serverSecret`.
    let positions: PositionKeys
    /// Empties the WAL soon after a write (nil in memory, which has none).
    let scrubber: WALScrubber?
    /// How many records, and about how many bytes of their fields, one write transaction of
    /// a query's fill reads (`fillQueryable`).
    var fillBatch = (records: 500, bytes: 4 << 20)
    /// The fills of queryable fields running in this process, shared by the copies of this store.
    public let queryableFills = QueryableFills()

    private init(writer: any DatabaseWriter, clock: WallClock, maximumRecordsPerRequest: Int) throws {
        self.writer = writer
        self.clock = clock
        self.maximumRecordsPerRequest = maximumRecordsPerRequest
        positions = PositionKeys(serverSecret: try Self.serverSecret(writer))
        scrubber = writer is DatabasePool ? WALScrubber(writer: writer) : nil
    }

    /// Opens (creating if needed) `fileName` in `directory`. Migrating runs under an exclusive
    /// file lock, so two processes starting together create the schema once.
    public static func open(
        directory: URL, fileName: String = fileName, clock: WallClock, maximumRecordsPerRequest: Int = 400
    ) throws -> SQLiteRecordStore {
        try OwnerOnly.createDirectory(directory)
        let lockName = (fileName as NSString).deletingPathExtension + ".lock"
        let lock = try FileLock(url: directory.appendingPathComponent(lockName))
        defer { lock.unlock() }
        try OwnerOnly.prepareDatabase(directory.appendingPathComponent(fileName))
        let pool = try DatabasePool(path: directory.appendingPathComponent(fileName).path, configuration: configuration)
        // Acknowledged means durable: a commit is on the disk (the WAL synced) before `modify`
        // returns and the request is answered, so a power cut cannot take back a write a
        // device was told is saved and has dropped from its outbox (issue 64). NORMAL syncs
        // only at checkpoints: `PowerCutTests` loses writes with it. Set here, on the one
        // connection that writes: a pool sets its writer to NORMAL after `prepareDatabase`.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try SQLiteSchema.migrator.migrate(pool)
        return try SQLiteRecordStore(writer: pool, clock: clock, maximumRecordsPerRequest: maximumRecordsPerRequest)
    }

    /// Makes a `kill -9` of this process take back every write the store has not synced to
    /// the disk, as a power cut would (`csqlite_simulate_power_cuts`): for the power-cut test
    /// of `serve`, which calls this under `IDEABOX_SIMULATE_POWER_CUTS=1`, before it opens
    /// the store.
    public static func simulatePowerCuts() {
        _ = csqlite_simulate_power_cuts()
    }

    /// A private in-memory store, for tests.
    public static func inMemory(clock: WallClock, maximumRecordsPerRequest: Int = 400) throws -> SQLiteRecordStore {
        let queue = try DatabaseQueue(configuration: configuration)
        try SQLiteSchema.migrator.migrate(queue)
        return try SQLiteRecordStore(writer: queue, clock: clock, maximumRecordsPerRequest: maximumRecordsPerRequest)
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        // Other processes (another profile's app, a `remote` command) hold the write lock
        // for a millisecond or two; wait for them instead of failing. GRDB opens every
        // write transaction IMMEDIATE, so the wait happens at BEGIN, never halfway through.
        configuration.busyMode = .timeout(15)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // A replaced or deleted value is overwritten with zeros, not left in a free page:
            // a plain idea sealed over (issue 38) is gone from the file, not just unlinked.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        return configuration
    }
}
