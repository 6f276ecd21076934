import CloudKitModel
import Foundation
import Logging
import PostgresNIO
import ServerStore

/// What each account may hold: records, zones and asset bytes (`AccountQuota`), across all
/// its databases (`DatabaseOwner`); a limit of none is stored as -1, the quota under the
/// account's own name.
extension PostgresRecordStore {
    public func setQuota(_ quota: AccountQuota, account: String) async throws {
        let account = DatabaseOwner.account(of: account)
        let (records, zones, bytes) = QuotaRules.storedLimits(of: quota)
        try await run { connection in
            try await connection.query(
                """
                INSERT INTO quota (account, max_records, max_zones, max_asset_bytes) VALUES (\(account), \(records), \(zones), \(bytes))
                ON CONFLICT (account) DO UPDATE
                SET max_records = excluded.max_records, max_zones = excluded.max_zones, max_asset_bytes = excluded.max_asset_bytes
                """, logger: logger)
        }
    }

    public func quota(account: String) async throws -> AccountQuota {
        try await run { connection in try await Self.quota(account, locking: false, connection, logger) }
    }

    public func usage(account: String) async throws -> AccountUsage {
        try await transaction(readOnly: true) { connection in
            AccountUsage(
                records: try await Self.recordCount(account, connection, logger), zones: try await Self.zoneCount(account, connection, logger),
                assetBytes: try await Self.assetBytes(account, connection, logger))
        }
    }

    public func recordCount(account: String) async throws -> Int {
        try await run { connection in
            try await Self.count(
                "SELECT COUNT(*) FROM record JOIN zone ON zone.id = record.zone_id WHERE zone.account = \(account)", connection, logger)
        }
    }

    /// What the account of the database `owner` may hold; with `locking`, its row is locked
    /// to the end of the transaction.
    static func quota(_ owner: String, locking: Bool, _ connection: PostgresConnection, _ logger: Logger) async throws -> AccountQuota {
        let account = DatabaseOwner.account(of: owner)
        let query: PostgresQuery = locking
            ? "SELECT max_records, max_zones, max_asset_bytes FROM quota WHERE account = \(account) FOR UPDATE"
            : "SELECT max_records, max_zones, max_asset_bytes FROM quota WHERE account = \(account)"
        for try await (records, zones, bytes) in try await connection.query(query, logger: logger).decode((Int64, Int64, Int64).self) {
            return QuotaRules.quota(storedRecords: records, zones: zones, assetBytes: bytes)
        }
        return .defaults
    }

    /// Orders, to the end of the transaction, the writes that count against the quota of
    /// the account of `owner`, in all its databases and every process over this database (a
    /// quota row may not exist to lock).
    static func lockQuota(of owner: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(8421, hashtext(\(DatabaseOwner.account(of: owner))))", logger: logger)
    }

    /// How many records the account of `owner` holds in all its databases, with the
    /// deletions still remembered.
    static func recordCount(_ owner: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        let (account, from, before) = keys(owner)
        return try await count(
            """
            WITH zones AS (SELECT id FROM zone WHERE account = \(account) OR (account >= \(from) AND account < \(before)))
            SELECT (SELECT COUNT(*) FROM record WHERE zone_id IN (SELECT id FROM zones))
                 + (SELECT COUNT(*) FROM deletion WHERE zone_id IN (SELECT id FROM zones))
            """, connection, logger)
    }

    /// How many zones the account of `owner` has in all its databases (`_defaultZone` not counted).
    static func zoneCount(_ owner: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        let (account, from, before) = keys(owner)
        return try await count(
            """
            SELECT COUNT(*) FROM zone
            WHERE (account = \(account) OR (account >= \(from) AND account < \(before))) AND name <> \(RecordZoneID.defaultZone.zoneName)
            """, connection, logger)
    }

    /// How many bytes of assets the account of `owner` holds in all its databases.
    static func assetBytes(_ owner: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        let (account, from, before) = keys(owner)
        return Int64(try await count(
            "SELECT COALESCE(SUM(size), 0)::BIGINT FROM asset WHERE account = \(account) OR (account >= \(from) AND account < \(before))",
            connection, logger))
    }

    /// The account of `owner`, and the range of the keys of its other databases.
    private static func keys(_ owner: String) -> (account: String, from: String, before: String) {
        let account = DatabaseOwner.account(of: owner)
        let others = DatabaseOwner.otherKeys(of: account)
        return (account, others.from, others.before)
    }

    static func count(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        Int(try await connection.query(query, logger: logger).collect().first?.decode(Int64.self) ?? 0)
    }
}
