import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ServerStore

/// The record operations, on behalf of one account.
extension PostgresRecordStore {
    public func modify(
        account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool, device: String?
    ) async throws -> ModifyResult {
        if let failure = ModifyRules.refusal(operations: saves.count + deletes.count, maximum: maximumRecordsPerRequest) { throw failure }
        let now = clock.now()
        do {
            return try await transaction { connection in
                var zones = try await ZoneRows.lock(
                    Set(saves.map(\.record.recordID.zoneID) + deletes.map(\.recordID.zoneID)), account: account, connection, logger)
                // Before the quota's lock, which an envelope's own write takes after its zone's.
                let sealing = SealingRule.applies(to: saves.map(\.record))
                    ? try await Self.sealingState(of: account, connection, logger) : .unknown
                // Read after the zones are locked: each batch of a query's fill
                // (`fillQueryable`) locks its zone too, so this request either saw its marks
                // or is read by the fill.
                let queryable = zones.rows.isEmpty ? QueryableFields() : try await Self.queryableFields(of: account, connection, logger)
                var result = ModifyResult()
                // Only a checked delete compares the stored record; a forced one deletes what is there.
                let checked = deletes.filter { $0.policy == .ifServerRecordUnchanged }.map(\.recordID)
                let doomed = try await Self.records(checked, zones: zones, connection, logger)
                for deletion in deletes {
                    if let failure = deletion.refusal(over: doomed[deletion.recordID]) {
                        result.failures[deletion.recordID] = failure
                    } else {
                        result.deleted.append(deletion.recordID)
                    }
                }
                // The assets a deleted or replaced record named: deleted at the end if no record names them then.
                var (dropped, gone) = try await Self.delete(
                    result.deleted, zones: &zones, queryable: queryable, now: now, by: device, connection, logger)
                dropped.formUnion(try await Self.cascade(
                    from: gone, zones: &zones, queryable: queryable, now: now, by: device, connection, logger))

                var stored = try await Self.records(saves.map(\.record.recordID), zones: zones, connection, logger)
                let original = stored
                // The account's row locked, so that two saves in any of its databases cannot
                // both take the last place. Counted across its databases, deletions still
                // remembered included; a save over a remembered deletion takes its row.
                let quota = try await Self.quota(account, locking: true, connection, logger)
                var rules = ModifyRules(
                    sealing: sealing, quota: quota,
                    recordCount: try await quota.maxRecords == nil ? 0 : Self.recordCount(account, connection, logger))
                let remembered = try await !rules.countsRecords
                    ? [] : Self.rememberedDeletions(saves.map(\.record.recordID), zones: zones, connection, logger)
                let held = try await Self.heldAssets(
                    saves.flatMap { AssetRules.references(of: $0.record) }, account: account, now: now.milliseconds, connection, logger)
                var written: [RecordID: (record: RemoteRecord, sequence: Int64)] = [:]
                for save in saves {
                    let recordID = save.record.recordID
                    let existing = stored[recordID]
                    switch rules.decide(save, over: existing, deletionRemembered: remembered.contains(recordID), heldAssets: held) {
                    case .failure(let failure):
                        result.failures[recordID] = failure
                    case .success(let record):
                        let zone = zones.rows[recordID.zoneID]!.id
                        let sequence = zones.nextSequence(of: recordID.zoneID)
                        let saved = ModifyRules.stored(
                            record, changeTag: positions.changeTag(ZonePosition(zoneRowID: zone, sequence: sequence)), over: existing, now: now)
                        stored[recordID] = saved
                        written[recordID] = (saved, sequence)
                        result.saved.append(saved)
                    }
                }
                if atomic && !result.failures.isEmpty { throw AtomicFailure(failures: result.failures) }
                try await Self.write(Array(written.values), zones: zones, queryable: queryable, by: device, connection, logger)
                try await Self.keepFieldTypes(of: written.values.map(\.record), account: account, connection, logger)
                let replaced = written.values.map { (record: $0.record, over: original[$0.record.recordID]) }
                dropped.formUnion(try await Self.saveAssetReferences(replaced, zones: zones, connection, logger))
                try await Self.saveCascadingReferences(replaced, zones: zones, connection, logger)
                try await Self.deleteUnnamedAssets(dropped, account: account, connection, logger)
                try await zones.saveSequences(connection, logger)
                return result
            }
        } catch let failure as AtomicFailure {
            return ModifyResult(failures: failure.failures)
        }
    }

