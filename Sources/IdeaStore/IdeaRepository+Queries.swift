import Foundation
import GRDB
import GRDBSQLite
import IdeaBoxFoundation
import IdeaModel

/// Which ideas a list shows. All Ideas and Completed are in an `IdeaOrder` (newest first,
/// by `createdAt`, unless asked otherwise); search results are newest first.
public enum IdeaFilter: Sendable, Hashable {
    /// Every idea.
    case all
    /// Ideas marked done.
    case completed
    /// Ideas whose title or description contains the query, ignoring case. Surrounding
    /// white space of the query is ignored; an empty query matches nothing.
    case search(String)
}

/// How many ideas each tab holds.
public struct IdeaCounts: Sendable, Equatable {
    /// Every idea.
    public var all: Int
    /// Ideas marked done.
    public var completed: Int

    /// Counts for the All Ideas and Completed tabs.
    public init(all: Int, completed: Int) {
        self.all = all
        self.completed = completed
    }
}

extension IdeaRepository {
    /// Reads every page of the database (SQLite's `quick_check`) and throws the damage it
    /// finds, as a read of a damaged page does: for what answers for the whole database
    /// (`status`, the app's start), which would otherwise read only the pages it needs and
    /// say nothing of the rest.
    public func checkEveryPage() throws {
        try connection.read { db in
            let findings = try String.fetchAll(db, sql: "PRAGMA quick_check(1)")
            guard findings == ["ok"] else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: findings.first ?? "quick_check found damage")
            }
        }
    }

    /// Up to this many index hits, a search sorts the hits themselves.
    static let searchSortLimit = 300

    /// Up to this many hits, a search walks the small `createdAt` index newest first and
    /// keeps the ideas among the hits, stopping once it has the page. Above it, for a small
    /// page, it walks the ideas and compares their folded text instead: a word that common
    /// fills a page within a few hundred rows, sooner than its hits could be gathered.
    public static let searchCandidateLimit = 1000

    /// The largest `offset + limit` for which walking the text pays off; reading further,
    /// or everything, uses the index hits.
    static let searchWalkWindow = 1000

    /// A page of a list: at most `limit` ideas after skipping `offset`.
    ///
    /// `total`, the list's size when the caller knows it, lets a page in the back half of
    /// All Ideas or Completed be read from the oldest end, so `End` on 100,000 ideas skips
    /// a few rows instead of nearly all of them; for a search, it is the number of index
    /// hits (counted at least up to `searchCandidateLimit + 1`) and spares counting them.
    public func ideas(
        _ filter: IdeaFilter, offset: Int = 0, limit: Int, total: Int? = nil, order: IdeaOrder = .newestFirst
    ) throws -> [Idea] {
        if let total, filter == .all || filter == .completed, offset > total / 2, offset < total {
            let end = min(total, offset + limit)
            return try connection.read { db in
                let source = filter == .completed ? "\(order.completedSource) WHERE isCompleted = 1" : "idea"
                return try Idea.fetchAll(
                    db,
                    sql: """
                        SELECT \(Idea.selectedColumns) FROM \(source)
                        \(order.orderBy(backwards: true)) LIMIT ? OFFSET ?
                        """,
                    arguments: [end - offset, total - end])
                    .reversed()
            }
        }
        return try connection.read { db in
            // `limit: .max` means "all of them": no window, and no overflow.
            let window = offset.addingReportingOverflow(limit)
            let knownHits: Int? = if case .search = filter { total } else { nil }
            guard let query = try listQuery(
                filter, order: order, window: window.overflow ? nil : window.partialValue, knownHits: knownHits, db)
            else { return [] }
            return try Idea.fetchAll(
                db, sql: query.sql + " LIMIT ? OFFSET ?", arguments: query.arguments + [limit, offset])
        }
    }

    /// Calls `body` with each idea of a list in order, reading them as it goes rather than
    /// all at once. `limit` caps how many.
    public func forEachIdea(
        _ filter: IdeaFilter, order: IdeaOrder = .newestFirst, limit: Int? = nil, _ body: (Idea) throws -> Void
    ) throws {
        try connection.read { db in
            guard let query = try listQuery(filter, order: order, window: limit, db) else { return }
            let cursor = try Idea.fetchCursor(
                db, sql: query.sql + " LIMIT ?", arguments: query.arguments + [limit ?? -1])
            while let idea = try cursor.next() {
                try body(idea)
            }
        }
    }

    /// Like `forEachIdea`, but hands `body` each idea's fields as bytes straight from the
    /// row, valid until `body` returns: `export` writes them out without making a `String`,
    /// a `UUID` or an `Idea` of each.
    ///
    /// A read of a whole list (no `limit`: `export`) reads the file through a memory map.
    /// It touches most of the idea table's pages once, and one page fault maps sixteen of
    /// them where the page cache reads each with its own `pread`: 3,000 system calls at
    /// 10,000 ideas, 12% of `export`. The mapped pages count in the process's RSS, so reads
    /// of a page (`list`, `search`) keep the page cache.
    ///
    /// Every idea newest first (`export`) is read by walking the table itself, newest row
    /// first, when that is the same order, rather than the `createdAt` index with a seek
    /// into the table for each row (a tenth of `export`): ideas are mostly added in the
    /// order they were made. Whether it is (`tableIsNewestFirst`) takes a walk of the small
    /// index alone, a thirtieth of the table's.
    ///
    /// `withStamps` hands each idea its field stamps too (`export`).
    public func forEachIdeaBytes(
        _ filter: IdeaFilter, order: IdeaOrder = .newestFirst, limit: Int? = nil, withStamps: Bool = false,
        _ body: (IdeaBytes) throws -> Void
    ) throws {
        try connection.read { db in
            if limit == nil { try db.execute(sql: "PRAGMA mmap_size = \(Self.wholeListMapSize)") }
            defer { if limit == nil { try? db.execute(sql: "PRAGMA mmap_size = 0") } }
            if filter == .all, order == .newestFirst, limit == nil, try Self.tableIsNewestFirst(db) {
                let walk = try db.makeStatement(sql: withStamps ? Self.exportWalkSQL : Self.tableWalkSQL)
                return try withExtendedLifetime(walk) { try Self.stepIdeaBytes(walk.sqliteStatement, db.sqliteConnection, body) }
            }
            let columns = withStamps ? Self.exportColumns : Idea.selectedColumns
            guard let query = try listQuery(filter, order: order, window: limit, columns: columns, db) else { return }
            let statement = try db.makeStatement(sql: query.sql + " LIMIT ?")
            try statement.setArguments(query.arguments + [limit ?? -1])
            try withExtendedLifetime(statement) { try Self.stepIdeaBytes(statement.sqliteStatement, db.sqliteConnection, body) }
        }
    }

    /// Every idea's `Idea.selectedColumns`, newest row first.
    static let tableWalkSQL = "SELECT \(Idea.selectedColumns) FROM idea ORDER BY localId DESC"

    /// `Idea.selectedColumns`, then the field stamps' `FieldStamps.columns`: what `export` reads.
    static let exportColumns = "\(Idea.selectedColumns), \(FieldStamps.columns)"

    /// Every idea's `exportColumns`, newest row first.
    static let exportWalkSQL = "SELECT \(exportColumns) FROM idea ORDER BY localId DESC"

    /// The row ids of `IdeaOrder.newestFirst`'s order, read from its index.
    static let newestFirstRowIdsSQL = "SELECT localId FROM idea \(IdeaOrder.newestFirst.orderBy())"

    /// Whether the idea table, newest row first, is in `IdeaOrder.newestFirst`'s order:
    /// whether that order's row ids, read from its index, only go down.
    static func tableIsNewestFirst(_ db: Database) throws -> Bool {
        let statement = try db.makeStatement(sql: newestFirstRowIdsSQL)
        // The statement lives while its rows are read: GRDB finalizes it when it goes.
        return try withExtendedLifetime(statement) { try rowIdsGoDown(statement.sqliteStatement, db.sqliteConnection) }
    }

    /// Whether the row ids `row` (a statement of `newestFirstRowIdsSQL` on `connection`) reads only go down.
    static func rowIdsGoDown(_ row: OpaquePointer, _ connection: OpaquePointer?) throws -> Bool {
        defer { sqlite3_reset(row) }
        var previous = Int64.max
        while true {
            let code = sqlite3_step(row)
            if code == SQLITE_DONE { return true }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
            }
            let localId = sqlite3_column_int64(row, 0)
            guard localId < previous else { return false }
            previous = localId
        }
    }

    /// Hands `body` each row of `row`, a statement on `connection` that selects
    /// `Idea.selectedColumns`, as `IdeaBytes`.
    static func stepIdeaBytes(
        _ row: OpaquePointer, _ connection: OpaquePointer?, _ body: (IdeaBytes) throws -> Void
    ) throws {
        func text(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
            let start = sqlite3_column_text(row, column)
            return UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(row, column)))
        }
        func time(_ column: Int32) -> Timestamp {
            Timestamp(milliseconds: sqlite3_column_int64(row, column))
        }
        defer { sqlite3_reset(row) }
        while true {
            let code = sqlite3_step(row)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
            }
            // The columns of `Idea.selectedColumns`, in order, as `Idea(row:)` reads them; then
            // those of `FieldStamps.columns` if read (`exportColumns`), unless a row written
            // before stamps existed left them NULL.
            func stamp(_ column: Int32) -> IdeaBytes.Stamp? {
                guard sqlite3_column_type(row, column) != SQLITE_NULL, sqlite3_column_type(row, column + 1) != SQLITE_NULL
                else { return nil }
                return IdeaBytes.Stamp(time: time(column), deviceId: text(column + 1))
            }
            func emit(id: UnsafeBufferPointer<UInt8>) throws {
                var stamps: IdeaBytes.Stamps?
                if sqlite3_column_count(row) >= 15, let title = stamp(9), let description = stamp(11), let isCompleted = stamp(13) {
                    stamps = IdeaBytes.Stamps(title: title, description: description, isCompleted: isCompleted)
                }
                try body(IdeaBytes(
                    id: id, title: text(1), description: text(2), isCompleted: sqlite3_column_int(row, 3) != 0,
                    createdAt: time(4), updatedAt: time(5), deviceId: text(6), version: Int(sqlite3_column_int64(row, 7)),
                    lastSyncedAt: sqlite3_column_type(row, 8) == SQLITE_NULL ? nil : time(8), stamps: stamps))
            }
            let id = text(0)
            if IdeaBytes.isIdText(id) {
                try emit(id: id)
            } else {
                // Spelled some other way (upper-case, say): as `Idea.idString` spells it.
                let idText = String(decoding: id, as: UTF8.self)
                guard var spelled = UUID(hexText: idText)?.lowercasedString else {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "idea id \(idText) is not a UUID")
                }
                try spelled.withUTF8 { try emit(id: $0) }
            }
        }
    }

    /// How much of the file a read of a whole list maps: all of it (SQLite maps at most
    /// 2 GB, its compiled-in limit).
    static let wholeListMapSize: Int64 = 1 << 40

    /// How many ideas a list holds.
    public func count(_ filter: IdeaFilter) throws -> Int {
        try connection.read { db in
            switch filter {
            case .all:
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM idea") ?? 0
            case .completed:
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM idea WHERE isCompleted = 1") ?? 0
            case .search(let query):
                guard let folded = Self.foldedQuery(query) else { return 0 }
                let hits = SearchText.plan(forFoldedQuery: folded).hitsFromIndex
                return try Int.fetchOne(db, sql: "SELECT count(*) \(hits.sql)", arguments: hits.arguments) ?? 0
            }
        }
    }

    /// How many ideas a list holds, counting no further than `cap`: cheap even for a
    /// search of a very common word.
    public func count(_ filter: IdeaFilter, upTo cap: Int) throws -> Int {
        guard case .search(let query) = filter else { return min(try count(filter), cap) }
        guard let folded = Self.foldedQuery(query) else { return 0 }
        return try connection.read { db in try Self.hitCount(SearchText.plan(forFoldedQuery: folded), upTo: cap, db) }
    }

    /// How many of a search's candidates are hits, counting no further than `cap`.
    private static func hitCount(_ plan: SearchText.Plan, upTo cap: Int, _ db: Database) throws -> Int {
        let hits = plan.hitsFromIndex
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 \(hits.sql) LIMIT ?)", arguments: hits.arguments + [cap]) ?? 0
    }

    /// The counts of the All Ideas and Completed tabs, read together.
    public func counts() throws -> IdeaCounts {
        try connection.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM idea) AS allCount,
                       (SELECT count(*) FROM idea WHERE isCompleted = 1) AS completedCount
                """)!
            return IdeaCounts(all: row["allCount"], completed: row["completedCount"])
        }
    }

    /// The idea with this id, if it exists.
    public func idea(id: UUID) throws -> Idea? {
        try connection.read { db in try fetchIdea(id: id, db) }
    }

    /// The one idea whose id is `text` or starts with it (case-insensitive), as the command
    /// line takes ids.
    public func idea(matching text: String) throws -> Idea {
        let prefix = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !prefix.isEmpty, prefix.count <= 36,
              prefix.unicodeScalars.allSatisfy({ $0 == "-" || $0.properties.isASCIIHexDigit })
        else { throw IdeaStoreError.malformedId(text) }
        let matches = try connection.read { db in
            try Idea.fetchAll(
                db, sql: "SELECT \(Idea.selectedColumns) FROM idea WHERE id GLOB ? LIMIT 2",
                arguments: [prefix + "*"])
        }
        switch matches.count {
        case 0:
            throw IdeaStoreError.unknownId(text)
        case 1:
            return matches[0]
        default:
            let total = try connection.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM idea WHERE id GLOB ?", arguments: [prefix + "*"]) ?? 0
            }
            throw IdeaStoreError.ambiguousId(text, matches: total)
        }
    }

    /// How long a change may wait for the remote's confirmation before it is stale: 30 days.
    public static let staleAfterMilliseconds: Int64 = 30 * 24 * 3600 * 1000

    /// The ideas (or deletes) with a change the remote has not confirmed for 30 days, on a
    /// device that has synced before (a device that never synced waits for nothing). They
    /// stay in the outbox and go out when sync works again; this only names them.
    public func staleIdeaIds() throws -> Set<UUID> {
        let cutoff = clock.now().milliseconds - Self.staleAfterMilliseconds
        return try connection.read { db in
            guard try Self.hasSynced(db) else { return [] }
            let ids = try String.fetchAll(db, sql: "SELECT ideaId FROM outbox WHERE \(Self.staleSQL)", arguments: [cutoff])
            return Set(ids.compactMap(UUID.init(uuidString:)))
        }
    }

    /// How many of those changes there are, for `ideabox sync status`.
    public func staleChangeCount() throws -> Int {
        let cutoff = clock.now().milliseconds - Self.staleAfterMilliseconds
        return try connection.read { db in
            guard try Self.hasSynced(db) else { return 0 }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE \(Self.staleSQL)", arguments: [cutoff]) ?? 0
        }
    }

    /// The outbox entries waiting since the cutoff (the one argument) or longer: read through
    /// `outbox_by_pendingSince`.
    private static let staleSQL = "COALESCE(pendingSince, enqueuedAt) <= ?"

    /// Whether this device has synced before (a device that never synced waits for nothing).
    /// Asked apart from the outbox: inside its WHERE, SQLite would ask it for every entry
    /// the index range holds (2.8 s for a million).
    private static func hasSynced(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT isSyncEnabled FROM syncMetadata WHERE id = 1") ?? false
    }

    /// How many changes wait in the outbox for the sync engine.
    public func pendingChangeCount() throws -> Int {
        try connection.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox") ?? 0 }
    }

    /// A number that grows with every committed change, from any process. Cheap enough to
    /// poll: a screen re-reads its lists only when this moves.
    public func revision() throws -> Int64 {
        try connection.read { db in
            try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.revision]) ?? 0
        }
    }

    func fetchIdea(id: UUID, _ db: Database) throws -> Idea? {
        try Idea.fetchOne(
            db.cachedStatement(sql: "SELECT \(Idea.selectedColumns) FROM idea WHERE id = ?"), arguments: [id.lowercasedString])
    }

    /// The SELECT, in `listOrder` (a search: newest first) and without LIMIT, for reading the
    /// first `window` ideas of a list (nil: all of them); nil when it can't match anything.
    ///
    /// `knownHits`, a search's number of index hits when the caller already counted them
    /// (at least up to `searchCandidateLimit + 1`), spares counting them again.
    private func listQuery(
        _ filter: IdeaFilter, order listOrder: IdeaOrder = .newestFirst, window: Int?, knownHits: Int? = nil,
        columns: String = Idea.selectedColumns, _ db: Database
    ) throws -> (sql: String, arguments: StatementArguments)? {
        let select = "SELECT \(columns) FROM idea"
        let order = IdeaOrder.newestFirst.orderBy()
        switch filter {
        case .all:
            return ("\(select) \(listOrder.orderBy())", [])
        case .completed:
            return (
                "SELECT \(columns) FROM \(listOrder.completedSource) WHERE isCompleted = 1 \(listOrder.orderBy())", []
            )
        case .search(let query):
            guard let folded = Self.foldedQuery(query) else { return nil }
            let plan = SearchText.plan(forFoldedQuery: folded)
            let hits = try knownHits ?? Self.hitCount(plan, upTo: Self.searchCandidateLimit + 1, db)
            let matches = plan.hits
            switch hits {
            case 0:
                return nil
            case ...Self.searchSortLimit:
                return ("\(select) WHERE \(matches.condition) \(order)", matches.arguments)
            case ...Self.searchCandidateLimit:
                return ("\(select) INDEXED BY idea_by_createdAt WHERE \(matches.condition) \(order)", matches.arguments)
            default:
                if (window ?? .max) > Self.searchWalkWindow {
                    return ("\(select) WHERE \(matches.condition) \(order)", matches.arguments)
                }
                return (
                    "\(select) WHERE (instr(foldedTitle, ?) > 0 OR instr(foldedDescription, ?) > 0) \(order)",
                    [folded, folded]
                )
            }
        }
    }

    private static func foldedQuery(_ query: String) -> String? {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : SearchText.fold(trimmed)
    }
}
