import CSQLiteOptions
import GRDB
import GRDBSQLite
import IdeaModel

/// One value bound to a statement of a `DirectConnection`.
enum DirectValue {
    case null
    case integer(Int64)
    case text(String)
}

/// A connection through SQLite's C API, without GRDB, opened as `IdeaDatabase.open` opens one
/// for a command (`DirectAdd`, `DirectExport`): the same pragmas, WAL hooks and busy timeout.
final class DirectConnection {
    /// SQLite's connection.
    let handle: OpaquePointer

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
        execute("BEGIN IMMEDIATE")
    }

    /// Runs `sql`, statements without arguments or rows; false if SQLite can't.
    func execute(_ sql: String) -> Bool {
        sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK
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
        // the order it registers them, run up to its last one; that is, every one of them
        // (the registered ones, without building the migrator: a test holds the two equal).
        guard let applied = try? strings("SELECT identifier FROM grdb_migrations") else { return nil }
        guard IdeaSchema.Migration.allCases.allSatisfy({ applied.contains($0.rawValue) }) else { return nil }
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

    /// The first two columns of the first row `sql` reads with `values`, as text; nil if
    /// there is no row.
    func textPair(_ sql: String, _ values: [DirectValue]) throws -> (String, String)? {
        try withStatement(sql, values) { statement in
            guard try step(statement) else { return nil }
            func text(_ column: Int32) -> String { sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "" }
            return (text(0), text(1))
        }
    }

    /// Runs `sql` with `values` to its end.
    func run(_ sql: String, _ values: [DirectValue]) throws {
        try withStatement(sql, values) { statement in
            while try step(statement) {}
        }
    }

    /// Runs `body` with `sql` prepared and `values` bound to it.
    func withStatement<T>(_ sql: String, _ values: [DirectValue], _ body: (OpaquePointer) throws -> T) throws -> T {
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