    /// What the key zone of `account`'s database says of the saves it takes (`SealingRule`).
    /// Its row is locked for share: a write of the envelope (which locks the zone's row for
    /// update) waits for this transaction, and this one for it, so no save is checked against
    /// an envelope that changes before it commits.
    static func sealingState(of account: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> SealingRule.State {
        let rows = try await connection.query(
            """
            SELECT EXISTS(SELECT 1 FROM record WHERE zone_id = zone.id AND record_type = \(SealingRule.envelopeType))
            FROM zone WHERE account = \(account) AND name = \(SealingRule.keyZone.zoneName) FOR SHARE
            """, logger: logger)
        for try await holdsEnvelope in rows.decode(Bool.self) {
            return SealingRule.State(keyZoneExists: true, holdsEnvelope: holdsEnvelope)
        }
        return .unknown
    }

    public func changeWriters(account: String, in zoneID: RecordZoneID, since token: ChangeToken?, limit: Int) async throws -> [String?] {
        try await transaction(readOnly: true) { connection in
            let zone = try await ZoneRows.find(zoneID, account: account, connection, logger)
            let since = try token.map {
                try positions.sequence(of: $0, zoneRowID: zone.id, history: zone.purgedThrough...zone.changeSequence)
            } ?? 0
            let rows = try await connection.query(
                """
                SELECT written_by FROM record WHERE zone_id = \(zone.id) AND change_sequence > \(since)
                UNION
                SELECT written_by FROM deletion WHERE zone_id = \(zone.id) AND change_sequence > \(since)
                LIMIT \(Int64(max(0, limit)))
                """, logger: logger)
            var writers: [String?] = []
            for try await writer in rows.decode(String?.self) { writers.append(writer) }
            return writers
        }
    }

    public func fetchChanges(account: String, in zoneID: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        let limit = Int64(max(1, resultsLimit))
        return try await transaction(readOnly: true) { connection in
            let zone = try await ZoneRows.find(zoneID, account: account, connection, logger)
            let since = try token.map {
                try positions.sequence(of: $0, zoneRowID: zone.id, history: zone.purgedThrough...zone.changeSequence)
            } ?? 0
            let rows = try await connection.query(Self.changesQuery(zoneRowID: zone.id, since: since, limit: limit + 1), logger: logger)
            var changed: [RemoteRecord] = []
            var deleted: [DeletedRecord] = []
            var through = zone.changeSequence
            var (count, bytes, moreComing) = (0, 0, false)
            // A page stops at its count or at its bytes (`PageBudget`); the rows after it are
            // not kept.
            for try await (name, sequence, type, tag, created, modified, fields) in rows.decode(
                (String, Int64, String, String?, Int64?, Int64?, String?).self)
            {
                if PageBudget.isFull(count: count, bytes: bytes, limit: Int(limit)) {
                    moreComing = true
                    break
                }
                let recordID = RecordID(recordName: name, zoneID: zoneID)
                if let tag, let created, let modified, let fields {
                    changed.append(try Self.record(recordID, type: type, tag: tag, created: created, modified: modified, fields: fields))
                    bytes += fields.utf8.count
                } else {
                    deleted.append(DeletedRecord(recordID: recordID, recordType: type))
                }
                count += 1
                through = sequence
            }
            if !moreComing { through = zone.changeSequence }
            return ZoneChanges(
                changed: changed, deleted: deleted, token: positions.token(ZonePosition(zoneRowID: zone.id, sequence: through)),
                moreComing: moreComing)
        }
    }

    /// The first `limit` changes of a zone after `since`, saves and deletions in change order.
    /// Each side is ordered and cut by itself, so that each reads its `(zone_id,
    /// change_sequence)` index and the two are merged: with the order and limit only on the
    /// union, PostgreSQL scanned the whole table and sorted it (444 ms a page at a million
    /// records, 1.4 ms this way).
    static func changesQuery(zoneRowID: Int64, since: Int64, limit: Int64) -> PostgresQuery {
        """
        (SELECT record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields
         FROM record WHERE zone_id = \(zoneRowID) AND change_sequence > \(since) ORDER BY change_sequence LIMIT \(limit))
        UNION ALL
        (SELECT record_name, change_sequence, record_type, NULL, NULL, NULL, NULL
         FROM deletion WHERE zone_id = \(zoneRowID) AND change_sequence > \(since) ORDER BY change_sequence LIMIT \(limit))
        ORDER BY change_sequence LIMIT \(limit)
        """
    }

    public func records(account: String, in zoneID: RecordZoneID, named names: [String], byteBudget: Int) async throws -> NamedRecords {
        try await transaction(readOnly: true) { connection in
            let zone = try await ZoneRows.find(zoneID, account: account, connection, logger)
            let rows = try await connection.query(
                """
                SELECT wanted.ordinal, record_name, record_type, change_tag, creation_date, modification_date, fields
                FROM unnest(\(names)::text[]) WITH ORDINALITY AS wanted(wanted_name, ordinal)
                JOIN record ON record.zone_id = \(zone.id) AND record.record_name = wanted.wanted_name
                ORDER BY wanted.ordinal
                """, logger: logger)
            var (read, bytes) = (NamedRecords(namesRead: names.count), 0)
            // The rows after the one that fills the budget are not kept.
            for try await (ordinal, name, type, tag, created, modified, fields) in rows.decode(
                (Int64, String, String, String, Int64, Int64, String).self)
            {
                if NamedRecords.isFull(bytes: bytes, byteBudget: byteBudget) {
                    read.namesRead = Int(ordinal) - 1
                    break
                }
                let record = try Self.record(
                    RecordID(recordName: name, zoneID: zoneID), type: type, tag: tag, created: created, modified: modified, fields: fields)
                read.records.append(record)
                bytes += PageBudget.bytes(of: record)
            }
            return read
        }
    }

    public func records(account: String, in zoneID: RecordZoneID, ofType recordType: String, after: String?, limit: Int) async throws -> [RemoteRecord] {
        let limit = Int64(clamping: max(0, limit))
        return try await transaction(readOnly: true) { connection in
            let zone = try await ZoneRows.find(zoneID, account: account, connection, logger)
            let rows = try await connection.query(
                """
                SELECT record_name, record_type, change_tag, creation_date, modification_date, fields
                FROM record WHERE zone_id = \(zone.id) AND record_type = \(recordType) AND (\(after)::text IS NULL OR record_name > \(after))
                ORDER BY record_name LIMIT \(limit)
                """, logger: logger)
            var records: [RemoteRecord] = []
            for try await (name, type, tag, created, modified, fields) in rows.decode((String, String, String, Int64, Int64, String).self) {
                records.append(try Self.record(
                    RecordID(recordName: name, zoneID: zoneID), type: type, tag: tag, created: created, modified: modified, fields: fields))
            }
            return records
        }
    }

    // MARK: Writing records

    /// Deletes those of `recordIDs` that exist, each with the next sequence of its zone, and
    /// remembers the deletions for change fetches. Returns the checksums of the assets they
    /// named, and the records deleted.
    static func delete(
        _ recordIDs: [RecordID], zones: inout ZoneRows, queryable: QueryableFields, now: Timestamp, by device: String?,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> (dropped: Set<String>, deleted: [RecordID]) {
        guard !recordIDs.isEmpty else { return ([], []) }
        let keys = RecordKeys(recordIDs, zones: zones)
        var dropped = Set<String>()
        try await connection.query(
            """
            DELETE FROM cascading_reference
            WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            """, logger: logger)
        for try await checksum in try await connection.query(
            """
            DELETE FROM asset_reference
            WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            RETURNING checksum
            """, logger: logger
        ).decode(String.self) { dropped.insert(checksum) }
        if !queryable.isEmpty {
            try await connection.query(
                """
                DELETE FROM record_field WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
                """, logger: logger)
        }
        let rows = try await connection.query(
            """
            DELETE FROM record WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            RETURNING zone_id, record_name, record_type
            """, logger: logger)
        var types: [Key: String] = [:]
        for try await (zone, name, type) in rows.decode((Int64, String, String).self) { types[Key(zone: zone, name: name)] = type }
        var deletion = (zones: [Int64](), names: [String](), sequences: [Int64](), types: [String]())
        var deleted: [RecordID] = []
        for recordID in recordIDs {
            let key = Key(zone: zones.rows[recordID.zoneID]!.id, name: recordID.recordName)
            guard let type = types.removeValue(forKey: key) else { continue }
            deleted.append(recordID)
            deletion.zones.append(key.zone)
            deletion.names.append(key.name)
            deletion.sequences.append(zones.nextSequence(of: recordID.zoneID))
            deletion.types.append(type)
        }
        guard !deletion.zones.isEmpty else { return (dropped, deleted) }
        try await connection.query(
            """
            INSERT INTO deletion (zone_id, record_name, change_sequence, record_type, deleted_at, written_by)
            SELECT zone_id, record_name, change_sequence, record_type, \(now.milliseconds), \(device)::text
            FROM unnest(\(deletion.zones)::int8[], \(deletion.names)::text[], \(deletion.sequences)::int8[], \(deletion.types)::text[])
                AS d(zone_id, record_name, change_sequence, record_type)
            ON CONFLICT (zone_id, record_name) DO UPDATE SET
                change_sequence = excluded.change_sequence, record_type = excluded.record_type, deleted_at = excluded.deleted_at,
                written_by = excluded.written_by
            """, logger: logger)
        return (dropped, deleted)
    }

    /// The stored records among `recordIDs`.
    static func records(
        _ recordIDs: [RecordID], zones: ZoneRows, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [RecordID: RemoteRecord] {
        guard !recordIDs.isEmpty else { return [:] }
        let keys = RecordKeys(recordIDs, zones: zones)
        let rows = try await connection.query(
            """
            SELECT zone_id, record_name, record_type, change_tag, creation_date, modification_date, fields
            FROM record WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            """, logger: logger)
        var records: [RecordID: RemoteRecord] = [:]
        for try await (zone, name, type, tag, created, modified, fields) in rows.decode(
            (Int64, String, String, String, Int64, Int64, String).self)
        {
            guard let zoneID = zones.zoneID(ofRow: zone) else { continue }
            let recordID = RecordID(recordName: name, zoneID: zoneID)
            records[recordID] = try record(recordID, type: type, tag: tag, created: created, modified: modified, fields: fields)
        }
        return records
    }

    /// Those of `recordIDs` whose deletion the server remembers.
    static func rememberedDeletions(
        _ recordIDs: [RecordID], zones: ZoneRows, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Set<RecordID> {
        guard !recordIDs.isEmpty else { return [] }
        let keys = RecordKeys(recordIDs, zones: zones)
        let rows = try await connection.query(
            """
            SELECT zone_id, record_name FROM deletion
            WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            """, logger: logger)
        var remembered = Set<RecordID>()
        for try await (zone, name) in rows.decode((Int64, String).self) {
            if let zoneID = zones.zoneID(ofRow: zone) { remembered.insert(RecordID(recordName: name, zoneID: zoneID)) }
        }
        return remembered
    }

    /// Stores `records` (as saved: tags and times set), each at its change sequence, in one
    /// statement, with the keys of their queryable fields, and forgets any deletion of their names.
    static func write(
        _ saves: [(record: RemoteRecord, sequence: Int64)], zones: ZoneRows, queryable: QueryableFields, by device: String?,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        guard !saves.isEmpty else { return }
        let records = saves.map(\.record)
        let keys = RecordKeys(records.map(\.recordID), zones: zones)
        let sequences = saves.map(\.sequence)
        let types = records.map(\.recordType)
        let tags = records.map { $0.changeTag! }
        let created = records.map { $0.creationDate!.milliseconds }
        let modified = records.map { $0.modificationDate!.milliseconds }
        let fields = records.map { StoredFields.encode($0.fields) }
        try await connection.query(
            """
            DELETE FROM deletion WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            """, logger: logger)
        try await connection.query(
            """
            INSERT INTO record
                (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields, written_by)
            SELECT *, \(device)::text FROM unnest(
                \(keys.zones)::int8[], \(keys.names)::text[], \(sequences)::int8[], \(types)::text[], \(tags)::text[],
                \(created)::int8[], \(modified)::int8[], \(fields)::text[])
            ON CONFLICT (zone_id, record_name) DO UPDATE SET
                change_sequence = excluded.change_sequence, record_type = excluded.record_type, change_tag = excluded.change_tag,
                creation_date = excluded.creation_date, modification_date = excluded.modification_date, fields = excluded.fields,
                written_by = excluded.written_by
            """, logger: logger)
        guard !queryable.isEmpty else { return }
        try await connection.query(
            """
            DELETE FROM record_field WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            """, logger: logger)
        try await writeFieldKeys(
            zip(keys.zones, records).map { ($0, $1.recordID.recordName, $1.recordType, $1.fields) }, queryable: queryable, connection,
            logger)
    }

    /// Stores the key of each queryable field of `records` (`QueryKey`, `QueryableFields`),
    /// in place of any stored.
    static func writeFieldKeys(
        _ records: [(zone: Int64, name: String, type: String, fields: [String: FieldValue])], queryable: QueryableFields,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        var rows = (zones: [Int64](), names: [String](), fields: [String](), types: [String](), keys: [ByteBuffer]())
        for record in records {
            for (fieldName, key) in queryable.keys(of: record.fields, recordType: record.type) {
                rows.zones.append(record.zone)
                rows.names.append(record.name)
                rows.fields.append(fieldName)
                rows.types.append(record.type)
                rows.keys.append(ByteBuffer(bytes: key))
            }
        }
        guard !rows.zones.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO record_field (zone_id, record_name, field_name, record_type, value_key)
            SELECT * FROM unnest(\(rows.zones)::int8[], \(rows.names)::text[], \(rows.fields)::text[], \(rows.types)::text[], \(rows.keys)::bytea[])
            ON CONFLICT (zone_id, record_name, field_name) DO UPDATE SET record_type = excluded.record_type, value_key = excluded.value_key
            """, logger: logger)
    }

    /// The fields of `account` whose keys are kept (`QueryableFields`), ready or still
    /// being filled: a save keeps the keys of both.
    static func queryableFields(of account: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> QueryableFields {
        let rows = try await connection.query(
            "SELECT record_type, field_name FROM queryable_field WHERE account = \(account)", logger: logger)
        var pairs: [(recordType: String, fieldName: String)] = []
        for try await (type, field) in rows.decode((String, String).self) { pairs.append((type, field)) }
        return QueryableFields(pairs)
    }

    static func record(
        _ recordID: RecordID, type: String, tag: String, created: Int64, modified: Int64, fields: String
    ) throws -> RemoteRecord {
        RemoteRecord(
            recordType: type, recordID: recordID, fields: try StoredFields.decode(fields), changeTag: tag,
            creationDate: Timestamp(milliseconds: created), modificationDate: Timestamp(milliseconds: modified))
    }
}

/// Rolls back an atomic modify that had a failed item.
struct AtomicFailure: Error {
    var failures: [RecordID: CloudError]
}

/// A record's key in the tables.
struct Key: Hashable {
    var zone: Int64
    var name: String
}

/// Record ids as the two arrays `unnest` pairs up.
struct RecordKeys {
    var zones: [Int64] = []
    var names: [String] = []

    init(_ recordIDs: [RecordID], zones rows: ZoneRows) {
        for recordID in recordIDs {
            zones.append(rows.rows[recordID.zoneID]!.id)
            names.append(recordID.recordName)
        }
    }
}

/// The zones a request touches, as their rows say, with the sequences taken so far.
struct ZoneRows {
    struct Row {
        var id: Int64
        var changeSequence: Int64
        var purgedThrough: Int64
    }

    var rows: [RecordZoneID: Row] = [:]

    /// The zone `zoneID` of `account`, unlocked; throws `zoneNotFound` if it is missing.
    static func find(_ zoneID: RecordZoneID, account: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Row {
        let rows = try await connection.query(
            "SELECT id, change_sequence, purged_through FROM zone WHERE account = \(account) AND name = \(zoneID.zoneName)",
            logger: logger)
        for try await (id, sequence, purged) in rows.decode((Int64, Int64, Int64).self) {
            return Row(id: id, changeSequence: sequence, purgedThrough: purged)
        }
        throw CloudError.zoneNotFound
    }

    /// Locks the rows of `zoneIDs` of `account` until the transaction ends, in id order so
    /// that two writers never wait for each other; throws `zoneNotFound` if any is missing.
    static func lock(
        _ zoneIDs: Set<RecordZoneID>, account: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> ZoneRows {
        var zones = ZoneRows()
        guard !zoneIDs.isEmpty else { return zones }
        let names = zoneIDs.map(\.zoneName)
        let rows = try await connection.query(
            """
            SELECT name, id, change_sequence, purged_through FROM zone WHERE account = \(account) AND name = ANY(\(names)::text[])
            ORDER BY id FOR UPDATE
            """, logger: logger)
        for try await (name, id, sequence, purged) in rows.decode((String, Int64, Int64, Int64).self) {
            zones.rows[RecordZoneID(zoneName: name)] = Row(id: id, changeSequence: sequence, purgedThrough: purged)
        }
        guard zones.rows.count == zoneIDs.count else { throw CloudError.zoneNotFound }
        return zones
    }

    /// The zone whose row id is `id`.
    func zoneID(ofRow id: Int64) -> RecordZoneID? {
        rows.first { $0.value.id == id }?.key
    }

    /// Takes the next change sequence of `zoneID`.
    mutating func nextSequence(of zoneID: RecordZoneID) -> Int64 {
        rows[zoneID]!.changeSequence += 1
        return rows[zoneID]!.changeSequence
    }

    /// Stores each zone's latest sequence.
    func saveSequences(_ connection: PostgresConnection, _ logger: Logger) async throws {
        for row in rows.values {
            try await connection.query("UPDATE zone SET change_sequence = \(row.changeSequence) WHERE id = \(row.id)", logger: logger)
        }
    }
}
