import CloudKitModel
import GRDB
import ServerStore

/// The index a `DELETE_SELF` cascade reads (`ReferenceRules`): which records of a zone are
/// deleted with which, and the cascades a modify left for the next one of their zone.
extension SQLiteRecordStore {
    /// Keeps `cascadingReference` naming the targets `record`'s `DELETE_SELF` references
    /// name, in place of those of `server` (the record it replaces, nil for a new one;
    /// `ReferenceRules.targetChange`). A new record ends any cascade left pending for its
    /// name: the record it replaces was deleted before it existed.
    static func saveCascadingReferences(of record: RemoteRecord, over server: RemoteRecord?, zoneRowID: Int64, _ db: Database) throws {
        let name = record.recordID.recordName
        if server == nil {
            try db.cachedStatement(sql: "DELETE FROM pendingCascade WHERE zoneId = ? AND targetName = ?").execute(arguments: [zoneRowID, name])
        }
        let change = ReferenceRules.targetChange(of: record, over: server)
        guard !change.dropped.isEmpty || !change.added.isEmpty else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM cascadingReference WHERE zoneId = ? AND recordName = ? AND targetName = ?")
        for target in change.dropped { try delete.execute(arguments: [zoneRowID, name, target]) }
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO cascadingReference (zoneId, recordName, targetName) VALUES (?, ?, ?)")
        for target in change.added { try insert.execute(arguments: [zoneRowID, name, target]) }
    }

    /// Keeps `targets` (a zone's row id and a deleted record's name) for the next modify of
    /// their zone to go on deleting what references them.
    static func keepPending(_ targets: [(zoneRowID: Int64, name: String)], _ db: Database) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO pendingCascade (zoneId, targetName) VALUES (?, ?)")
        for target in targets { try insert.execute(arguments: [target.zoneRowID, target.name]) }
    }
}
