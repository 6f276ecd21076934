import CloudKitModel
import Foundation
import GRDB
import ServerStore

/// `records/query`, filtered and sorted in SQL (see `QuerySQL`, `QueryPager`).
extension SQLiteRecordStore {
    /// One page of `query` over `account`'s zones.
    public func query(account: String, _ query: StoredQuery) async throws -> StoredQueryPage {
        try await makeQueryable(query.fieldNames, of: query.recordType, account: account)
        return try await QueryPager.page(
            query, dialect: .sqlite, reading: SQLiteQueryReading(writer: writer, account: account, sorts: query.sorts))
    }

    /// Marks `fieldNames` of `recordType` queryable in `account` (`QueryableFields`) and
    /// returns their fill, unless they are ready.
    ///
    /// The file has one write lock, which every account's saves share, so the fill never
    /// holds it long: the marks are committed first, not ready (at most
    /// `QueryableFields.maximumMarks` of them, or `LimitReached`), and the zones to read are
    /// read in the same transaction (a zone made after it holds only records saved after the
    /// marks); then `fillQueryable` keys the records of the type zone by zone along
    /// `record_by_type`, each batch (`fillBatch`) in a write transaction of its own. A save
    /// reads the marks, ready or not, inside its write transaction and keeps the keys itself,
    /// so it is wholly before or after each batch: a record it writes behind the fill's
    /// position has its keys, one ahead of it is keyed again (to the same keys) when the fill
    /// gets there. The marks are set ready with the last batch. A fill that fails or stops
    /// leaves them not ready, and the next query that names them fills them again.
    public func markQueryable(_ fieldNames: Set<String>, of recordType: String, account: String) async throws -> QueryableFill? {
        guard !fieldNames.isEmpty else { return nil }
        let ready = try await writer.read { db in try Self.readyFields(of: recordType, account: account, db) }
        guard !fieldNames.isSubset(of: ready) else { return nil }
        return try await writer.write { db -> QueryableFill? in
            let unmarked = try Self.queryableFields(of: account, db).admitting(fieldNames, of: recordType)
            let mark = try db.cachedStatement(
                sql: "INSERT INTO queryableField (account, recordType, fieldName, ready) VALUES (?, ?, ?, 0)")
            for fieldName in unmarked { try mark.execute(arguments: [account, recordType, fieldName]) }
            let filling = fieldNames.subtracting(try Self.readyFields(of: recordType, account: account, db))
            guard !filling.isEmpty else { return nil }
            let zones = try Int64.fetchAll(db, sql: "SELECT id FROM zone WHERE account = ? ORDER BY id", arguments: [account])
            return QueryableFill(account: account, recordType: recordType, fieldNames: filling, zones: zones)
        }
    }

    /// Keys `fill`'s next batch in a write transaction of its own (see `markQueryable`), or
    /// sets its marks ready once its zones are read.
    public func fillQueryable(_ fill: QueryableFill) async throws -> QueryableFill? {
        try await writer.write { [fillBatch] db -> QueryableFill? in
            var fill = fill
            // Another fill (of a query naming more fields, or in another process) may have
            // made some ready.
            fill.fieldNames.subtract(try Self.readyFields(of: fill.recordType, account: fill.account, db))
            guard !fill.fieldNames.isEmpty else { return nil }
            while let zone = fill.zones.first {
                if let batch = try Self.fillBatch(fill.queryable, of: fill.recordType, zone: zone, after: fill.after, limits: fillBatch, db) {
                    fill.after = batch.last
                    fill.keyed += batch.count
                    return fill
                }
                fill.finishZone()
            }
            let setReady = try db.cachedStatement(
                sql: "UPDATE queryableField SET ready = 1 WHERE account = ? AND recordType = ? AND fieldName = ?")
            for fieldName in fill.fieldNames { try setReady.execute(arguments: [fill.account, fill.recordType, fieldName]) }
            return nil
        }
    }

    /// Stores `keys` for the next records of `recordType` in `zone` after the name `after`:
    /// at most `limits.records` of them and about `limits.bytes` of their fields (always
    /// one). Returns the name of the last and how many there were, or nil if there was none.
    private static func fillBatch(
        _ keys: QueryableFields, of recordType: String, zone: Int64, after: String, limits: (records: Int, bytes: Int), _ db: Database
    ) throws -> (last: String, count: Int)? {
        let insert = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO recordField (zoneId, recordName, fieldName, recordType, valueKey) VALUES (?, ?, ?, ?, ?)")
        let records = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT recordName, fields FROM record
                    WHERE zoneId = ? AND recordType = ? AND recordName > ? ORDER BY recordName LIMIT ?
                    """),
            arguments: [zone, recordType, after, limits.records])
        var last: String?
        var count = 0
        var bytes = 0
        while bytes < limits.bytes, let record = try records.next() {
            let name: String = record[0]
            let fields: String = record[1]
            for (fieldName, key) in keys.keys(of: try StoredFields.decode(fields), recordType: recordType) {
                try insert.execute(arguments: [zone, name, fieldName, recordType, key])
            }
            bytes += fields.utf8.count
            count += 1
            last = name
        }
        return last.map { ($0, count) }
    }

    /// The fields of `recordType` in `account` whose fill is done.
    private static func readyFields(of recordType: String, account: String, _ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(
            db.cachedStatement(sql: "SELECT fieldName FROM queryableField WHERE account = ? AND recordType = ? AND ready"),
            arguments: [account, recordType]))
    }
}

/// The reads of one query, each in a snapshot of its own.
private struct SQLiteQueryReading: QueryReading {
    let writer: any DatabaseWriter
    let account: String
    let sorts: [StoredQuery.Sort]

    func zoneRowID(_ zone: RecordZoneID) async throws -> Int64 {
        try await writer.read { [account] db in
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM zone WHERE account = ? AND name = ?", arguments: [account, zone.zoneName])
            guard let id else { throw CloudError.zoneNotFound }
            return id
        }
    }

    func positions(_ statement: QuerySQL.Statement, in zone: RecordZoneID) async throws -> [QueryPosition] {
        try await writer.read { [sorts] db in
            let arguments = StatementArguments(statement.arguments.map(\.databaseValue))
            return try Row.fetchAll(db, sql: statement.sql, arguments: arguments).map { row in
                let values = sorts.enumerated().map { index, sort -> QueryPosition.Value in
                    switch sort.field {
                    case .field: (row[index + 1] as Data?).map(QueryPosition.Value.key) ?? .missing
                    case .recordName: .name(row[index + 1])
                    case .createdTimestamp, .modifiedTimestamp: .time(row[index + 1])
                    }
                }
                return QueryPosition(values: values, recordName: row[0], zoneName: zone.zoneName)
            }
        }
    }

    func records(named names: [String], zoneRowID: Int64, in zone: RecordZoneID) async throws -> [RemoteRecord] {
        guard !names.isEmpty else { return [] }
        return try await writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT recordName, recordType, changeTag, creationDate, modificationDate, fields
                    FROM record WHERE zoneId = ? AND recordName IN (\(databaseQuestionMarks(count: names.count)))
                    """,
                arguments: StatementArguments([zoneRowID.databaseValue] + names.map(\.databaseValue)))
            return try rows.map { row in try StoredRecord.decode(row, recordID: RecordID(recordName: row[0], zoneID: zone), from: 1) }
        }
    }
}

extension QuerySQL.Argument {
    /// The value SQLite binds.
    var databaseValue: DatabaseValue {
        switch self {
        case .blob(let data): data.databaseValue
        case .text(let text): text.databaseValue
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        }
    }
}
