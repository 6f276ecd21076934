import CloudKitModel
import GRDB
import ServerStore

/// What each account may hold: records, zones and asset bytes (`AccountQuota`). A limit of
/// none is stored as -1.
extension SQLiteRecordStore {
    /// Sets what `account` may hold. Saving a new record, making a zone or storing an asset
    /// beyond it fails with `quotaExceeded`; what is stored stays, and updates still work.
    public func setQuota(_ quota: AccountQuota, account: String) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO quota (account, maxRecords, maxZones, maxAssetBytes) VALUES (?, ?, ?, ?)
                    ON CONFLICT (account) DO UPDATE
                    SET maxRecords = excluded.maxRecords, maxZones = excluded.maxZones, maxAssetBytes = excluded.maxAssetBytes
                    """,
                arguments: [account, quota.maxRecords ?? -1, quota.maxZones ?? -1, quota.maxAssetBytes ?? -1])
        }
    }

    /// Limits `account` to `maxRecords` records (nil: no limit), its other limits as they were.
    public func setQuota(maxRecords: Int?, account: String) throws {
        var quota = try quota(account: account)
        quota.maxRecords = maxRecords
        try setQuota(quota, account: account)
    }

    /// What `account` may hold: its quota, or `AccountQuota.defaults`.
    public func quota(account: String) throws -> AccountQuota {
        try writer.read { db in try Self.quota(of: account, db) }
    }

    /// What `account` holds now.
    public func usage(account: String) throws -> AccountUsage {
        try writer.read { db in
            AccountUsage(
                records: try Self.recordCount(of: account, db), zones: try Self.zoneCount(of: account, db),
                assetBytes: try Self.assetBytes(of: account, db))
        }
    }

    /// How many records `account` holds across its zones.
    public func recordCount(account: String) throws -> Int {
        try writer.read { db in try Self.recordCount(of: account, db) }
    }

    /// What `account` may hold.
    static func quota(of account: String, _ db: Database) throws -> AccountQuota {
        guard let row = try Row.fetchOne(db, sql: "SELECT maxRecords, maxZones, maxAssetBytes FROM quota WHERE account = ?", arguments: [account])
        else { return .defaults }
        func limit(_ value: Int64) -> Int64? { value < 0 ? nil : value }
        return AccountQuota(
            maxRecords: limit(row[0]).map(Int.init), maxZones: limit(row[1]).map(Int.init), maxAssetBytes: limit(row[2]))
    }

    /// How many records `account` holds across its zones.
    static func recordCount(of account: String, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM record JOIN zone ON zone.id = record.zoneId WHERE zone.account = ?",
            arguments: [account]) ?? 0
    }

    /// How many zones `account` has (its `_defaultZone` not counted).
    static func zoneCount(of account: String, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM zone WHERE account = ? AND name <> ?", arguments: [account, RecordZoneID.defaultZone.zoneName]) ?? 0
    }

    /// How many bytes of assets `account` holds.
    static func assetBytes(of account: String, _ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM asset WHERE account = ?", arguments: [account]) ?? 0
    }
}
