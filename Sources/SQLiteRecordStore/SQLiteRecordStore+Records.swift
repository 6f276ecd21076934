import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
import ServerStore

/// The record operations, on behalf of one account. `ideabox serve` calls them for the
/// account a request's token belongs to; the embedded remote, for the account a device is
/// signed in to, once the device's faults let the request through.
extension SQLiteRecordStore {
    /// Applies deletes, then saves, in one transaction; see `CloudDatabase.modify`.
    public func modify(account: String, saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) throws -> ModifyResult {
        try modify(
            account: account, saves: records.map { RecordSave($0, policy: savePolicy) },
            deletes: recordIDs.map { RecordDeletion($0) })
    }

    /// Applies deletes, then saves, each under its own policy, in one transaction; see
    /// `RecordStore.modify`. If `atomic`, a request with any failed item applies nothing
    /// and its result lists only the failures.
    public func modify(account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool = false) throws -> ModifyResult {
        try modify(account: account, saves: saves, deletes: deletes, atomic: atomic, device: nil)
    }

    /// As `modify(account:saves:deletes:atomic:)`, each change recorded as written by `device`.
    public func modify(account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool, device: String?) throws -> ModifyResult {
        if let failure = ModifyRules.refusal(operations: saves.count + deletes.count, maximum: maximumRecordsPerRequest) { throw failure }
        // Encoded before the write lock is taken; a merge's fields are known only inside it.
        let encoded = saves.map { $0.mergesFields ? nil : StoredFields.encode($0.record.fields) }
        do {
            defer { scrubber?.wrote() }
            return try writer.write { db in
                let now = clock.now()
                // Every zone of the request exists (or nothing is applied), so the lookups
                // below always find theirs.
                var zones = try ZoneState.fetch(
                    Set(saves.map(\.record.recordID.zoneID) + deletes.map(\.recordID.zoneID)), account: account, db)
                // Read under the write lock, so a query's marking, and each batch of its
                // backfill, is wholly before or after this request; marks not ready yet count.
                let queryable = try Self.queryableFields(of: account, db)
                var result = ModifyResult()
                // The assets a deleted or replaced record named: deleted at the end if no record names them then.
                var dropped = Set<String>()
                var gone: [RecordID] = []
                for deletion in deletes {
                    let recordID = deletion.recordID
                    // A checked delete compares the whole stored record; a forced one needs its type only.
                    if deletion.policy == .ifServerRecordUnchanged,
                       let failure = deletion.refusal(over: try StoredRecord.fetch(recordID, zone: zones[recordID.zoneID]!, db)) {
                        result.failures[recordID] = failure
                    } else {
                        if try delete(
                            recordID, zone: &zones[recordID.zoneID]!, queryable: queryable, now: now, by: device, dropping: &dropped, db) {
                            gone.append(recordID)
                        }
                        result.deleted.append(recordID)
                    }
                }
                try cascade(from: gone, zones: &zones, queryable: queryable, now: now, by: device, dropping: &dropped, db)
                // Counted across the account's databases, deletions still remembered included.
                let quota = try Self.quota(of: account, db)
                var rules = try ModifyRules(
                    sealing: SealingRule.applies(to: saves.map(\.record)) ? Self.sealingState(of: account, db) : .unknown,
                    quota: quota, recordCount: quota.maxRecords == nil ? 0 : Self.recordCount(of: account, db))
                var typed: [(recordType: String, fields: [String: FieldValue])] = []
                for (save, fields) in zip(saves, encoded) {
                    let recordID = save.record.recordID
                    let existing = try StoredRecord.fetch(recordID, zone: zones[recordID.zoneID]!, db)
                    let remembered = try existing == nil && rules.countsRecords
                        && StoredRecord.isDeletionRemembered(recordID, zone: zones[recordID.zoneID]!, db)
                    let held = try Self.heldAssets(AssetRules.references(of: save.record), account: account, db)
                    switch rules.decide(save, over: existing, deletionRemembered: remembered, heldAssets: held) {
                    case .failure(let failure):
                        result.failures[recordID] = failure
                    case .success(let record):
                        let saved = try self.save(
                            record, fields: fields ?? StoredFields.encode(record.fields), over: existing,
                            zone: &zones[recordID.zoneID]!, queryable: queryable, now: now, by: device, db)
                        try Self.saveAssetReferences(of: record, over: existing, zoneRowID: zones[recordID.zoneID]!.rowID, dropping: &dropped, db)
                        try Self.saveCascadingReferences(of: record, over: existing, zoneRowID: zones[recordID.zoneID]!.rowID, db)
                        typed.append((record.recordType, save.record.fields))
                        result.saved.append(saved)
                    }
                }
                // Once for the request, as PostgreSQL's store does: a field's first type wins.
                try Self.keepFieldTypes(of: typed, account: account, db)
                if atomic && !result.failures.isEmpty { throw AtomicFailure(failures: result.failures) }
                try Self.deleteUnnamedAssets(dropped, account: account, db)
                let setSequence = try db.cachedStatement(sql: "UPDATE zone SET changeSequence = ? WHERE id = ?")
                for zone in zones.values { try setSequence.execute(arguments: [zone.changeSequence, zone.rowID]) }
                return result
            }
        } catch let failure as AtomicFailure {
            return ModifyResult(failures: failure.failures)
        }
    }

