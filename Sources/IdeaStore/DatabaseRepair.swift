import Foundation
import GRDB
import IdeaBoxFoundation

/// `ideabox repair`: a damaged database is replaced by a fresh one (made by the migrations)
/// holding everything that could still be read of it, and kept beside it; a whole one is
/// left as it is.
///
/// Nothing else may use the file meanwhile. The repair takes `ideabox.lock`, as every open
/// that creates or migrates does, and then the database itself: SQLite's exclusive lock,
/// which it gets only if no other process has the database open (the app and `sync --watch`
/// keep it open while they run, and hold the lock only while they open it), and which keeps
/// every other process out until the fresh file is in place. Only then is the damaged file
/// read, for reading only.
public enum DatabaseRepair {
    /// What a repair found, and did.
    public enum Outcome: Sendable, Equatable {
        /// The folder holds no database yet.
        case noDatabase(path: String)
        /// The database is whole (SQLite's integrity check and the search index's own say
        /// so): nothing was changed.
        case healthy(path: String)
        /// The database was damaged: the file at `path` is a fresh one now, holding what
        /// could be read, and the damaged one is kept at `damagedCopy`.
        case repaired(path: String, damagedCopy: String, kept: Kept)
    }

    /// What the fresh database holds.
    public struct Kept: Sendable, Equatable {
        /// Ideas.
        public var ideas: Int
        /// Deletes (tombstones).
        public var deletes: Int
        /// Changes waiting to be sent.
        public var pendingChanges: Int
        /// Ideas the damaged database names (in an index of the ideas, or in a cell of a page
        /// of them) that could not be read.
        public var unreadableIdeas: Int
        /// Whether `unreadableIdeas` is every idea that could not be read (an index of the
        /// ideas was whole), not only those it could tell.
        public var countsEveryUnreadableIdea: Bool

        /// What a fresh database holds, and how many ideas it could not.
        public init(ideas: Int, deletes: Int, pendingChanges: Int, unreadableIdeas: Int, countsEveryUnreadableIdea: Bool) {
            self.ideas = ideas
            self.deletes = deletes
            self.pendingChanges = pendingChanges
            self.unreadableIdeas = unreadableIdeas
            self.countsEveryUnreadableIdea = countsEveryUnreadableIdea
        }
    }

    /// How long the repair waits for another process to let go of the database: a command
    /// holds it for milliseconds, the app for as long as it runs.
    public static let defaultWait: TimeInterval = 5

    /// Repairs the database in the profile folder `directory`, if it needs it. `options`
    /// are the command-line options that chose it, for the sentences that name a command;
    /// `clock` names the damaged copy and stamps the log; `ids` makes a device id if this
    /// device's own was lost.
    ///
    /// Throws `StorageError.inUse` if another process holds the database for longer than
    /// `wait`, and a `StorageError` if the folder can't be written.
    public static func repair(
        directory: URL, options: [String] = [], clock: WallClock = .system, ids: IdGenerator = .random,
        wait: TimeInterval = defaultWait
    ) throws -> Outcome {
        let file = directory.appendingPathComponent(IdeaDatabase.fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return .noDatabase(path: file.path) }
        do {
            let lock = try FileLock(url: directory.appendingPathComponent("ideabox.lock"))
            defer { lock.unlock() }
            return try repairLocked(file, options: options, clock: clock, ids: ids, wait: wait)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(error, directory: directory, options: options) ?? error
        }
    }

    private static func repairLocked(
        _ file: URL, options: [String], clock: WallClock, ids: IdGenerator, wait: TimeInterval
    ) throws -> Outcome {
        let holder: DatabaseQueue?
        do {
            holder = try DatabaseQueue(path: file.path, configuration: holding(wait: wait))
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            throw StorageError.inUse(path: file.path, options: options)
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            // Not even its first page reads: nothing to keep, and nothing another process can use.
            holder = nil
        }
        if let holder, isWhole(holder) {
            try holder.close()
            return .healthy(path: file.path)
        }
        let fresh = URL(fileURLWithPath: file.path + ".repairing")
        let copy = damagedCopyName(for: file, at: clock.now())
        do {
            let kept = try build(fresh, from: holder, file: file, damagedCopy: copy, clock: clock, ids: ids)
            try swap(fresh, into: file, keepingDamagedAs: copy, holder: holder)
            return .repaired(path: file.path, damagedCopy: copy.path, kept: kept)
        } catch {
            try? holder?.close()
            removeDatabaseFiles(fresh)
            throw error
        }
    }

