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
    /// stores the keys of those fields of the records already saved, in one write
    /// transaction: a save is wholly before it (and its record is read here) or after it
    /// (and keeps the keys itself).
    func makeQueryable(_ fieldNames: Set<String>, of recordType: String, account: String) async throws {
        guard !fieldNames.isEmpty else { return }
        let marked = try await writer.read { db in try Self.queryableFields(of: account, db).fields(of: recordType) }
        guard !fieldNames.isSubset(of: marked) else { return }
        try await writer.write { db in
            let missing = fieldNames.subtracting(try Self.queryableFields(of: account, db).fields(of: recordType))
            guard !missing.isEmpty else { return }
            let mark = try db.cachedStatement(sql: "INSERT INTO queryableField (account, recordType, fieldName) VALUES (?, ?, ?)")
            for fieldName in missing { try mark.execute(arguments: [account, recordType, fieldName]) }
            let keys = QueryableFields(missing.map { (recordType: recordType, fieldName: $0) })
            let insert = try db.cachedStatement(sql: Self.insertFieldKey)
            let records = try Row.fetchCursor(
                db,
                sql: """
                    SELECT r.zoneId, r.recordName, r.fields FROM record r JOIN zone z ON z.id = r.zoneId
                    WHERE z.account = ? AND r.recordType = ?
                    """,
                arguments: [account, recordType])
            while let record = try records.next() {
                for (fieldName, key) in keys.keys(of: try StoredFields.decode(record[2]), recordType: recordType) {
                    try insert.execute(arguments: [record[0], record[1], fieldName, recordType, key])
                }
            }
        }
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
