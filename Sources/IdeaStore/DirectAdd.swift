import CSQLiteOptions
import Foundation
import GRDB
import GRDBSQLite
import IdeaBoxFoundation
import IdeaModel

/// `ideabox add` through SQLite's C API, without GRDB: the same checks, statements, single
/// transaction and sentences as opening the database for a command and calling
/// `IdeaRepository.addIdea`, for about a third less of the command's time. GRDB's connection
/// set-up (its functions, collations and statement authorizer, a dispatch queue, a Swift
/// object for every statement) cost more than the add's own SQL (BENCHMARKS.md, "Issue 40
/// part 3, twelfth session").
///
/// It only adds to a database this version has opened and prepared before. Anything else (no
/// file yet, a migration or the first launch's rows to write, a file SQLite can't read) it
/// leaves to the usual path, having written nothing, so that path's behaviour and errors
/// hold for every such case.
public enum DirectAdd {
    /// Adds an idea to the database in `directory`, stamped by `clock`, its id from `ids`,
    /// and returns it as stored; nil, with nothing written, if the database is not one this
    /// version has prepared (open it with `IdeaDatabase.open` and add through its repository
    /// instead). Bad text throws `IdeaValidationError`; a full disk, a damaged file or one
    /// that can't be written throws a `StorageError` naming `options`.
    public static func addIdea(
        title: String, description: String, isCompleted: Bool, directory: URL, clock: WallClock, ids: IdGenerator,
        options: [String] = []
    ) throws -> Idea? {
        let path = directory.appendingPathComponent(IdeaDatabase.fileName).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        // As `IdeaDatabase.open` does before it opens: the modes of the folder and the files.
        do {
            try OwnerOnly.createDirectory(directory)
            try OwnerOnly.prepareDatabase(URL(fileURLWithPath: path))
        } catch {
            return nil
        }
        guard let connection = Connection(path: path) else { return nil }
        defer { connection.close() }
        do {
            guard try connection.begin(), let deviceId = try connection.preparedDeviceId() else {
                connection.rollback()
                return nil
            }
            // After the database is known to be usable, as `addIdea` on an opened one checks.
            let title = try IdeaRules.normalizedTitle(title)
            let description = try IdeaRules.normalizedDescription(description)
            let highest = try connection.int64(IdeaRepository.metaValueSQL, MetaKey.highestTimestamp)
            let now = IdeaRepository.stamp(now: clock.now(), highestSeen: highest)
            try connection.run(IdeaRepository.noteSeenSQL, [.text(MetaKey.highestTimestamp), .integer(now.milliseconds)])
            let idea = Idea(
                id: ids.next(), title: title, description: description, isCompleted: isCompleted,
                createdAt: now, updatedAt: now, deviceId: deviceId, version: 0)
            let stamps = FieldStamps(all: SyncOrder(idea))
            let text = SearchText.Indexed(title: idea.title, description: idea.description)
            try connection.run(IdeaRepository.insertIdeaSQL, [
                .text(idea.idString), .text(idea.title), .text(idea.description), .integer(idea.isCompleted ? 1 : 0),
                .integer(idea.createdAt.milliseconds), .integer(idea.updatedAt.milliseconds), .text(idea.deviceId),
                .integer(Int64(idea.version)), .null, .text(text.foldedTitle), .text(text.foldedDescription),
                .integer(stamps.title.timestamp.milliseconds), .text(stamps.title.deviceId),
                .integer(stamps.description.timestamp.milliseconds), .text(stamps.description.deviceId),
                .integer(stamps.isCompleted.timestamp.milliseconds), .text(stamps.isCompleted.deviceId),
            ])
            let localId = connection.lastInsertedRowID
            try connection.run(SearchText.indexTrigramSQL, [.integer(localId), .text(text.foldedTitle), .text(text.foldedDescription)])
            try connection.run(SearchText.indexShortGramSQL, [.integer(localId), .text(text.grams)])
            try connection.run(
                IdeaRepository.enqueueSQL,
                [.text(idea.idString), .text(IdeaRepository.OutboxOperation.save.rawValue), .integer(now.milliseconds)])
            try connection.run(IdeaRepository.bumpRevisionSQL, [.text(MetaKey.revision)])
            try connection.commit()
            return idea
        } catch let error as DatabaseError {
            connection.rollback()
            throw StorageError(error, directory: directory, options: options) ?? error
        } catch {
            connection.rollback()
            throw error
        }
    }

    /// One value bound to a statement.
    enum Value {
        case null
        case integer(Int64)
        case text(String)
    }

    /// A connection opened as `IdeaDatabase.open` opens one for a writing command.
    final class Connection {
        private let handle: OpaquePointer