    /// What the key zone of `account`'s database says of the saves it takes (`SealingRule`),
    /// read inside the modify's write transaction, so that no save slips between an
    /// envelope's write and the rewrite after it.
    static func sealingState(of account: String, _ db: Database) throws -> SealingRule.State {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT EXISTS(SELECT 1 FROM record WHERE zoneId = zone.id AND recordType = ?)
                FROM zone WHERE account = ? AND name = ?
                """),
            arguments: [SealingRule.envelopeType, account, SealingRule.keyZone.zoneName])
        guard let row else { return .unknown }
        return SealingRule.State(keyZoneExists: true, holdsEnvelope: row[0] as Bool)
    }

    /// Who wrote the changes of `zoneID` after `token`; see `RecordZoneStore.changeWriters`.
    public func changeWriters(account: String, in zoneID: RecordZoneID, since token: ChangeToken?, limit: Int) throws -> [String?] {
        try writer.read { db in
            let zone = try ZoneState.fetch(zoneID, account: account, db)
            let since = try token.map { try positions.sequence(of: $0, zoneRowID: zone.rowID, history: zone.history) } ?? 0
            return try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT writtenBy FROM record WHERE zoneId = ? AND changeSequence > ?
                    UNION
                    SELECT writtenBy FROM deletion WHERE zoneId = ? AND changeSequence > ?
                    LIMIT ?
                    """),
                arguments: [zone.rowID, since, zone.rowID, since, max(0, limit)]
            ).map { $0[0] as String? }
        }
    }

    /// One page of the changes of `zoneID` after `token`, read from one snapshot.
    public func fetchChanges(account: String, in zoneID: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) throws -> ZoneChanges {
        let limit = max(1, resultsLimit)
        return try writer.read { db in
            let zone = try ZoneState.fetch(zoneID, account: account, db)
            let since = try token.map { try positions.sequence(of: $0, zoneRowID: zone.rowID, history: zone.history) } ?? 0
            // Read row by row: a page stops at its count or at its bytes (`PageBudget`), and
            // only its rows are held.
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT recordName, changeSequence, recordType, changeTag, creationDate, modificationDate, fields
                    FROM record WHERE zoneId = ? AND changeSequence > ?
                    UNION ALL
                    SELECT recordName, changeSequence, recordType, NULL, NULL, NULL, NULL
                    FROM deletion WHERE zoneId = ? AND changeSequence > ?
                    ORDER BY changeSequence LIMIT ?
                    """),
                arguments: [zone.rowID, since, zone.rowID, since, limit + 1])
            var changed: [RemoteRecord] = []
            var deleted: [DeletedRecord] = []
            var (count, bytes, last, moreComing) = (0, 0, Int64(0), false)
            // Columns by index: a lookup by name folds the name's case every time.
            while let row = try rows.next() {
                if PageBudget.isFull(count: count, bytes: bytes, limit: limit) {
                    moreComing = true
                    break
                }
                let recordID = RecordID(recordName: row[0], zoneID: zoneID)
                if row.hasNull(atIndex: 3) {
                    deleted.append(DeletedRecord(recordID: recordID, recordType: row[2]))
                } else {
                    let record = try StoredRecord.decode(row, recordID: recordID, from: 2)
                    bytes += try row.withUnsafeData(atIndex: 6) { $0?.count ?? 0 }
                    changed.append(record)
                }
                count += 1
                last = row[1]
            }
            let through: Int64 = moreComing ? last : zone.changeSequence
            return ZoneChanges(
                changed: changed, deleted: deleted,
                token: positions.token(ZonePosition(zoneRowID: zone.rowID, sequence: through)), moreComing: moreComing)
        }
    }

    /// The records of type `recordType` in `zoneID`, by name.
    public func records(account: String, in zoneID: RecordZoneID, ofType recordType: String) throws -> [RemoteRecord] {
        try records(account: account, in: zoneID, ofType: recordType, after: nil, limit: Int.max)
    }

    /// At most `limit` records of type `recordType` in `zoneID` whose names sort after
    /// `after` (from the first if nil), by name: one page of a query.
    public func records(
        account: String, in zoneID: RecordZoneID, ofType recordType: String, after: String?, limit: Int
    ) throws -> [RemoteRecord] {
        try writer.read { db in
            let zone = try ZoneState.fetch(zoneID, account: account, db)
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT recordName, recordType, changeTag, creationDate, modificationDate, fields
                    FROM record WHERE zoneId = ? AND recordType = ? AND (? IS NULL OR recordName > ?)
                    ORDER BY recordName LIMIT ?
                    """,
                arguments: [zone.rowID, recordType, after, after, Int64(clamping: max(0, limit))]
            ).map { row in try StoredRecord.decode(row, recordID: RecordID(recordName: row[0], zoneID: zoneID), from: 1) }
        }
    }

    /// Stores the key of one field of a record (`QueryKey`).
    static let insertFieldKey = "INSERT INTO recordField (zoneId, recordName, fieldName, recordType, valueKey) VALUES (?, ?, ?, ?, ?)"

    /// The fields of `account` whose keys are kept (`QueryableFields`).
    static func queryableFields(of account: String, _ db: Database) throws -> QueryableFields {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT recordType, fieldName FROM queryableField WHERE account = ?"), arguments: [account])
        return QueryableFields(rows.map { (recordType: $0[0], fieldName: $0[1]) })
    }

    /// The records of `zoneID` named by the first of `names` that exist, read one at a time
    /// until they hold `byteBudget` bytes (see `RecordZoneStore`).
    public func records(account: String, in zoneID: RecordZoneID, named names: [String], byteBudget: Int) throws -> NamedRecords {
        try writer.read { db in
            let zone = try ZoneState.fetch(zoneID, account: account, db)
            var (read, bytes) = (NamedRecords(), 0)
            for name in names {
                if NamedRecords.isFull(bytes: bytes, byteBudget: byteBudget) { break }
                read.namesRead += 1
                guard let record = try StoredRecord.fetch(RecordID(recordName: name, zoneID: zoneID), zone: zone, db) else { continue }
                read.records.append(record)
                bytes += PageBudget.bytes(of: record)
            }
            return read
        }
    }

    /// Deletes the records whose `DELETE_SELF` references name one of `deleted` (records
    /// this request deleted), and the records whose references name those, in turn: at most
    /// `ReferenceRules.cascadeBatch` of them. A cascade a modify left unfinished in a zone of
    /// this request (`pendingCascade`) is taken up first; what this one leaves is kept for
    /// the next. The deletions are remembered for change fetches as any other.
    private func cascade(
        from deleted: [RecordID], zones: inout [RecordZoneID: ZoneState], queryable: QueryableFields, now: Timestamp,
        by device: String?, dropping dropped: inout Set<String>, _ db: Database
    ) throws {
        var targets: [RecordID] = []
        let takePending = try db.cachedStatement(sql: "DELETE FROM pendingCascade WHERE zoneId = ? RETURNING targetName")
        for (zoneID, zone) in zones {
            targets += try String.fetchAll(takePending, arguments: [zone.rowID]).map { RecordID(recordName: $0, zoneID: zoneID) }
        }
        targets += deleted
        let referencing = try db.cachedStatement(sql: "SELECT recordName FROM cascadingReference WHERE zoneId = ? AND targetName = ?")
        var (next, budget) = (0, ReferenceRules.cascadeBatch)
        while next < targets.count {
            let target = targets[next]
            for name in try String.fetchAll(referencing, arguments: [zones[target.zoneID]!.rowID, target.recordName]) {
                guard budget > 0 else {
                    return try Self.keepPending(targets[next...].map { (zones[$0.zoneID]!.rowID, $0.recordName) }, db)
                }
                let recordID = RecordID(recordName: name, zoneID: target.zoneID)
                if try delete(recordID, zone: &zones[target.zoneID]!, queryable: queryable, now: now, by: device, dropping: &dropped, db) {
                    targets.append(recordID)
                    budget -= 1
                }
            }
            next += 1
        }
    }

    /// Deletes `recordID` if the server has it, remembering the deletion for change fetches;
    /// whether it did. The checksums of the assets it named go into `dropped`.
    @discardableResult
    private func delete(
        _ recordID: RecordID, zone: inout ZoneState, queryable: QueryableFields, now: Timestamp, by device: String?,
        dropping dropped: inout Set<String>, _ db: Database
    ) throws -> Bool {
        let recordType = try String.fetchOne(
            db.cachedStatement(sql: "SELECT recordType FROM record WHERE zoneId = ? AND recordName = ?"),
            arguments: [zone.rowID, recordID.recordName])
        guard let recordType else { return false }
        let sequence = zone.nextSequence()
        try db.cachedStatement(sql: "DELETE FROM record WHERE zoneId = ? AND recordName = ?")
            .execute(arguments: [zone.rowID, recordID.recordName])
        if !queryable.fields(of: recordType).isEmpty {
            try db.cachedStatement(sql: "DELETE FROM recordField WHERE zoneId = ? AND recordName = ?")
                .execute(arguments: [zone.rowID, recordID.recordName])
        }
        dropped.formUnion(try String.fetchAll(
            db.cachedStatement(sql: "DELETE FROM assetReference WHERE zoneId = ? AND recordName = ? RETURNING checksum"),
            arguments: [zone.rowID, recordID.recordName]))
        try db.cachedStatement(sql: "DELETE FROM cascadingReference WHERE zoneId = ? AND recordName = ?")
            .execute(arguments: [zone.rowID, recordID.recordName])
        try db.cachedStatement(
            sql: """
                INSERT INTO deletion (zoneId, recordName, changeSequence, recordType, deletedAt, writtenBy) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (zoneId, recordName) DO UPDATE SET
                    changeSequence = excluded.changeSequence, recordType = excluded.recordType, deletedAt = excluded.deletedAt,
                    writtenBy = excluded.writtenBy
                """
        ).execute(arguments: [zone.rowID, recordID.recordName, sequence, recordType, now.milliseconds, device])
        return true
    }

    /// Stores `record` with a new change tag and server times, and returns it as stored.
    private func save(
        _ record: RemoteRecord, fields: String, over server: RemoteRecord?, zone: inout ZoneState, queryable: QueryableFields,
        now: Timestamp, by device: String?, _ db: Database
    ) throws -> RemoteRecord {
        let sequence = zone.nextSequence()
        let saved = ModifyRules.stored(
            record, changeTag: positions.changeTag(ZonePosition(zoneRowID: zone.rowID, sequence: sequence)), over: server, now: now)
        try db.cachedStatement(sql: "DELETE FROM deletion WHERE zoneId = ? AND recordName = ?")
            .execute(arguments: [zone.rowID, record.recordID.recordName])
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO record
                    (zoneId, recordName, changeSequence, recordType, changeTag, creationDate, modificationDate, fields, writtenBy)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                zone.rowID, record.recordID.recordName, sequence, record.recordType, saved.changeTag,
                saved.creationDate?.milliseconds, now.milliseconds, fields, device,
            ])
        if !queryable.isEmpty { try saveFieldKeys(of: record, over: server, queryable: queryable, zoneRowID: zone.rowID, db) }
        return saved
    }

    /// Stores the keys of `record`'s queryable fields (`QueryKey`, `QueryableFields`) in
    /// place of those of `server`, the record it replaces (nil for a new one, which has
    /// none): only the keys that changed are written, so an update of one field writes one key.
    private func saveFieldKeys(
        of record: RemoteRecord, over server: RemoteRecord?, queryable: QueryableFields, zoneRowID: Int64, _ db: Database
    ) throws {
        let keys = queryable.keys(of: record.fields, recordType: record.recordType)
        var kept: Set<String> = []
        if let server, server.recordType != record.recordType {
            try db.cachedStatement(sql: "DELETE FROM recordField WHERE zoneId = ? AND recordName = ?")
                .execute(arguments: [zoneRowID, record.recordID.recordName])
        } else if let server {
            // The server's record has a key for each of its queryable fields, no other.
            let stored = Dictionary(queryable.keys(of: server.fields, recordType: server.recordType)) { first, _ in first }
            kept = Set(keys.filter { stored[$0.fieldName] == $0.key }.map(\.fieldName))
            let delete = try db.cachedStatement(sql: "DELETE FROM recordField WHERE zoneId = ? AND recordName = ? AND fieldName = ?")
            for fieldName in stored.keys where !kept.contains(fieldName) {
                try delete.execute(arguments: [zoneRowID, record.recordID.recordName, fieldName])
            }
        }
        let insert = try db.cachedStatement(sql: Self.insertFieldKey)
        for (fieldName, key) in keys where !kept.contains(fieldName) {
            try insert.execute(arguments: [zoneRowID, record.recordID.recordName, fieldName, record.recordType, key])
        }
    }
}

