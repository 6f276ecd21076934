import CloudKitModel
import GRDB
import ServerStore

/// What each account may hold: records, zones and asset bytes (`AccountQuota`), across all
/// its databases (`DatabaseOwner`). A limit of none is stored as -1; the quota is kept under
/// the account's own name.
extension SQLiteRecordStore {
    /// Sets what `account` may hold. Saving a new record, making a zone or storing an asset
    /// beyond it fails with `quotaExceeded`; what is stored stays, and updates still work.
    public func setQuota(_ quota: AccountQuota, account: String) throws {
        let limits = QuotaRules.storedLimits(of: quota)
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO quota (account, maxRecords, maxZones, maxAssetBytes) VALUES (?, ?, ?, ?)
                    ON CONFLICT (account) DO UPDATE
                    SET maxRecords = excluded.maxRecords, maxZones = excluded.maxZones, maxAssetBytes = excluded.maxAssetBytes
                    """,
                arguments: [DatabaseOwner.account(of: account), limits.records, limits.zones, limits.assetBytes])
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

    /// What `account` holds now in all its databases.
    public func usage(account: String) throws -> AccountUsage {
        try writer.read { db in try Self.usage(of: account, db) }
    }

    /// How many records the database `account` holds across its zones.
    public func recordCount(account: String) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM record JOIN zone ON zone.id = record.zoneId WHERE zone.account = ?",
                arguments: [account]) ?? 0
        }
    }

    /// What the account of the database `owner` may hold.
    static func quota(of owner: String, _ db: Database) throws -> AccountQuota {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT maxRecords, maxZones, maxAssetBytes FROM quota WHERE account = ?"),
            arguments: [DatabaseOwner.account(of: owner)])
        else { return .defaults }
        return QuotaRules.quota(storedRecords: row[0], zones: row[1], assetBytes: row[2])
    }

    /// What the account of the database `owner` holds in all its databases.
    static func usage(of owner: String, _ db: Database) throws -> AccountUsage {
        AccountUsage(records: try recordCount(of: owner, db), zones: try zoneCount(of: owner, db), assetBytes: try assetBytes(of: owner, db))
    }

    /// How many records the account of `owner` holds in all its databases, with the
    /// deletions still remembered.
    static func recordCount(of owner: String, _ db: Database) throws -> Int {
        let (sql, arguments) = ownedBy(owner)
        let zones = "SELECT id FROM zone WHERE \(sql)"
        return try Int.fetchOne(
            db, sql: "SELECT (SELECT COUNT(*) FROM record WHERE zoneId IN (\(zones))) + (SELECT COUNT(*) FROM deletion WHERE zoneId IN (\(zones)))",
            arguments: arguments + arguments) ?? 0
    }

    /// How many zones the account of `owner` has in all its databases (`_defaultZone` not counted).
    static func zoneCount(of owner: String, _ db: Database) throws -> Int {
        let (sql, arguments) = ownedBy(owner)
        return try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM zone WHERE (\(sql)) AND name <> ?", arguments: arguments + [RecordZoneID.defaultZone.zoneName]) ?? 0
    }

    /// How many bytes of assets the account of `owner` holds in all its databases.
    static func assetBytes(of owner: String, _ db: Database) throws -> Int64 {
        let (sql, arguments) = ownedBy(owner)
        return try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM asset WHERE \(sql)", arguments: arguments) ?? 0
    }

    /// The condition on a table's `account` column that holds for every database of the
    /// account of `owner`.
    private static func ownedBy(_ owner: String) -> (sql: String, arguments: StatementArguments) {
        let account = DatabaseOwner.account(of: owner)
        let others = DatabaseOwner.otherKeys(of: account)
        return ("account = ? OR (account >= ? AND account < ?)", [account, others.from, others.before])
    }
}
