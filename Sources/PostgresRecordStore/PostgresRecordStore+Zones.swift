import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ServerStore

/// The zones of each account, and the change history they keep.
extension PostgresRecordStore {
    public func zones(account: String) async throws -> [RecordZoneID] {
        try await run { connection in
            var zones: [RecordZoneID] = []
            let rows = try await connection.query("SELECT name FROM zone WHERE account = \(account) ORDER BY name", logger: logger)
            for try await name in rows.decode(String.self) { zones.append(RecordZoneID(zoneName: name)) }
            return zones
        }
    }

    public func zoneTokens(account: String) async throws -> [RecordZoneID: ChangeToken] {
        try await run { connection in
            var tokens: [RecordZoneID: ChangeToken] = [:]
            for try await (id, name, sequence) in try await connection.execute(PostgresPollReads.ZoneSequences(account: account), logger: logger) {
                tokens[RecordZoneID(zoneName: name)] = positions.token(ZonePosition(zoneRowID: id, sequence: sequence))
            }
            return tokens
        }
    }

    public func createZone(_ zone: RecordZoneID, account: String) async throws {
        let now = clock.now().milliseconds
        try await transaction { connection in
            try await Self.lockQuota(of: account, connection, logger)
            let quota = try await Self.quota(account, locking: false, connection, logger)
            let exists = try await Self.count(
                "SELECT COUNT(*) FROM zone WHERE account = \(account) AND name = \(zone.zoneName)", connection, logger) > 0
            if QuotaRules.addsZone(zone, exists: exists),
               let failure = try await QuotaRules.refusal(addingZoneTo: Self.zoneCount(account, connection, logger), quota: quota) {
                throw failure
            }
            try await connection.query(
                """
                INSERT INTO zone (account, name, created_at) VALUES (\(account), \(zone.zoneName), \(now))
                ON CONFLICT (account, name) DO NOTHING
                """, logger: logger)
        }
    }

    public func deleteZone(_ zone: RecordZoneID, account: String) async throws {
        try await run { connection in
            try await connection.query("DELETE FROM zone WHERE account = \(account) AND name = \(zone.zoneName)", logger: logger)
        }
    }

    public func purgeDeletions(before cutoff: Timestamp) async throws -> Int {
        let cutoff = cutoff.milliseconds
        return try await transaction { connection in
            try await connection.query(
                """
                UPDATE zone SET purged_through = GREATEST(purged_through, purged.sequence)
                FROM (SELECT zone_id, MAX(change_sequence) AS sequence FROM deletion WHERE deleted_at < \(cutoff) GROUP BY zone_id) purged
                WHERE zone.id = purged.zone_id
                """, logger: logger)
            return try await Self.count(
                "WITH purged AS (DELETE FROM deletion WHERE deleted_at < \(cutoff) RETURNING 1) SELECT COUNT(*) FROM purged",
                connection, logger)
        }
    }
}