/// Rolls back an atomic modify that had a failed item.
private struct AtomicFailure: Error {
    var failures: [RecordID: CloudError]
}

/// A zone of the account being served, and the sequence of its latest change.
private struct ZoneState {
    var rowID: Int64
    var changeSequence: Int64
    var purgedThrough: Int64

    /// The zone `zoneID` of `account`; throws `zoneNotFound` if it is missing.
    static func fetch(_ zoneID: RecordZoneID, account: String, _ db: Database) throws -> ZoneState {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, changeSequence, purgedThrough FROM zone WHERE account = ? AND name = ?"),
            arguments: [account, zoneID.zoneName])
        guard let row else { throw CloudError.zoneNotFound }
        return ZoneState(rowID: row[0], changeSequence: row[1], purgedThrough: row[2])
    }

    /// The zones `zoneIDs` of `account`, by id; throws `zoneNotFound` if any is missing.
    static func fetch(_ zoneIDs: Set<RecordZoneID>, account: String, _ db: Database) throws -> [RecordZoneID: ZoneState] {
        try Dictionary(uniqueKeysWithValues: zoneIDs.map { ($0, try fetch($0, account: account, db)) })
    }

    /// Takes the next change sequence of the zone.
    mutating func nextSequence() -> Int64 {
        changeSequence += 1
        return changeSequence
    }

    /// The sequences whose changes the zone still holds: purged through, latest change.
    var history: ClosedRange<Int64> { purgedThrough...changeSequence }
}