    /// A connection that takes the database for itself: in exclusive locking mode, its first
    /// read takes the exclusive lock (a database in WAL mode is then read with its WAL index
    /// in this process's memory) and keeps it until it closes. A damaged schema is read as
    /// far as it goes (`writable_schema`: a table whose entry is damaged is skipped, not the
    /// whole file); the connection writes nothing but its journal mode (see `swap`).
    private static func holding(wait: TimeInterval) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(wait)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA writable_schema = ON")
        }
        return configuration
    }

    /// Whether SQLite finds every page and index whole, and so do both search indexes (whose
    /// checks SQLite 3.40's integrity check leaves out). The trigram index's check compares
    /// it with the ideas' rows, which deleted ideas' entries left for later
    /// (`SearchText.leaveForLater`) have none of: they are taken out first, in a transaction
    /// rolled back after the check, so nothing is written.
    private static func isWhole(_ damaged: DatabaseQueue) -> Bool {
        (try? damaged.inDatabase { db in
            guard try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"] else { return false }
            try db.inTransaction {
                if try db.tableExists("staleSearchEntry") {
                    _ = try SearchText.clearLeftEntries(db, limit: .max)
                }
                for table in SearchText.indexTables where try db.tableExists(table) {
                    try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES ('integrity-check')")
                }
                return .rollback
            }
            return true
        }) ?? false
    }

    /// Makes the fresh database at `fresh` with the migrations, fills it with what can be
    /// read of `damaged` (the connection holding `file`; nil if it did not open) and of every
    /// page of `file`, checks it, and leaves it closed and on disk, in WAL mode as every
    /// IdeaBox database is.
    private static func build(
        _ fresh: URL, from damaged: DatabaseQueue?, file: URL, damagedCopy: URL, clock: WallClock, ids: IdGenerator
    ) throws -> Kept {
        removeDatabaseFiles(fresh)
        try OwnerOnly.prepareDatabase(fresh)
        let queue = try DatabaseQueue(path: fresh.path)
        try IdeaSchema.migrator.migrate(queue)
        let salvage = try read(damaged, file: file, shapedAs: queue)
        let newDeviceId = ids.next().lowercasedString
        let deviceId = try queue.write { db in
            try salvage.write(into: db, newDeviceId: newDeviceId)
            return try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.deviceId]) ?? newDeviceId
        }
        let repository = IdeaRepository(writer: queue, deviceId: deviceId, clock: clock, ids: ids)
        // The outbox is what this device has yet to send: if part of it was lost, every idea
        // and delete goes out again, and the remote settles each by last write wins.
        if !salvage.isComplete("outbox") {
            try repository.requeueEverything()
        }
        let kept = try queue.read { db in
            guard try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"] else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "the repaired database fails its integrity check")
            }
            let ideas = Set(try Int64.fetchAll(db, sql: "SELECT localId FROM idea"))
            return Kept(
                ideas: ideas.count,
                deletes: try Int.fetchOne(db, sql: "SELECT count(*) FROM tombstone") ?? 0,
                pendingChanges: try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox") ?? 0,
                unreadableIdeas: salvage.namedIdeas.subtracting(ideas).count, countsEveryUnreadableIdea: salvage.namesEveryIdea)
        }
        try repository.logSyncEvent(
            .repaired(
                ideas: kept.ideas, deletes: kept.deletes, pendingChanges: kept.pendingChanges,
                damagedCopy: damagedCopy.lastPathComponent),
            at: clock.now())
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.close()
        try flush(fresh)
        return kept
    }

    /// Reads what `damaged` (the connection holding `file`; nil if it did not open) still
    /// reads of each table, then the ideas on every page of `file` that its walk of the
    /// b-tree did not reach: below a damaged page of the tree's upper levels, or in a file
    /// whose first page does not open. `fresh` (a database the migrations made) gives the
    /// columns to read and the order the ideas table stores them in.
    private static func read(_ damaged: DatabaseQueue?, file: URL, shapedAs fresh: DatabaseQueue) throws -> Salvage {
        let (columns, layout) = try fresh.read { db in (try Salvage.columns(of: db), try Salvage.ideaLayout(of: db)) }
        var salvage = try damaged?.inDatabase { db in
            try db.execute(sql: "PRAGMA query_only = ON")
            return Salvage.read(db, columns: columns)
        } ?? Salvage()
        // Every row holds the columns the first migration made, up to the description.
        let required = (layout.firstIndex(of: "description") ?? layout.count - 1) + 1
        let found = PageSalvage.read(DatabaseFilePages(contentsOf: file), layout: layout, rowidAlias: "localId", required: required) { row in
            Salvage.isWellFormedIdea { row[$0] ?? .null }
        }
        salvage.addIdeas(found, columns: columns["idea"] ?? [])
        return salvage
    }

    /// Puts the fresh database in the damaged one's place in one rename, the damaged file
    /// kept under `copy` (a second name first, so the database's own name always holds one
    /// of the two).
    ///
    /// `holder` (the connection holding the damaged database, if it opened) keeps every
    /// other process out until the fresh file is in place. It leaves WAL mode first: closed
    /// in WAL mode, it would delete the WAL by its name, by then the fresh database's. If it
    /// can't leave it, it lets go before the swap.
    private static func swap(_ fresh: URL, into file: URL, keepingDamagedAs copy: URL, holder: DatabaseQueue?) throws {
        var holder = holder
        let leftWAL = (try? holder?.inDatabase { db in
            try db.execute(sql: "PRAGMA query_only = OFF")
            return try String.fetchOne(db, sql: "PRAGMA journal_mode = MEMORY")
        }) == "memory"
        if !leftWAL {
            try holder?.close()
            holder = nil
        }
        let folder = file.deletingLastPathComponent()
        if link(file.path, copy.path) != 0 {
            try check(rename(file.path, copy.path), folder)
        }
        for suffix in ["-wal", "-journal"] where FileManager.default.fileExists(atPath: file.path + suffix) {
            try check(rename(file.path + suffix, copy.path + suffix), folder)
        }
        // The damaged database's shared-memory index, which no process has open.
        unlink(file.path + "-shm")
        try check(rename(fresh.path, file.path), folder)
        syncFolder(folder)
        try holder?.close()
    }

    /// `ideabox.sqlite.damaged-20261120-081530` (UTC) beside `file`, a number added if taken.
    private static func damagedCopyName(for file: URL, at time: Timestamp) -> URL {
        let digits = time.iso8601.filter(\.isNumber)
        let stamp = digits.prefix(8) + "-" + digits.dropFirst(8).prefix(6)
        var copy = URL(fileURLWithPath: "\(file.path).damaged-\(stamp)")
        var number = 1
        while FileManager.default.fileExists(atPath: copy.path) {
            number += 1
            copy = URL(fileURLWithPath: "\(file.path).damaged-\(stamp)-\(number)")
        }
        return copy
    }

    /// Removes a database file and the files SQLite keeps beside it.
    private static func removeDatabaseFiles(_ file: URL) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            unlink(file.path + suffix)
        }
    }

    /// Flushes a written file to disk.
    private static func flush(_ file: URL) throws {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError(errno, file) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw posixError(errno, file) }
    }

    /// Flushes a folder's entries (the renames in it) to disk.
    private static func syncFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Throws what a failed file call (`result` not 0) in `folder` means.
    private static func check(_ result: Int32, _ folder: URL) throws {
        guard result != 0 else { return }
        throw posixError(errno, folder)
    }

    /// A Foundation error for `code`, which `StorageError` reads (a full disk, a folder that
    /// can't be written).
    private static func posixError(_ code: Int32, _ url: URL) -> any Error {
        CocoaError(.fileWriteUnknown, userInfo: [
            NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code)),
        ])
    }
}
