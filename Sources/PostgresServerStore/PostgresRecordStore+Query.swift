import CloudKitModel
import Foundation
import Logging
import PostgresNIO
import ServerStore

/// `records/query`, filtered and sorted in SQL (see `QuerySQL`, `QueryPager`).
extension PostgresRecordStore {
    public func query(account: String, _ query: StoredQuery) async throws -> StoredQueryPage {
        try await makeQueryable(query.fieldNames, of: query.recordType, account: account)
        return try await transaction(readOnly: true) { connection in
            try await QueryPager.page(
                query, dialect: .postgres,
                reading: PostgresQueryReading(connection: connection, logger: logger, account: account, sorts: query.sorts))
        }
    }
}

extension PostgresRecordStore {
    /// How many records a backfill reads at once.
    static let backfillBatch: Int64 = 500
    /// About how many bytes of stored fields a backfill reads at once.
    static let backfillBytes: Int64 = 4 << 20

    /// Makes `fieldNames` of `recordType` queryable in `account` (`QueryableFields`): once
    /// this returns, every record of the type has the keys of those fields, and every save
    /// keeps them.
    ///
    /// Two `serve` processes may share the database, and a save's transaction (READ
    /// COMMITTED) reads the marks only once it holds its zones' row locks. So the marks are
    /// committed first, not ready; then a second transaction locks every zone of the
    /// account (in id order, as a save does), which waits for any save that read the marks
    /// before they were committed, reads every record of the type (each statement sees
    /// all that was committed before it), stores their keys and sets the marks ready. A save
    /// after the marks keeps the keys itself. A backfill that fails leaves the marks not
    /// ready, and the next query names them again and fills them. An account holds at most
    /// `QueryableFields.maximumMarks` marks; a query that would add more is `LimitReached`.
    func makeQueryable(_ fieldNames: Set<String>, of recordType: String, account: String) async throws {
        guard !fieldNames.isEmpty else { return }
        let names = fieldNames.sorted()
        let pending = try await transaction { connection in
            let rows = try await connection.query(
                """
                SELECT field_name FROM queryable_field
                WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(names)::text[]) AND ready
                """, logger: logger)
            var ready = Set<String>()
            for try await name in rows.decode(String.self) { ready.insert(name) }
            let pending = fieldNames.subtracting(ready).sorted()
            guard !pending.isEmpty else { return pending }
            // Two queries (in two servers, maybe) marking at once would each count the marks
            // without the other's: the account's marking is one at a time (8420 is the
            // migrations' lock, 8421 a quota's).
            try await connection.query("SELECT pg_advisory_xact_lock(8422, hashtext(\(account)))", logger: logger)
            let unmarked = try await Self.queryableFields(of: account, connection, logger).admitting(fieldNames, of: recordType)
            guard !unmarked.isEmpty else { return pending }
            try await connection.query(
                """
                INSERT INTO queryable_field (account, record_type, field_name)
                SELECT \(account), \(recordType), unnest(\(unmarked.sorted())::text[]) ON CONFLICT DO NOTHING
                """, logger: logger)
            return pending
        }
        guard !pending.isEmpty else { return }
        let filled = try await transaction { connection -> Int in
            var zones: [Int64] = []
            let locked = try await connection.query(
                "SELECT id FROM zone WHERE account = \(account) ORDER BY id FOR UPDATE", logger: logger)
            for try await id in locked.decode(Int64.self) { zones.append(id) }
            // Another backfill may have filled some while this one waited for the locks.
            let rows = try await connection.query(
                """
                SELECT field_name FROM queryable_field
                WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(pending)::text[]) AND NOT ready
                """, logger: logger)
            var filling: [(recordType: String, fieldName: String)] = []
            for try await name in rows.decode(String.self) { filling.append((recordType, name)) }
            guard !filling.isEmpty else { return 0 }
            let queryable = QueryableFields(filling)
            var filled = 0
            // Zone by zone along `record_by_type`, at most `backfillBatch` records and about
            // `backfillBytes` of their fields at a time (always one), each reduced to its
            // queryable fields as it is read.
            let marked = queryable.fields(of: recordType)
            for zone in zones {
                var after = ""
                while true {
                    let records = try await connection.query(
                        """
                        SELECT record_name, fields FROM (
                            SELECT record_name, fields, sum(octet_length(fields)) OVER (ORDER BY record_name) - octet_length(fields) AS before
                            FROM (
                                SELECT record_name, fields FROM record
                                WHERE zone_id = \(zone) AND record_type = \(recordType) AND record_name > \(after)
                                ORDER BY record_name LIMIT \(Self.backfillBatch)
                            ) AS page
                        ) AS batch WHERE before < \(Self.backfillBytes) ORDER BY record_name
                        """, logger: logger)
                    var batch: [(zone: Int64, name: String, type: String, fields: [String: FieldValue])] = []
                    for try await (name, fields) in records.decode((String, String).self) {
                        batch.append((zone, name, recordType, try StoredFields.decode(fields).filter { marked.contains($0.key) }))
                    }
                    guard let last = batch.last else { break }
                    try await Self.writeFieldKeys(batch, queryable: queryable, connection, logger)
                    filled += batch.count
                    after = last.name
                }
            }
            try await connection.query(
                """
                UPDATE queryable_field SET ready = TRUE
                WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(filling.map(\.fieldName))::text[])
                """, logger: logger)
            return filled
        }
        // Many new key rows at once leave the planner's statistics of the table behind (until
        // autovacuum comes by), and a query after them could pick a plan that reads far more.
        if filled >= Int(Self.backfillBatch) * 20 {
            try await run { connection in try await connection.query("ANALYZE record_field", logger: logger) }
        }
    }
}

