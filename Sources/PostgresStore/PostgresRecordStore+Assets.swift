import CloudKitModel
import CloudStore
import CloudWebServices
import Foundation
import IdeaBoxCore
import Logging
import PostgresNIO

/// Files stored per account by their SHA-256, in chunks of at most `AssetBytes.chunkSize`,
/// beside the records that name them.
extension PostgresRecordStore {
    public func storeAsset(_ reference: AssetReference, bytes: AssetBytes, account: String) async throws {
        guard reference.size <= AssetReference.maximumSize else { throw CloudError.limitExceeded }
        let now = clock.now().milliseconds
        try await transaction { connection in
            try await Self.lockQuota(of: account, connection, logger)
            let held = try await Self.count(
                "SELECT COUNT(*) FROM asset WHERE account = \(account) AND checksum = \(reference.checksum)", connection, logger)
            guard held == 0 else { return }
            if let maxBytes = try await Self.quota(account, locking: false, connection, logger).maxAssetBytes,
               try await Self.assetBytes(account, connection, logger) + reference.size > maxBytes {
                throw CloudError.quotaExceeded
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
    /// fields' JSON.
    public func collectAssets(uploadedBefore cutoff: Timestamp) async throws -> Int {
        try await run { connection in
            try await Self.count(
                """
                WITH collected AS (
                    DELETE FROM asset WHERE uploaded_at < \(cutoff.milliseconds) AND NOT EXISTS (
                        SELECT 1 FROM record JOIN zone ON zone.id = record.zone_id
                        WHERE zone.account = asset.account AND strpos(record.fields, asset.checksum) > 0)
                    RETURNING 1)
                SELECT COUNT(*) FROM collected
                """, connection, logger)
        }
    }

    /// Those of `references` that `account` holds, at the size each names.
    static func assets(
        _ references: [AssetReference], account: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Set<AssetReference> {
        guard !references.isEmpty else { return [] }
        let checksums = Array(Set(references.map(\.checksum)))
        var held = Set<AssetReference>()
        let rows = try await connection.query(
            "SELECT checksum, size FROM asset WHERE account = \(account) AND checksum = ANY(\(checksums))", logger: logger)
        for try await (checksum, size) in rows.decode((String, Int64).self) {
            if let reference = AssetReference(checksum: checksum, size: size) { held.insert(reference) }
        }
        return held
    }
}
