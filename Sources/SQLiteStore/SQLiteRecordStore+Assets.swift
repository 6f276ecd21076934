import CloudKitModel
import CloudWebServices
import Foundation
import GRDB

/// The server side of assets: files stored per account by their SHA-256, beside the records
/// that name them.
extension SQLiteRecordStore {
    /// Stores `data` as an asset of `account` (once, however often it is uploaded) and
    /// returns its reference, computed here from the bytes.
    public func storeAsset(_ data: Data, account: String) throws -> AssetReference {
        guard data.count <= AssetReference.maximumSize else { throw CloudError.limitExceeded }
        let reference = AssetReference(of: data)
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO asset (account, checksum, size, uploadedAt, data) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (account, checksum) DO NOTHING
                    """,
                arguments: [account, reference.checksum, reference.size, clock.now().milliseconds, data])
        }
        return reference
    }

    /// The bytes of the asset of `account` with `checksum`, or nil if it has none.
    public func asset(_ checksum: String, account: String) throws -> Data? {
        try writer.read { db in
            try Data.fetchOne(db, sql: "SELECT data FROM asset WHERE account = ? AND checksum = ?", arguments: [account, checksum])
        }
    }

    /// Whether `account` holds every asset `record` names, with the size it names.
    static func hasAssets(of record: RemoteRecord, account: String, _ db: Database) throws -> Bool {
        for reference in record.fields.values.flatMap(\.assetReferences) {
            let size = try Int64.fetchOne(
                db, sql: "SELECT size FROM asset WHERE account = ? AND checksum = ?", arguments: [account, reference.checksum])
            guard size == reference.size else { return false }
        }
        return true
    }
}