/// The reads of one query, in the snapshot of its transaction.
private struct PostgresQueryReading: QueryReading {
    let connection: PostgresConnection
    let logger: Logger
    let account: String
    let sorts: [StoredQuery.Sort]

    func zoneRowID(_ zone: RecordZoneID) async throws -> Int64 {
        try await ZoneRows.find(zone, account: account, connection, logger).id
    }

    func positions(_ statement: QuerySQL.Statement, in zone: RecordZoneID) async throws -> [QueryPosition] {
        var bindings = PostgresBindings(capacity: statement.arguments.count)
        for argument in statement.arguments {
            switch argument {
            case .blob(let data): bindings.append(ByteBuffer(bytes: data))
            case .text(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            }
        }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: bindings), logger: logger)
        var positions: [QueryPosition] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            var values: [QueryPosition.Value] = []
            for (index, sort) in sorts.enumerated() {
                let cell = cells[index + 1]
                switch sort.field {
                case .field: values.append(try cell.decode(ByteBuffer?.self).map { .key(Data($0.readableBytesView)) } ?? .missing)
                case .recordName: values.append(.name(try cell.decode(String.self)))
                case .createdTimestamp, .modifiedTimestamp: values.append(.time(try cell.decode(Int64.self)))
                }
            }
            positions.append(QueryPosition(values: values, recordName: try cells[0].decode(String.self), zoneName: zone.zoneName))
        }
        return positions
    }

    func records(named names: [String], zoneRowID: Int64, in zone: RecordZoneID) async throws -> [RemoteRecord] {
        guard !names.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            SELECT record_name, record_type, change_tag, creation_date, modification_date, fields
            FROM record WHERE zone_id = \(zoneRowID) AND record_name = ANY(\(names)::text[])
            """, logger: logger)
        var records: [RemoteRecord] = []
        for try await (name, type, tag, created, modified, fields) in rows.decode((String, String, String, Int64, Int64, String).self) {
            records.append(try PostgresRecordStore.record(
                RecordID(recordName: name, zoneID: zone), type: type, tag: tag, created: created, modified: modified, fields: fields))
        }
        return records
    }
}
