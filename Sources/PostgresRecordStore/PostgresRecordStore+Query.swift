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
    /// How many records a batch of a fill reads at once.
    static let backfillBatch: Int64 = 500
    /// About how many bytes of stored fields a batch of a fill reads at once.
    static let backfillBytes: Int64 = 4 << 20

    /// Marks `fieldNames` of `recordType` queryable in `account` (`QueryableFields`) and
    /// returns their fill, unless they are ready.
    ///
    /// Two `serve` processes may share the database, and a save's transaction (READ
    /// COMMITTED) reads the marks only once it holds its zones' row locks (`ZoneRows.lock`).
    /// So the marks are committed first, not ready, in a transaction of their own (an
    /// account's marking one at a time, across processes, so that its count holds); the
    /// account's zones are read after that commit; then `fillQueryable` keys the records a
    /// batch at a time, each batch a short transaction that locks only the zone it reads. An
    /// account holds at most `QueryableFields.maximumMarks` marks; a query that would add
    /// more is `LimitReached`.
    public func markQueryable(_ fieldNames: Set<String>, of recordType: String, account: String) async throws -> QueryableFill? {
        guard !fieldNames.isEmpty else { return nil }
        let names = fieldNames.sorted()
        let readFields = { @Sendable (connection: PostgresConnection) async throws -> [String] in
            let rows = try await connection.query(
                """
                SELECT field_name FROM queryable_field
                WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(names)::text[]) AND ready
                """, logger: self.logger)
            var ready = Set<String>()
            for try await name in rows.decode(String.self) { ready.insert(name) }
            return fieldNames.subtracting(ready).sorted()
        }
        // Every query asks: the fields of most are ready, which one statement tells.
        guard try await !run(readFields).isEmpty else { return nil }
        let pending = try await transaction { connection in
            let pending = try await readFields(connection)
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
        guard !pending.isEmpty else { return nil }
        // Read after the marks are committed: a save that read the marks before that had
        // locked its zones before it, so they were committed before this read and are in the
        // list; any save into a zone missing from it reads the marks.
        let zones = try await run { connection in
            let rows = try await connection.query("SELECT id FROM zone WHERE account = \(account) ORDER BY id", logger: logger)
            var zones: [Int64] = []
            for try await id in rows.decode(Int64.self) { zones.append(id) }
            return zones
        }
        return QueryableFill(account: account, recordType: recordType, fieldNames: Set(pending), zones: zones)
    }

    /// Keys `fill`'s next batch in a transaction of its own, or sets its marks ready once its
    /// zones are read (see `markQueryable`).
    ///
    /// Each batch locks the one zone it reads (`FOR UPDATE`, as a save locks its zones), reads
    /// at most `backfillBatch` records of the type after its position along `record_by_type`
    /// (and about `backfillBytes` of their fields, always one), stores their keys and commits:
    /// never one transaction over the account, so that its other zones' saves, and those of
    /// this one between batches, go on. No record misses its keys once the marks are ready,
    /// with any number of `serve` processes on the database. A save that read the marks
    /// (ready or not) keeps the keys itself. A save that read them before they were committed
    /// had locked its zones before that commit: they existed then, so the fill's zones (read
    /// after the commit) hold them, and the first batch of each waits for its lock until the
    /// save has ended; that batch's read, and every later one (each statement sees all that
    /// was committed before it), sees the save's records. While a batch holds its zone, no
    /// save of the zone runs: what it reads is the latest, and a save after it that writes a
    /// record behind the fill's position keeps the key itself, one ahead of it is keyed again
    /// (to the same key) when the fill gets there. A zone locked in a batch after an empty one
    /// is a later zone (they are read in id order, as saves lock theirs), so the two never
    /// wait for each other. A fill that fails between batches leaves the marks not ready: the
    /// next query fills them again, and a fill of another process may run beside this one
    /// (both write the same keys; whichever ends first sets the marks ready, which is then
    /// true, and the other stops at its next batch).
    public func fillQueryable(_ fill: QueryableFill) async throws -> QueryableFill? {
        let (next, madeReady) = try await transaction { connection -> (QueryableFill?, Bool) in
            var fill = fill
            let rows = try await connection.query(
                """
                SELECT field_name FROM queryable_field
                WHERE account = \(fill.account) AND record_type = \(fill.recordType) AND field_name = ANY(\(fill.fieldNames.sorted())::text[])
                AND NOT ready
                """, logger: logger)
            var filling = Set<String>()
            for try await name in rows.decode(String.self) { filling.insert(name) }
            // Another fill may have made some ready.
            fill.fieldNames = filling
            guard !filling.isEmpty else { return (nil, false) }
            let queryable = fill.queryable
            while let zone = fill.zones.first {
                let locked = try await connection.query("SELECT id FROM zone WHERE id = \(zone) FOR UPDATE", logger: logger)
                var exists = false
                for try await _ in locked.decode(Int64.self) { exists = true }
                // A zone deleted since the fill began has no records left to key.
                guard exists else {
                    fill.finishZone()
                    continue
                }
                let records = try await connection.query(
                    """
                    SELECT record_name, fields FROM (
                        SELECT record_name, fields, sum(octet_length(fields)) OVER (ORDER BY record_name) - octet_length(fields) AS before
                        FROM (
                            SELECT record_name, fields FROM record
                            WHERE zone_id = \(zone) AND record_type = \(fill.recordType) AND record_name > \(fill.after)
                            ORDER BY record_name LIMIT \(Self.backfillBatch)
                        ) AS page
                    ) AS batch WHERE before < \(Self.backfillBytes) ORDER BY record_name
                    """, logger: logger)
                var batch: [(zone: Int64, name: String, type: String, fields: [String: FieldValue])] = []
                for try await (name, fields) in records.decode((String, String).self) {
                    batch.append((zone, name, fill.recordType, try StoredFields.decode(fields).filter { filling.contains($0.key) }))
                }
                guard let last = batch.last else {
                    fill.finishZone()
                    continue
                }
                try await Self.writeFieldKeys(batch, queryable: queryable, connection, logger)
                fill.after = last.name
                fill.keyed += batch.count
                return (fill, false)
            }
            try await connection.query(
                """
                UPDATE queryable_field SET ready = TRUE
                WHERE account = \(fill.account) AND record_type = \(fill.recordType) AND field_name = ANY(\(fill.fieldNames.sorted())::text[])
                """, logger: logger)
            return (nil, true)
        }
        // Many new key rows at once leave the planner's statistics of the table behind (until
        // autovacuum comes by), and a query after them could pick a plan that reads far more.
        if madeReady, fill.keyed >= Int(Self.backfillBatch) * 20 {
            try await run { connection in try await connection.query("ANALYZE record_field", logger: logger) }
        }
        return next
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
