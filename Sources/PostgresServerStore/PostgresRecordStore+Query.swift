import CloudKitModel
import Foundation
import Logging
import PostgresNIO
import ServerStore

/// `records/query`, filtered and sorted in SQL (see `QuerySQL`, `QueryPager`).
extension PostgresRecordStore {
    public func query(account: String, _ query: StoredQuery) async throws -> StoredQueryPage {
        try await transaction(readOnly: true) { connection in
            try await QueryPager.page(
                query, dialect: .postgres,
                reading: PostgresQueryReading(connection: connection, logger: logger, account: account, sorts: query.sorts))
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
