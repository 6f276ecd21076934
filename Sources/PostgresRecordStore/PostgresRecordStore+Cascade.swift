import CloudKitModel
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ServerStore

/// CloudKit's `DELETE_SELF` cascade (`ReferenceRules`): which records of a zone are deleted
/// with which, and the deleting, within the modify whose deletes start it.
extension PostgresRecordStore {
    /// Deletes the records whose `DELETE_SELF` references name one of `deleted` (records
    /// this request deleted), and those whose references name them, in turn, a generation
    /// at a time: at most `ReferenceRules.cascadeBatch` of them. A cascade a modify left
    /// unfinished in a zone of this request (`pending_cascade`) is taken up first; what this
    /// one leaves is kept for the next (see `SQLiteRecordStore`'s). Every zone it deletes in
    /// is locked already: a reference reaches its own zone only. Returns the checksums of
    /// the assets the deleted records named.
    static func cascade(
        from deleted: [RecordID], zones: inout ZoneRows, queryable: QueryableFields, now: Timestamp, by device: String?,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Set<String> {
        let zoneRows = zones.rows.values.map(\.id)
        guard !zoneRows.isEmpty else { return [] }
        var targets = deleted
        for try await (zone, name) in try await connection.query(
            "DELETE FROM pending_cascade WHERE zone_id = ANY(\(zoneRows)::int8[]) RETURNING zone_id, target_name", logger: logger
        ).decode((Int64, String).self) {
            if let zoneID = zones.zoneID(ofRow: zone) { targets.append(RecordID(recordName: name, zoneID: zoneID)) }
        }
        var (dropped, budget) = (Set<String>(), ReferenceRules.cascadeBatch)
        while !targets.isEmpty {
            let keys = RecordKeys(targets, zones: zones)
            let rows = try await connection.query(
                """
                SELECT DISTINCT zone_id, record_name FROM cascading_reference
                WHERE (zone_id, target_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
                ORDER BY zone_id, record_name LIMIT \(Int64(budget + 1))
                """, logger: logger)
            var referencing: [RecordID] = []
            for try await (zone, name) in rows.decode((Int64, String).self) {
                if let zoneID = zones.zoneID(ofRow: zone) { referencing.append(RecordID(recordName: name, zoneID: zoneID)) }
            }
            guard !referencing.isEmpty else { break }
            let (more, gone) = try await delete(
                Array(referencing.prefix(budget)), zones: &zones, queryable: queryable, now: now, by: device, connection, logger)
            dropped.formUnion(more)
            budget -= gone.count
            if referencing.count > gone.count {
                // Out of budget: these targets still have records to delete, and those just
                // deleted have not been looked at.
                try await keepPending(targets + gone, zones: zones, connection, logger)
                break
            }
            targets = gone
        }
        return dropped
    }

    /// Keeps `cascading_reference` naming the targets of each saved record's `DELETE_SELF`
    /// references, in place of those of the record it replaced (nil for a new one;
    /// `ReferenceRules.targetChange`). A new record ends any cascade left pending for its
    /// name: the record it replaces was deleted before it existed.
    static func saveCascadingReferences(
        _ saves: [(record: RemoteRecord, over: RemoteRecord?)], zones: ZoneRows, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        let created = RecordKeys(saves.filter { $0.over == nil }.map(\.record.recordID), zones: zones)
        if !created.zones.isEmpty {
            try await connection.query(
                """
                DELETE FROM pending_cascade
                WHERE (zone_id, target_name) IN (SELECT * FROM unnest(\(created.zones)::int8[], \(created.names)::text[]))
                """, logger: logger)
        }
        var (removed, added) = (IndexRows(), IndexRows())
        for (record, server) in saves {
            let change = ReferenceRules.targetChange(of: record, over: server)
            let zone = zones.rows[record.recordID.zoneID]!.id
            removed.append(zone: zone, name: record.recordID.recordName, values: change.dropped)
            added.append(zone: zone, name: record.recordID.recordName, values: change.added)
        }
        try await IndexRows.update("cascading_reference", "target_name", removing: removed, adding: added, connection, logger)
    }

    /// Keeps `targets`, deleted records, for the next modify of their zone to go on deleting
    /// what references them.
    private static func keepPending(_ targets: [RecordID], zones: ZoneRows, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let keys = RecordKeys(targets, zones: zones)
        try await connection.query(
            """
            INSERT INTO pending_cascade (zone_id, target_name)
            SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]) ON CONFLICT DO NOTHING
            """, logger: logger)
    }
}

/// Rows of an index that names, for each record, values it holds (`asset_reference`'s
/// checksums, `cascading_reference`'s targets), as the arrays `unnest` pairs up.
struct IndexRows {
    var zones: [Int64] = []
    var names: [String] = []
    var values: [String] = []

    /// Adds a row for each of `values` held by the record `name` of the zone whose row is `zone`.
    mutating func append(zone: Int64, name: String, values: Set<String>) {
        for value in values {
            zones.append(zone)
            names.append(name)
            self.values.append(value)
        }
    }

    /// Deletes the rows `removed` from `table` and inserts `added`; `column` names the values.
    static func update(
        _ table: String, _ column: String, removing removed: IndexRows, adding added: IndexRows, _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        if !removed.zones.isEmpty {
            try await connection.query(
                """
                DELETE FROM \(unescaped: table) WHERE (zone_id, record_name, \(unescaped: column)) IN (
                    SELECT * FROM unnest(\(removed.zones)::int8[], \(removed.names)::text[], \(removed.values)::text[]))
                """, logger: logger)
        }
        if !added.zones.isEmpty {
            try await connection.query(
                """
                INSERT INTO \(unescaped: table) (zone_id, record_name, \(unescaped: column))
                SELECT * FROM unnest(\(added.zones)::int8[], \(added.names)::text[], \(added.values)::text[])
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }
}
