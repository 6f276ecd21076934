import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ServerStore

/// Files stored per account by their SHA-256, in chunks of at most `AssetBytes.chunkSize`,
/// beside the records that name them.
extension PostgresRecordStore {
    public func storeAsset(_ reference: AssetReference, bytes: AssetBytes, account: String) async throws {
        if let failure = AssetRules.refusal(uploading: reference.size) { throw failure }
        let now = clock.now().milliseconds
        try await transaction { connection in
            try await Self.lockQuota(of: account, connection, logger)
            // Bytes the account holds already: only their time moves on, so that collection
            // spares them for the save this upload is for.
            let held = try await Self.count(
                """
                WITH touched AS (
                    UPDATE asset SET uploaded_at = GREATEST(uploaded_at, \(now))
                    WHERE account = \(account) AND checksum = \(reference.checksum) RETURNING 1)
                SELECT COUNT(*) FROM touched
                """, connection, logger)
            guard held == 0 else { return }
            let quota = try await Self.quota(account, locking: false, connection, logger)
            if let failure = try await AssetRules.refusal(storing: reference, assetBytes: Self.assetBytes(account, connection, logger), quota: quota) {
                throw failure
            }
            try await connection.query(
                """
                INSERT INTO asset (account, checksum, size, uploaded_at)
                VALUES (\(account), \(reference.checksum), \(reference.size), \(now))
                """, logger: logger)
            let chunks = try bytes.chunks()
            var seq: Int32 = 0
            while let chunk = try chunks.next() {
                try await connection.query(
                    """
                    INSERT INTO asset_chunk (account, checksum, seq, data)
                    VALUES (\(account), \(reference.checksum), \(seq), \(ByteBuffer(bytes: chunk)))
                    """, logger: logger)
                seq += 1
            }
        }
    }

    public func assetChunkCount(_ checksum: String, account: String) async throws -> Int? {
        try await transaction(readOnly: true) { connection in
            guard try await Self.count(
                "SELECT COUNT(*) FROM asset WHERE account = \(account) AND checksum = \(checksum)", connection, logger) > 0
            else { return nil }
            return try await Self.count(
                "SELECT COUNT(*) FROM asset_chunk WHERE account = \(account) AND checksum = \(checksum)", connection, logger)
        }
    }

    public func assetChunk(_ checksum: String, account: String, index: Int) async throws -> Data? {
        try await run { connection in
            let rows = try await connection.query(
                "SELECT data FROM asset_chunk WHERE account = \(account) AND checksum = \(checksum) AND seq = \(Int32(clamping: index))",
                logger: logger)
            for try await data in rows.decode(ByteBuffer.self) { return Data(data.readableBytesView) }
            return nil
        }
    }

    /// See `SQLiteRecordStore.collectAssets`: a record names an asset by its checksum in its
    /// fields' JSON; an asset found named has its time moved on; a batch a transaction.
    public func collectAssets(uploadedBefore cutoff: Timestamp) async throws -> Int {
        let now = clock.now().milliseconds
        var collected = 0
        while true {
            let (looked, deleted) = try await transaction { connection -> (Int, Int) in
                // SKIP LOCKED: an asset a save is naming now is that save's, not this batch's.
                let rows = try await connection.query(
                    """
                    SELECT account, checksum FROM asset WHERE uploaded_at < \(cutoff.milliseconds)
                    ORDER BY uploaded_at LIMIT \(Int64(AssetRules.collectionBatch)) FOR UPDATE SKIP LOCKED
                    """, logger: logger)
                var candidates: [(String, String)] = []
                for try await row in rows.decode((String, String).self) { candidates.append(row) }
                var deleted = 0
                for (account, checksum) in candidates {
                    let named = try await Self.count(
                        """
                        SELECT COUNT(*) FROM (SELECT 1 FROM record JOIN zone ON zone.id = record.zone_id
                                              WHERE zone.account = \(account) AND strpos(record.fields, \(checksum)) > 0 LIMIT 1) named
                        """, connection, logger) > 0
                    if named {
                        try await connection.query(
                            "UPDATE asset SET uploaded_at = \(now) WHERE account = \(account) AND checksum = \(checksum)", logger: logger)
                    } else {
                        try await connection.query("DELETE FROM asset WHERE account = \(account) AND checksum = \(checksum)", logger: logger)
                        deleted += 1
                    }
                }
                return (candidates.count, deleted)
            }
            collected += deleted
            if looked < AssetRules.collectionBatch { return collected }
        }
    }

    /// Keeps `asset_reference` naming the assets each saved record names, in place of
    /// those of the record it replaced (nil for a new one; `AssetRules.referenceChange`);
    /// returns the checksums a record no longer names.
    static func saveAssetReferences(
        _ saves: [(record: RemoteRecord, over: RemoteRecord?)], zones: ZoneRows, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Set<String> {
        var (removed, added) = (IndexRows(), IndexRows())
        for (record, server) in saves {
            let change = AssetRules.referenceChange(of: record, over: server)
            let zone = zones.rows[record.recordID.zoneID]!.id
            removed.append(zone: zone, name: record.recordID.recordName, values: change.dropped)
            added.append(zone: zone, name: record.recordID.recordName, values: change.added)
        }
        try await IndexRows.update("asset_reference", "checksum", removing: removed, adding: added, connection, logger)
        return Set(removed.values)
    }

    /// Deletes those of the assets of `account` with `checksums` that no record of `account`
    /// names (see `SQLiteRecordStore.deleteUnnamedAssets`). Their rows are locked first, in
    /// checksum order, and only then looked for in `asset_reference`, by a statement that
    /// reads what committed before it: a save naming one of them locked its row
    /// (`heldAssets(_:account:now:_:_:)`) and holds it to its commit, so it either committed
    /// first and is seen here, or waits and then finds the asset gone (`unknownItem`).
    static func deleteUnnamedAssets(
        _ checksums: Set<String>, account: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        guard !checksums.isEmpty else { return }
        let sorted = checksums.sorted()
        _ = try await connection.query(
            "SELECT checksum FROM asset WHERE account = \(account) AND checksum = ANY(\(sorted)) ORDER BY checksum FOR UPDATE",
            logger: logger
        ).collect()
        try await connection.query(
            """
            DELETE FROM asset WHERE account = \(account) AND checksum = ANY(\(sorted)) AND NOT EXISTS (
                SELECT 1 FROM asset_reference JOIN zone ON zone.id = asset_reference.zone_id
                WHERE asset_reference.checksum = asset.checksum AND zone.account = asset.account)
            """, logger: logger)
    }

    /// The size of each asset of `account` that `references` name, by checksum
    /// (`AssetRules.namesHeldAssets`), each locked and its time moved on to `now` for the rest
    /// of the transaction: a collection running at the same time then neither deletes it
    /// under the save nor (seeing the new time) after.
    static func heldAssets(
        _ references: [AssetReference], account: String, now: Int64, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [String: Int64] {
        guard !references.isEmpty else { return [:] }
        let checksums = Array(Set(references.map(\.checksum)))
        var held: [String: Int64] = [:]
        let rows = try await connection.query(
            """
            UPDATE asset SET uploaded_at = GREATEST(uploaded_at, \(now))
            WHERE account = \(account) AND checksum = ANY(\(checksums)) RETURNING checksum, size
            """, logger: logger)
        for try await (checksum, size) in rows.decode((String, Int64).self) { held[checksum] = size }
        return held
    }
}
