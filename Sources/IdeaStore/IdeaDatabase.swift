import CSQLiteOptions
import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

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
    /// Present while a pull from the start of the account's history is not finished.
    static let pullFromStart = "pullFromStart"
    /// The order the app shows All Ideas and Completed in (`IdeaOrder.storedName`).
    static let listOrder = "listOrder"
    /// The stamp of an overwrite of the remote not yet carried out whole (`overwriteJournal`).
    static let overwriteStamp = "overwriteStamp"
    /// The remote's time less this device's, in milliseconds, as its last answer showed.
    static let remoteClockOffset = "remoteClockOffset"
    /// This device's time when `remoteClockOffset` was measured, in milliseconds.
    static let remoteClockMeasuredAt = "remoteClockMeasuredAt"
    /// The boot clock when `remoteClockOffset` was measured, in milliseconds.
    static let remoteClockMeasuredElapsed = "remoteClockMeasuredElapsed"
}

/// An opened, migrated IdeaBox database: one device's local store.
public struct IdeaDatabase: Sendable {
    /// The connection(s) every repository of this database goes through.
    public let writer: any DatabaseWriter
    /// This device's stable id, made on first open.
    public let deviceId: String
    /// The command-line options that chose this database (`--data-dir D`, `--profile P`),
    /// which the sentence about a damaged database repeats in the command it names.
    var options: [String] = []
    /// The checkpoints of a database opened for `.app`, which run beside its writer.
    var checkpoint: BackgroundCheckpoint?

    /// What the first open of a new database does.
    public struct FirstLaunch: Sendable {
        /// Whether to insert the seven sample ideas.
        public var seedsSamples: Bool
        /// The language of the samples.
        public var language: Language
        /// The clock whose time the samples are stamped with (the product spec's research
        /// decision Q3: the first launch stamps them with the current time).
        public var clock: WallClock

        /// First-launch choices.
        public init(seedsSamples: Bool, language: Language, clock: WallClock = .system) {
            self.seedsSamples = seedsSamples
            self.language = language
            self.clock = clock
        }
    }

    /// How a process uses the database.
    public enum Use: Sendable {
        /// A long-lived process (the full-screen app, sync, `serve`): readers beside one
        /// writer, and the last to close copies the WAL into the database.
        case app
        /// One command of the command line that writes (`add`, `done`, `edit`, `rm`,
        /// `import`): one connection, and nothing written unless the command writes. Closing
        /// leaves the WAL for the next process, which replays it on open, because copying it
        /// into the database costs two disk flushes, more than all the rest of `ideabox add`.
        /// A writing command empties the WAL only once it holds `writingCommandWALLimit`
        /// pages; the next reading command does it sooner.
        case command
        /// One command of the command line that only reads (`list`, `search`, `show`,
        /// `export`): a connection as a writing command's, which first does the upkeep that
        /// writing commands leave to it (`IdeaDatabase.upkeep`).
        case readingCommand
    }

    /// Opens (creating if needed) the database in `directory`, in WAL mode, safe for many
    /// processes at once. Migrating and first-launch seeding run under an exclusive file
    /// lock, so two processes starting together in a new directory seed exactly once; a
    /// command opening a database this version has opened before takes no lock and only
    /// reads (a reading command then does its upkeep, see `Use.readingCommand`).
    ///
    /// A folder that is a file, a damaged database or a file that is not one, a full disk or
    /// a folder that can't be written throws a `StorageError`, then or on any later read or
    /// write; its sentences repeat `options`, the command-line options that chose `directory`.
    public static func open(
        directory: URL, firstLaunch: FirstLaunch, ids: IdGenerator = .random, use: Use = .app, options: [String] = []
    ) throws -> IdeaDatabase {
        do {
            var database = try openUnchecked(directory: directory, firstLaunch: firstLaunch, ids: ids, use: use)
            database.options = options
            return database
        } catch {
            throw StorageError(error, directory: directory, options: options) ?? error
        }
    }

    /// The database file's name in its profile folder.
    static let fileName = "ideabox.sqlite"

    /// Whether `directory` holds a database, found without opening or creating anything.
    public static func exists(in directory: URL) -> Bool {
        exists(inPath: directory.path)
    }

    /// Whether the folder at `directoryPath` holds a database.
    public static func exists(inPath directoryPath: String) -> Bool {
        FileManager.default.fileExists(atPath: directoryPath + "/" + fileName)
    }

