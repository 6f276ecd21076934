import Foundation
import GRDB
import IdeaBoxFoundation

/// Everything that could still be read of a damaged IdeaBox database, table by table (the
/// ideas page by page too, `addIdeas`), and how it goes into a fresh one: the ideas (indexed
/// for search anew), deletes, changes waiting to be sent, the remote's tags, the history, the
/// logs, this device's identity and its account. The change token stays behind: the next sync
/// fetches everything again and brings back what was on the damaged pages.
struct Salvage {
    /// The tables copied as they are, the columns they share with the fresh database.
    static let copiedTables = ["tombstone", "outbox", "remoteTag", "remoteRecordName", "ideaHistory", "conflictLog", "syncLog"]

    /// What was read of each table, by name.
    var tables: [String: TableSalvage] = [:]
    /// The ideas (by `localId`) the damaged database names, in its indexes of the ideas or in
    /// cells of their pages that could not be read: those not kept are what could not be read.
    var namedIdeas: Set<Int64> = []
    /// Whether an index of the ideas read whole, and so `namedIdeas` names every idea.
    var namesEveryIdea = false

    /// The tables read, each with the columns a fresh database has (`fresh`, which the
    /// migrations made), but the search copies of an idea's text, which are made anew, as
    /// the search index is.
    static func columns(of fresh: Database) throws -> [String: [String]] {
        var columns: [String: [String]] = [:]
        for table in ["idea", "meta", "syncMetadata"] + copiedTables {
            columns[table] = try String.fetchAll(fresh, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                .filter { !["foldedTitle", "foldedDescription"].contains($0) }
        }
        return columns
    }

    /// The ideas table's columns in the order its rows store them, as the migrations made it
    /// in `fresh` (and so in every IdeaBox database).
    static func ideaLayout(of fresh: Database) throws -> [String] {
        try String.fetchAll(fresh, sql: "SELECT name FROM pragma_table_info('idea') ORDER BY cid")
    }

    /// Reads `columns` (see `columns(of:)`) of `damaged`, as far as each table reads, and the
    /// ideas its indexes name.
    static func read(_ damaged: Database, columns: [String: [String]]) -> Salvage {
        var salvage = Salvage()
        for (table, wanted) in columns {
            salvage.tables[table] = TableSalvage.read(table, columns: wanted, from: damaged)
        }
        (salvage.namedIdeas, salvage.namesEveryIdea) = indexedIdeas(damaged)
        return salvage
    }

    /// The `localId` of every idea an index of the ideas table names, as far as each reads
    /// (up from its start, else down from its end), and whether one read whole: each index is
    /// a b-tree of its own, whole or damaged apart from the table's, which a covering scan of
    /// it never reads.
    private static func indexedIdeas(_ damaged: Database) -> (named: Set<Int64>, oneWhole: Bool) {
        var named: Set<Int64> = []
        var oneWhole = false
        let indexes = (try? String.fetchAll(damaged, sql: "SELECT name FROM pragma_index_list('idea')")) ?? []
        for index in indexes {
            guard let first = try? String.fetchOne(
                damaged, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno LIMIT 1", arguments: [index])
            else { continue }
            for order in ["ASC", "DESC"] {
                do {
                    let cursor = try Int64.fetchCursor(damaged, sql: """
                        SELECT localId FROM idea INDEXED BY \(index.quotedDatabaseIdentifier) \
                        ORDER BY \(first.quotedDatabaseIdentifier) \(order)
                        """)
                    while let localId = try cursor.next() { named.insert(localId) }
                    oneWhole = oneWhole || order == "ASC"
                    break
                } catch {
                    continue
                }
            }
        }
        return (named, oneWhole)
    }

    /// Adds the ideas found on the pages of the damaged file (`found`) that the walk of the
    /// table's b-tree did not reach, but for a deleted one (its tombstone kept), each with the
    /// `columns` a fresh database has (see `columns(of:)`).
    mutating func addIdeas(_ found: PageSalvage, columns wanted: [String]) {
        let walked = tables["idea"]
        let columns = walked.flatMap { $0.columns.isEmpty ? nil : $0.columns } ?? wanted
        var rows = walked?.rows ?? []
        let localId = columns.firstIndex(of: "localId")
        let known = Set(rows.compactMap { row in localId.flatMap { Int64.fromDatabaseValue(row[$0]) } })
        var deleted: Set<String> = []
        if let tombstones = tables["tombstone"], let column = tombstones.columns.firstIndex(of: "ideaId") {
            deleted = Set(tombstones.rows.compactMap { String.fromDatabaseValue($0[column]) })
        }
        for (rowid, row) in found.rows.sorted(by: { $0.key < $1.key }) where !known.contains(rowid) {
            guard let id = row["id"].flatMap(String.fromDatabaseValue), !deleted.contains(id) else { continue }
            rows.append(columns.map { row[$0] ?? .null })
        }
        tables["idea"] = TableSalvage(columns: columns, rows: rows, isComplete: walked?.isComplete ?? false)
        namedIdeas.formUnion(found.unreadable)
    }

    /// Whether the table named `table` was read whole.
    func isComplete(_ table: String) -> Bool {
        tables[table]?.isComplete ?? false
    }

    /// Writes what was read into `db`, a fresh database the migrations made, in one
    /// transaction; a row that breaks a rule of the fresh schema is left out, as an unreadable
    /// one is. `newDeviceId` is this device's id if its own was lost.
    func write(into db: Database, newDeviceId: String) throws {
        try db.execute(sql: "PRAGMA cache_size = \(IdeaDatabase.bigTransactionCacheSize)")
        let meta = metaValues()
        let deviceId = meta[MetaKey.deviceId].flatMap(String.fromDatabaseValue) ?? newDeviceId
        try writeIdeas(db)
        for table in Self.copiedTables {
            try copy(table, into: db)
        }
        // A delete waiting to be sent whose tombstone was lost: it was made on this device,
        // queued at the time it was stamped with.
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO tombstone (ideaId, deletedAt, deviceId)
                SELECT ideaId, enqueuedAt, ? FROM outbox
                WHERE operation = 'delete' AND ideaId NOT IN (SELECT id FROM idea)
                """,
            arguments: [deviceId])
        // Changes of ideas or deletes that were lost: what they would send is gone. So is the
        // remote's tag of what this device held of them: the sync takes the remote's version
        // as news, not as the copy of one it has.
        try db.execute(sql: """
            DELETE FROM outbox WHERE operation = 'save' AND ideaId NOT IN (SELECT id FROM idea);
            DELETE FROM outbox WHERE operation = 'delete' AND ideaId NOT IN (SELECT ideaId FROM tombstone);
            DELETE FROM remoteTag WHERE ideaId NOT IN (SELECT id FROM idea) AND ideaId NOT IN (SELECT ideaId FROM tombstone);
            """)
        try writeMeta(meta, deviceId: deviceId, db)
        try writeSyncMetadata(db)
    }

    /// The ideas, each with its search text worked out and indexed.
    private func writeIdeas(_ db: Database) throws {
        guard let ideas = tables["idea"] else { return }
        let columns = ["localId"] + ideas.columns.filter { $0 != "localId" } + ["foldedTitle", "foldedDescription"]
        let statement = try db.makeStatement(sql: """
            INSERT INTO idea (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            """)
        let position = Dictionary(uniqueKeysWithValues: ideas.columns.enumerated().map { ($1, $0) })
        for row in ideas.rows {
            func value(_ column: String) -> DatabaseValue { position[column].map { row[$0] } ?? .null }
            guard let localId = Int64.fromDatabaseValue(value("localId")), Self.isWellFormedIdea(value) else { continue }
            let text = SearchText.Indexed(
                title: String.fromDatabaseValue(value("title")) ?? "", description: String.fromDatabaseValue(value("description")) ?? "")
            let values = [localId.databaseValue] + ideas.columns.filter { $0 != "localId" }.map(value)
                + [text.foldedTitle.databaseValue, text.foldedDescription.databaseValue]
            do {
                try statement.execute(arguments: StatementArguments(values))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                continue
            }
            try SearchText.index(db, localId: localId, text)
        }
    }

    /// Whether an idea's row holds values of the types its columns are read as, so that no
    /// read of it later fails: a page can be damaged in a way SQLite reads without an error.
    static func isWellFormedIdea(_ value: (String) -> DatabaseValue) -> Bool {
        func isText(_ column: String) -> Bool { String.fromDatabaseValue(value(column)) != nil }
        func isInteger(_ column: String) -> Bool {
            if case .int64 = value(column).storage { true } else { false }
        }
        func isOptional(_ column: String, _ check: (String) -> Bool) -> Bool { value(column).isNull || check(column) }
        guard let id = String.fromDatabaseValue(value("id")), UUID(hexText: id) != nil else { return false }
        return isText("title") && isText("description") && isText("deviceId")
            && ["isCompleted", "createdAt", "updatedAt", "version"].allSatisfy(isInteger)
            && isOptional("lastSyncedAt", isInteger)
            && ["titleAt", "descriptionAt", "completedAt"].allSatisfy { isOptional($0, isInteger) }
            && ["titleBy", "descriptionBy", "completedBy"].allSatisfy { isOptional($0, isText) }
    }

    /// Copies a table's rows as they are.
    private func copy(_ table: String, into db: Database) throws {
        guard let salvage = tables[table], !salvage.rows.isEmpty else { return }
        let statement = try db.makeStatement(sql: """
            INSERT OR IGNORE INTO \(table.quotedDatabaseIdentifier) \
            (\(salvage.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) \
            VALUES (\(Array(repeating: "?", count: salvage.columns.count).joined(separator: ", ")))
            """)
        for row in salvage.rows {
            do {
                try statement.execute(arguments: StatementArguments(row))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                continue
            }
        }
    }

    /// The `meta` table's values that were read, by key.
    private func metaValues() -> [String: DatabaseValue] {
        guard let meta = tables["meta"], let key = meta.columns.firstIndex(of: "key"), let value = meta.columns.firstIndex(of: "value")
        else { return [:] }
        return Dictionary(meta.rows.compactMap { row in String.fromDatabaseValue(row[key]).map { ($0, row[value]) } }) { first, _ in first }
    }

    /// This device's id, whether its samples were seeded (never again: a repair is no first
    /// launch), the revision (past the damaged file's, so a screen that read it reloads) and
    /// its clock (past every stamp kept).
    private func writeMeta(_ meta: [String: DatabaseValue], deviceId: String, _ db: Database) throws {
        let revision = (meta["revision"].flatMap(Int64.fromDatabaseValue) ?? 0) + 1
        let seen = try Int64.fetchOne(db, sql: """
            SELECT max(
                (SELECT ifnull(max(max(updatedAt, ifnull(titleAt, 0), ifnull(descriptionAt, 0), ifnull(completedAt, 0))), 0) FROM idea),
                (SELECT ifnull(max(deletedAt), 0) FROM tombstone))
            """) ?? 0
        let highest = max(meta[MetaKey.highestTimestamp].flatMap(Int64.fromDatabaseValue) ?? 0, seen)
        let samples = meta[MetaKey.samples].flatMap(String.fromDatabaseValue) ?? "skipped"
        for (key, value) in [
            (MetaKey.deviceId, deviceId.databaseValue), (MetaKey.samples, samples.databaseValue),
            (MetaKey.revision, revision.databaseValue), (MetaKey.highestTimestamp, highest.databaseValue),
        ] {
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// Whether sync was on, when it last worked and the account these ideas belong to; no
    /// change token, so the next sync fetches everything from the start.
    private func writeSyncMetadata(_ db: Database) throws {
        guard let metadata = tables["syncMetadata"], let row = metadata.rows.first else { return }
        for column in ["isSyncEnabled", "lastSyncAt", "accountName"] {
            guard let index = metadata.columns.firstIndex(of: column) else { continue }
            try db.execute(
                sql: "UPDATE syncMetadata SET \(column.quotedDatabaseIdentifier) = ? WHERE id = 1", arguments: [row[index]])
        }
    }
}