/// Reading and writing records in the server's `record` table.
enum StoredRecord {
    /// The stored record `recordID`, or nil.
    fileprivate static func fetch(_ recordID: RecordID, zone: ZoneState, _ db: Database) throws -> RemoteRecord? {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT recordType, changeTag, creationDate, modificationDate, fields
                FROM record WHERE zoneId = ? AND recordName = ?
                """),
            arguments: [zone.rowID, recordID.recordName])
        return try row.map { try decode($0, recordID: recordID, from: 0) }
    }

    /// Whether the server remembers a deletion of `recordID`.
    fileprivate static func isDeletionRemembered(_ recordID: RecordID, zone: ZoneState, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM deletion WHERE zoneId = ? AND recordName = ?)"),
            arguments: [zone.rowID, recordID.recordName]) ?? false
    }

    /// The record in `row`, whose columns from index `first` on are `recordType, changeTag,
    /// creationDate, modificationDate, fields` (read by index: a lookup by name folds the
    /// name's case every time).
    static func decode(_ row: Row, recordID: RecordID, from first: Int) throws -> RemoteRecord {
        RemoteRecord(
            recordType: row[first], recordID: recordID, fields: try StoredFields.decode(row[first + 4]),
            changeTag: row[first + 1],
            creationDate: (row[first + 2] as Int64?).map(Timestamp.init(milliseconds:)),
            modificationDate: (row[first + 3] as Int64?).map(Timestamp.init(milliseconds:)))
    }
}