    private static func openUnchecked(
        directory: URL, firstLaunch: FirstLaunch, ids: IdGenerator, use: Use
    ) throws -> IdeaDatabase {
        try OwnerOnly.createDirectory(directory)
        try OwnerOnly.prepareDatabase(directory.appendingPathComponent(fileName))
        let path = directory.appendingPathComponent(fileName).path
        let lockURL = directory.appendingPathComponent("ideabox.lock")
        switch use {
        case .app:
            // A pool switches a new file to WAL mode as it opens. Two connections switching
            // one file at once can fail at once with "database is locked": SQLite returns
            // SQLITE_BUSY without waiting where waiting could deadlock. So a pool opens under
            // the lock, as every switch does; the lock is held only while a database opens.
            let lock = try FileLock(url: lockURL)
            defer { lock.unlock() }
            let checkpoint = BackgroundCheckpoint()
            let writer = try retryingWhileBusy {
                try DatabasePool(path: path, configuration: configuration(use, checkpoint: checkpoint))
            }
            var database = if let deviceId = try? preparedDeviceId(writer) {
                IdeaDatabase(writer: writer, deviceId: deviceId)
            } else {
                try retryingWhileBusy { try prepare(writer, firstLaunch: firstLaunch, ids: ids) }
            }
            database.checkpoint = checkpoint
            return database
        case .command, .readingCommand:
            // A command takes no lock to open a database some process has prepared: one read.
            // Any error here (another process creating the schema this instant) takes the
            // locked path, which reads again after that process is done.
            let writer = try DatabaseQueue(path: path, configuration: configuration(use))
            if let deviceId = try? preparedDeviceId(writer) {
                if use == .readingCommand { upkeep(writer) }
                return IdeaDatabase(writer: writer, deviceId: deviceId)
            }
            let lock = try FileLock(url: lockURL)
            defer { lock.unlock() }
            return try retryingWhileBusy {
                // A new file opened by a queue is still in rollback mode.
                try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
                return try prepare(writer, firstLaunch: firstLaunch, ids: ids)
            }
        }
    }

    /// A private in-memory database, for tests and previews.
    public static func inMemory(firstLaunch: FirstLaunch, ids: IdGenerator = .random) throws -> IdeaDatabase {
        try prepare(try DatabaseQueue(configuration: configuration(.app)), firstLaunch: firstLaunch, ids: ids)
    }

    /// A repository over this database.
    public func repository(clock: WallClock, ids: IdGenerator) -> IdeaRepository {
        IdeaRepository(connection: StoreConnection(base: writer, options: options), deviceId: deviceId, clock: clock, ids: ids)
    }

    /// Closes every connection (of a database opened for `.app`, the last copies the WAL
    /// into the database file). Nothing may use this database or its repositories afterwards.
    public func close() throws {
        checkpoint?.close()
        try writer.close()
    }

    /// Seconds to wait for the write lock: other processes (another shell's `ideabox add`,
    /// the other profile's app) hold it for a millisecond or two; wait for them instead of failing.
    static let busyTimeout = 15

