import CloudKitModel
import CloudStore
import CloudWebServices
import Foundation
import IdeaBoxCore
import Logging
import PostgresNIO

/// Files stored per account by their SHA-256, beside the records that name them.
extension PostgresRecordStore {
    public func storeAsset(_ data: Data, account: String) async throws -> AssetReference {
        guard data.count <= AssetReference.maximumSize else { throw CloudError.limitExceeded }
        let reference = AssetReference(of: data)
        let now = clock.now().milliseconds
        try await run { connection in
            try await connection.query(
                """
                INSERT INTO asset (account, checksum, size, uploaded_at, data)
                VALUES (\(account), \(reference.checksum), \(reference.size), \(now), \(data))
                ON CONFLICT (account, checksum) DO NOTHING
                """, logger: logger)
        }
        return reference
    }

    public func asset(_ checksum: String, account: String) async throws -> Data? {
        try await run { connection in
            let rows = try await connection.query(
                "SELECT data FROM asset WHERE account = \(account) AND checksum = \(checksum)", logger: logger)
            for try await data in rows.decode(ByteBuffer.self) { return Data(data.readableBytesView) }
            return nil
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
