import Foundation
import GRDB
import GRDBSQLite
import IdeaModel

/// One search index of a bulk import (`SearchIndexBuild`), built on a thread and in a
/// temporary database of its own, then copied into the import's database.
final class SearchIndexBuilder: @unchecked Sendable {
    /// How a database declares an index: its statement and its settings.
    struct Declaration: Sendable {
        var table: String
        /// The `CREATE VIRTUAL TABLE` statement.
        var sql: String
        /// Each setting but FTS5's own version (which the statement writes): its key and value.
        var settings: [(key: String, value: DirectValue)]

        /// `table` as `db` declares it; nil if `db` has no such table.
        init?(of table: String, _ db: Database) throws {
            guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE name = ?", arguments: [table]) else {
                return nil
            }
            self.table = table
            self.sql = sql
            settings = try Row.fetchAll(db, sql: "SELECT k, v FROM \"\(table)_config\" WHERE k <> 'version'").map { row in
                let value: DirectValue = switch (row["v"] as DatabaseValue).storage {
                case .int64(let number): .integer(number)
                case .string(let text): .text(text)
                default: .null
                }
                return (row["k"], value)
            }
        }
    }

    /// The tables of an FTS5 index that hold its entries; its settings (`_config`) stay the
    /// database's own.
    private static let entryTables = ["data", "idx"]

    private let table: String
    /// The temporary database's connection: the build's thread's until `join`, then the copy's.
    private let connection: OpaquePointer
    /// The build's thread, until joined.
    private var thread: pthread_t?
    /// Set by `cancel`, read by the build between ideas.
    private let cancelLock = NSLock()
    private var isCancelled = false
    /// Whether the build made the index whole: written by its thread, read after `join`.
    private(set) var isBuilt = false

    /// How an idea's entries are written: the statement (the row id, then the values), and
    /// the values of an idea.
    struct Writing: Sendable {
        var sql: String
        var values: @Sendable (Idea) -> [String]
    }

    /// Starts building `declaration`'s index of `ideas`, the idea at offset `k` at row id
    /// `firstLocalId + k`, written as `writing` says, in the temporary database at `location`,
    /// on a thread at `niceness` (Linux's nice is a thread's own); nil if it can't be opened
    /// or no thread made.
    static func start(
        _ declaration: Declaration, _ writing: Writing, ideas: [ExportedIdea], firstLocalId: Int64, location: String,
        niceness: Int32 = 0
    ) -> SearchIndexBuilder? {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(location, &opened, flags, nil) == SQLITE_OK, let opened else {
            sqlite3_close_v2(opened)
            return nil
        }
        let builder = SearchIndexBuilder(table: declaration.table, connection: opened)
        let started = builder.run {
            if niceness > 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
            builder.isBuilt = builder.build(declaration, writing, ideas: ideas, firstLocalId: firstLocalId)
        }
        return started ? builder : nil
    }

    private init(table: String, connection: OpaquePointer) {
        self.table = table
        self.connection = connection
    }

    deinit {
        sqlite3_close_v2(connection)
    }

    /// Stops the build at its next idea and waits for it.
    func cancel() {
        cancelLock.withLock { isCancelled = true }
        join()
    }

    /// Waits for the build's thread to end, once.
    func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    /// Runs `work` on the build's thread; false if no thread could be made.
    private func run(_ work: @escaping () -> Void) -> Bool {
        final class Work {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Work(work)).toOpaque()
        var made = pthread_t()
        let code = pthread_create(&made, nil, { context in
            Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        guard code == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            return false
        }
        thread = made
        return true
    }

    /// The build, on its thread: the index declared, every idea's entries written, and the
    /// index merged into one segment (FTS5's 'optimize'), as an import leaves it. False if it
    /// failed or was cancelled.
    private func build(_ declaration: Declaration, _ writing: Writing, ideas: [ExportedIdea], firstLocalId: Int64) -> Bool {
        let setUp = ["PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF", "PRAGMA cache_size = -65536", "BEGIN", declaration.sql]
        guard setUp.allSatisfy({ sqlite3_exec(connection, $0, nil, nil, nil) == SQLITE_OK }) else { return false }
        for setting in declaration.settings {
            guard run("INSERT INTO \(table)(\(table), rank) VALUES (?, ?)", [.text(setting.key), setting.value]) else { return false }
        }
        var insert: OpaquePointer?
        guard sqlite3_prepare_v2(connection, writing.sql, -1, &insert, nil) == SQLITE_OK, let insert else { return false }
        defer { sqlite3_finalize(insert) }
        for (offset, entry) in ideas.enumerated() {
            if offset % 1024 == 0, cancelLock.withLock({ isCancelled }) { return false }
            sqlite3_reset(insert)
            bind(insert, [.integer(firstLocalId + Int64(offset))] + writing.values(entry.idea).map { .text($0) })
            guard sqlite3_step(insert) == SQLITE_DONE else { return false }
        }
        let finish = ["INSERT INTO \(table)(\(table)) VALUES ('optimize')", "COMMIT"]
        return finish.allSatisfy { sqlite3_exec(connection, $0, nil, nil, nil) == SQLITE_OK }
    }

    /// Runs `sql` once with `values`; false if it failed.
    private func run(_ sql: String, _ values: [DirectValue]) -> Bool {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return false }
        defer { sqlite3_finalize(statement) }
        bind(statement, values)
        return sqlite3_step(statement) == SQLITE_DONE
    }

    private func bind(_ statement: OpaquePointer, _ values: [DirectValue]) {
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, position)
            case .integer(let number): sqlite3_bind_int64(statement, position, number)
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, Self.transient)
            }
        }
    }

    /// SQLite's `SQLITE_TRANSIENT`: it copies the bound text.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Copies the index's entry tables into `db`'s, whose rows they replace; false if the
    /// built ones could not be read.
    func copy(into db: Database) throws -> Bool {
        try Self.entryTables.allSatisfy { kind in try copy("\(table)_\(kind)", into: db) }
    }

    /// Copies the rows of `table` from the built database into `db`'s.
    private func copy(_ table: String, into db: Database) throws -> Bool {
        var select: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "SELECT * FROM \"\(table)\"", -1, &select, nil) == SQLITE_OK, let select else {
            return false
        }
        defer { sqlite3_finalize(select) }
        let columns = sqlite3_column_count(select)
        let placeholders = Array(repeating: "?", count: Int(columns)).joined(separator: ", ")
        // The statement lives to the end of the copy; its handle is the raw one.
        let statement = try db.makeStatement(sql: "INSERT OR REPLACE INTO \"\(table)\" VALUES (\(placeholders))")
        let insert = statement.sqliteStatement
        defer { withExtendedLifetime(statement) {} }
        while true {
            switch sqlite3_step(select) {
            case SQLITE_ROW:
                sqlite3_reset(insert)
                for column in 0..<columns {
                    sqlite3_bind_value(insert, column + 1, sqlite3_column_value(select, column))
                }
                let code = sqlite3_step(insert)
                guard code == SQLITE_DONE else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(insert))))
                }
            case SQLITE_DONE:
                return true
            default:
                return false
            }
        }
    }
}