    /// `body`'s value, `body` run again while SQLite refuses it at once as busy or locked,
    /// for up to `busyTimeout` seconds, a little longer between tries each time.
    ///
    /// The busy timeout makes SQLite wait for another connection's lock; but where waiting
    /// could deadlock, or while another process recovers the WAL, or (the last to close it)
    /// checkpoints and removes it, SQLite answers busy without waiting. One of 400
    /// `ideabox add`s, two shells adding at once, failed so, at `PRAGMA journal_mode = WAL`
    /// (CI rehearsal, 2026-11-29): an idea typed and lost to a lock held a millisecond.
    static func retryingWhileBusy<Value>(
        upTo limit: Duration = .seconds(busyTimeout), _ body: () throws -> Value
    ) throws -> Value {
        let deadline = ContinuousClock.now + limit
        var pause = Duration.milliseconds(1)
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
                guard ContinuousClock.now + pause < deadline else { throw error }
                Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
                pause = min(pause * 2, .milliseconds(50))
            }
        }
    }

    /// How a connection for `use` is set up; `checkpoint` takes over the automatic
    /// checkpoint of a long-lived process's writer.
    private static func configuration(_ use: Use, checkpoint: BackgroundCheckpoint? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(TimeInterval(busyTimeout))
        configuration.prepareDatabase { db in
            // With WAL, NORMAL keeps every committed transaction through a crash of the
            // process (kill -9); only a power loss may lose the last commits.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Statement journals in memory, not in temporary files.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            if !db.configuration.readonly {
                switch use {
                case .app:
                    // Room for a whole sync page in the writer's page cache, so a big
                    // transaction doesn't write pages to the WAL twice.
                    try db.execute(sql: "PRAGMA cache_size = \(IdeaDatabase.bigTransactionCacheSize)")
                    // Copy the WAL into the database every 40 MB rather than every 4 MB (a
                    // first sync no longer checkpoints after each page), beside the writer
                    // rather than in its commit.
                    if let checkpoint {
                        checkpoint.install(on: db)
                    } else {
                        try db.execute(sql: "PRAGMA wal_autocheckpoint = 10000")
                    }
                case .command, .readingCommand:
                    // SQLite's own 2 MB cache: a command reads a few pages, or streams the
                    // table once (export), and a bigger cache only costs it fresh memory for
                    // every page it reads (a page fault each). An import asks for room itself.
                    let connection = UnsafeMutableRawPointer(db.sqliteConnection)
                    let code = csqlite_keep_wal_on_close(connection)
                    guard ResultCode(rawValue: code) == .SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
                    csqlite_truncate_wal_after(connection, Int32(writingCommandWALLimit), Int32(busyTimeout * 1000))
                }
                // The file is cut back to 4 MB after a checkpoint.
                try db.execute(sql: "PRAGMA journal_size_limit = 4194304")
            }
        }
        return configuration
    }

    /// The WAL's length, in pages, at which a writing command empties it. The next process
    /// replays what a command leaves in the WAL (about 1.6 µs a page), and emptying it costs
    /// two disk flushes (several milliseconds) plus a copy of each page: an `add` that
    /// empties it takes several times as long as one that doesn't. So writing commands
    /// leave it to the next reading command (`readingCommandWALLimit`), and empty it
    /// themselves only when none has come for a long run of writes (an `add` writes about 20
    /// pages). BENCHMARKS.md, "Everyday commands against taskwarrior".
    static let writingCommandWALLimit = 1000

    /// The WAL's length, in pages, at which a reading command empties it before it reads.
    static let readingCommandWALLimit = 160

    /// The most pages of merged search index a reading command writes in its upkeep.
    static let upkeepMergePages = 64

    /// The most deleted ideas whose left search entries a reading command's upkeep takes out
    /// (`SearchText.leaveForLater`): a few milliseconds.
    static let upkeepClearedEntries = 16

    /// A reading command's upkeep, done before it reads, when writing commands have left the
    /// WAL at `readingCommandWALLimit` pages or more: it merges some of the small search
    /// index segments their edits wrote (at most `upkeepMergePages` pages; an edit merges
    /// none, see `IdeaSchema.Migration.searchMergedApart`) and takes out the search entries
    /// of a few deleted ideas (`upkeepClearedEntries`), then copies the WAL into the
    /// database and empties it. It waits for no other process: a database another process is
    /// writing, or one this process can't write, is left for the next reading command, and
    /// nothing it fails to do changes what the command reads.
    private static func upkeep(_ writer: DatabaseQueue) {
        guard walPages(writer.path) >= readingCommandWALLimit else { return }
        try? writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            try? db.inTransaction(.immediate) {
                try SearchText.merge(db, pages: upkeepMergePages)
                _ = try SearchText.clearLeftEntries(db, limit: upkeepClearedEntries)
                return .commit
            }
            csqlite_truncate_wal_now(UnsafeMutableRawPointer(db.sqliteConnection), Int32(busyTimeout * 1000))
        }
    }

    /// How many pages the WAL of the database at `path` holds, from its size.
    static func walPages(_ path: String) -> Int {
        var status = stat()
        guard stat(path + "-wal", &status) == 0, status.st_size > walHeaderSize else { return 0 }
        return Int(status.st_size - walHeaderSize) / (pageSize + walFrameHeaderSize)
    }

    private static let walHeaderSize = 32
    private static let walFrameHeaderSize = 24
    private static let pageSize = 4096

    /// The page cache a writer needs so that a transaction of a sync page or an import
    /// fits in it (32 MiB at most), as a `cache_size` value.
    static let bigTransactionCacheSize = -32768

    /// The device id of a database that needs neither a migration nor its first-launch
    /// rows, found with one read; nil if it needs either.
    private static func preparedDeviceId(_ writer: any DatabaseWriter) throws -> String? {
        try writer.read { db in
            guard try IdeaSchema.migrator.hasCompletedMigrations(db) else { return nil }
            let row = try Row.fetchOne(db, sql: firstLaunchRowsSQL, arguments: [MetaKey.deviceId, MetaKey.revision, MetaKey.samples])
            guard let row, row[1] as Bool else { return nil }
            return row[0]
        }
    }

    /// Reads the device id, and whether the first launch's rows are there: its arguments are
    /// `MetaKey.deviceId`, `MetaKey.revision` and `MetaKey.samples`.
    static let firstLaunchRowsSQL = """
        SELECT (SELECT value FROM meta WHERE key = ?),
            EXISTS (SELECT 1 FROM meta WHERE key = ?) AND EXISTS (SELECT 1 FROM meta WHERE key = ?)
        """

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
            let repository = IdeaRepository(writer: writer, deviceId: deviceId, clock: firstLaunch.clock, ids: .random)
            _ = try repository.merge(SampleIdeas.ideas(in: firstLaunch.language, stampedAt: firstLaunch.clock.now()), db)
        }
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES (?, ?)",
            arguments: [MetaKey.samples, firstLaunch.seedsSamples && isNew ? "seeded" : "skipped"])
    }
}