        /// Opens the file at `path`; nil if SQLite can't (the usual path then says why).
        init?(path: String) {
            var handle: OpaquePointer?
            let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
            guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
                sqlite3_close_v2(handle)
                return nil
            }
            self.handle = handle
            sqlite3_extended_result_codes(handle, 1)
            sqlite3_busy_timeout(handle, Int32(IdeaDatabase.busyTimeout * 1000))
            let raw = UnsafeMutableRawPointer(handle)
            let configured = csqlite_keep_wal_on_close(raw) == SQLITE_OK && sqlite3_exec(handle, Self.pragmas, nil, nil, nil) == SQLITE_OK
            guard configured else {
                sqlite3_close_v2(handle)
                return nil
            }
            csqlite_truncate_wal_after(raw, Int32(IdeaDatabase.writingCommandWALLimit), Int32(IdeaDatabase.busyTimeout * 1000))
        }

        /// `IdeaDatabase`'s settings for a connection of a writing command.
        private static let pragmas = "PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY; PRAGMA journal_size_limit = 4194304"

        /// Starts the write transaction, waiting for other writers as long as GRDB's path
        /// would; false if SQLite can't (the usual path then says why).
        func begin() throws -> Bool {
            sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK
        }

        func commit() throws {
            let code = sqlite3_exec(handle, "COMMIT", nil, nil, nil)
            guard code == SQLITE_OK else { throw error(code) }
        }

        /// Undoes whatever the transaction wrote, if one is open.
        func rollback() {
            if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
        }

        func close() {
            sqlite3_close_v2(handle)
        }

        var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

        /// The device id of a database that needs neither a migration nor its first-launch
        /// rows, as `IdeaDatabase.open` finds it; nil if it needs either or can't be read.
        func preparedDeviceId() throws -> String? {
            // GRDB's `hasCompletedMigrations`: the applied migrations this version knows, in
            // the order it registers them, run up to its last one.
            guard let applied = try? strings("SELECT identifier FROM grdb_migrations") else { return nil }
            // The registered order, without building the migrator (a test holds the two equal).
            let known = IdeaSchema.Migration.allCases.map(\.rawValue)
            let completed = zip(known.filter(applied.contains), known).prefix { $0 == $1 }.map(\.0)
            guard completed.last == known.last else { return nil }
            guard let (deviceId, hasRows) = try? firstLaunchRows(), hasRows else { return nil }
            return deviceId
        }

        /// `IdeaDatabase.firstLaunchRowsSQL`'s answer.
        private func firstLaunchRows() throws -> (String?, Bool) {
            try withStatement(IdeaDatabase.firstLaunchRowsSQL, [.text(MetaKey.deviceId), .text(MetaKey.revision), .text(MetaKey.samples)]) {
                statement in
                guard try step(statement) else { return (nil, false) }
                let deviceId = sqlite3_column_text(statement, 0).map { String(cString: $0) }
                return (deviceId, sqlite3_column_int(statement, 1) != 0)
            }
        }

        /// The first column of every row `sql` reads.
        private func strings(_ sql: String) throws -> [String] {
            try withStatement(sql, []) { statement in
                var values: [String] = []
                while try step(statement) {
                    if let text = sqlite3_column_text(statement, 0) { values.append(String(cString: text)) }
                }
                return values
            }
        }

        /// The first column of the first row `sql` reads with `key`, as an integer; nil if
        /// there is no row or it is NULL.
        func int64(_ sql: String, _ key: String) throws -> Int64? {
            try withStatement(sql, [.text(key)]) { statement in
                guard try step(statement), sqlite3_column_type(statement, 0) != SQLITE_NULL else { return nil }
                return sqlite3_column_int64(statement, 0)
            }
        }

        /// Runs `sql` with `values` to its end.
        func run(_ sql: String, _ values: [Value]) throws {
            try withStatement(sql, values) { statement in
                while try step(statement) {}
            }
        }

        private func withStatement<T>(_ sql: String, _ values: [Value], _ body: (OpaquePointer) throws -> T) throws -> T {
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
            guard code == SQLITE_OK, let statement else { throw error(code) }
            defer { sqlite3_finalize(statement) }
            for (index, value) in values.enumerated() {
                let position = Int32(index + 1)
                let bound: Int32 = switch value {
                case .null: sqlite3_bind_null(statement, position)
                case let .integer(number): sqlite3_bind_int64(statement, position, number)
                // SQLITE_TRANSIENT: SQLite copies the text before the Swift string goes.
                case let .text(text): sqlite3_bind_text(statement, position, text, -1, unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self))
                }
                guard bound == SQLITE_OK else { throw error(bound) }
            }
            return try body(statement)
        }

        /// Steps `statement`: true for a row, false at the end.
        private func step(_ statement: OpaquePointer) throws -> Bool {
            let code = sqlite3_step(statement)
            if code == SQLITE_ROW { return true }
            guard code == SQLITE_DONE else { throw error(code) }
            return false
        }

        private func error(_ code: Int32) -> DatabaseError {
            DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)))
        }
    }
}
