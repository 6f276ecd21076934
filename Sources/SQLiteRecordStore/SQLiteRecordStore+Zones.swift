import CloudKitModel
import GRDB
import IdeaBoxFoundation
import ServerStore

/// The zones of each account, and the change history they keep.
extension SQLiteRecordStore {
    /// The zones of `account`, by name.
    public func zones(account: String) throws -> [RecordZoneID] {
        try writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM zone WHERE account = ? ORDER BY name", arguments: [account])
                .map(RecordZoneID.init(zoneName:))
        }
    }

    /// The zones of `account`, each with the token of its latest change.
    public func zoneTokens(account: String) throws -> [RecordZoneID: ChangeToken] {
        // One statement, which SQLite reads from one snapshot: no transaction around it (a
        // long poll asks this for every device an account's change wakes).
        try writer.unsafeRead { db in try zoneTokens(of: account, db) }
    }

    /// The zones of `account`, each with the token of its latest change, read in `db`.
    func zoneTokens(of account: String, _ db: Database) throws -> [RecordZoneID: ChangeToken] {
        var tokens: [RecordZoneID: ChangeToken] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT id, name, changeSequence FROM zone WHERE account = ?"), arguments: [account]) {
            tokens[RecordZoneID(zoneName: row["name"])] = positions.token(ZonePosition(zoneRowID: row["id"], sequence: row["changeSequence"]))
        }
        return tokens
    }

    /// Creates `zone` in `account` unless it exists.
    public func createZone(_ zone: RecordZoneID, account: String) throws {
        try writer.write { db in
            let exists = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM zone WHERE account = ? AND name = ?)", arguments: [account, zone.zoneName]) ?? false
            if QuotaRules.addsZone(zone, exists: exists),
               let failure = try QuotaRules.refusal(addingZoneTo: Self.zoneCount(of: account, db), quota: Self.quota(of: account, db)) {
                throw failure
            }
            try db.execute(
                sql: "INSERT INTO zone (account, name, createdAt) VALUES (?, ?, ?) ON CONFLICT (account, name) DO NOTHING",
                arguments: [account, zone.zoneName, clock.now().milliseconds])
        }
    }

    /// Deletes `zone` of `account` with its records and history, if it exists.
    public func deleteZone(_ zone: RecordZoneID, account: String) throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM zone WHERE account = ? AND name = ?", arguments: [account, zone.zoneName])
        }
    }

    /// Forgets deletions made before `cutoff`, as CloudKit trims its change history. Change
    /// tokens older than a forgotten deletion then throw `changeTokenExpired`. Returns how
    /// many deletions were forgotten. The server never purges on its own.
    @discardableResult
    public func purgeDeletions(before cutoff: Timestamp) throws -> Int {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE zone SET purgedThrough = MAX(purgedThrough, (
                        SELECT MAX(changeSequence) FROM deletion WHERE deletion.zoneId = zone.id AND deletedAt < ?))
                    WHERE id IN (SELECT zoneId FROM deletion WHERE deletedAt < ?)
                    """,
                arguments: [cutoff.milliseconds, cutoff.milliseconds])
            try db.execute(sql: "DELETE FROM deletion WHERE deletedAt < ?", arguments: [cutoff.milliseconds])
            return db.changesCount
        }
    }
}
