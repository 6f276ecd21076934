import CloudKitModel
import GRDB
import ServerStore

/// Zone subscriptions. One process serves a SQLite store, so its changes are announced
/// within that process (`CloudServer`'s hub) and there is no one else to tell.
extension SQLiteRecordStore {
    /// The zone subscriptions of `account`, by id.
    public func subscriptions(account: String) throws -> [ZoneSubscription] {
        // One statement, read from one snapshot: no transaction around it (every long poll asks).
        try writer.unsafeRead { db in try Self.subscriptions(of: account, db) }
    }

    /// The zone subscriptions of `account`, by id, read in `db`.
    static func subscriptions(of account: String, _ db: Database) throws -> [ZoneSubscription] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT id, zoneName FROM subscription WHERE account = ? ORDER BY id"), arguments: [account])
            .map { ZoneSubscription(id: $0["id"], zone: RecordZoneID(zoneName: $0["zoneName"])) }
    }

    /// Saves `subscription` for `account`, replacing one with its id.
    public func saveSubscription(_ subscription: ZoneSubscription, account: String) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO subscription (account, id, zoneName, createdAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT (account, id) DO UPDATE SET zoneName = excluded.zoneName
                    """,
                arguments: [account, subscription.id, subscription.zone.zoneName, clock.now().milliseconds])
        }
    }

    /// Deletes the subscription `id` of `account`; returns whether there was one.
    public func deleteSubscription(id: String, account: String) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM subscription WHERE account = ? AND id = ?", arguments: [account, id])
            return db.changesCount > 0
        }
    }

    public func announceChanges(account: String, zones: Set<RecordZoneID>, from process: String) {}

    public func keepListening(account: String, process: String, for duration: Duration) {}

    public func listenForChanges(_ handler: @escaping @Sendable (String, String, RecordZoneID) -> Void) {}
}
