import GRDB

/// How many records each account may hold.
extension SQLiteRecordStore {
    /// Limits `account` to `maxRecords` records across its zones (nil: no limit). Saving a
    /// new record beyond it fails that record with `quotaExceeded`; records already stored
    /// stay, and updating them still works.
    public func setQuota(maxRecords: Int?, account: String) throws {
        try writer.write { db in
            if let maxRecords {
                try db.execute(
                    sql: "INSERT INTO quota (account, maxRecords) VALUES (?, ?) ON CONFLICT (account) DO UPDATE SET maxRecords = excluded.maxRecords",
                    arguments: [account, maxRecords])
            } else {
                try db.execute(sql: "DELETE FROM quota WHERE account = ?", arguments: [account])
            }
        }
    }

    /// How many records `account` holds across its zones.
    public func recordCount(account: String) throws -> Int {
        try writer.read { db in try Self.recordCount(of: account, db) }
    }

    /// The most records `account` may hold, or nil for no limit.
    package static func quota(of account: String, _ db: Database) throws -> Int? {
        try Int.fetchOne(db, sql: "SELECT maxRecords FROM quota WHERE account = ?", arguments: [account])
    }

    /// How many records `account` holds across its zones.
    package static func recordCount(of account: String, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM record JOIN zone ON zone.id = record.zoneId WHERE zone.account = ?",
            arguments: [account]) ?? 0
    }
}
