import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
import ServerStore

/// The server side of assets: files stored per account by their SHA-256, in chunks of at
/// most `AssetBytes.chunkSize`, beside the records that name them.
extension SQLiteRecordStore {
    /// Stores `bytes`, which `reference` names, as an asset of `account` (once, however often
    /// it is uploaded), in one transaction a chunk at a time.
    public func storeAsset(_ reference: AssetReference, bytes: AssetBytes, account: String) throws {
        if let failure = AssetRules.refusal(uploading: reference.size) { throw failure }
        let now = clock.now().milliseconds
        try writer.write { db in
            // Bytes the account holds already: only their time moves on, so that collection
            // spares them for the save this upload is for.
            if let id = try Self.assetID(reference.checksum, account: account, db) {
                try db.execute(sql: "UPDATE asset SET uploadedAt = MAX(uploadedAt, ?) WHERE id = ?", arguments: [now, id])
                return
            }
            if let failure = try AssetRules.refusal(storing: reference, assetBytes: Self.assetBytes(of: account, db), quota: Self.quota(of: account, db)) {
                throw failure
            }
            try db.execute(
                sql: "INSERT INTO asset (account, checksum, size, uploadedAt) VALUES (?, ?, ?, ?)",
                arguments: [account, reference.checksum, reference.size, now])
            let assetID = db.lastInsertedRowID
            let chunks = try bytes.chunks()
            var seq = 0
            while let chunk = try chunks.next() {
                try db.execute(sql: "INSERT INTO assetChunk (assetId, seq, data) VALUES (?, ?, ?)", arguments: [assetID, seq, chunk])
                seq += 1
            }
        }
    }

    /// Stores `data` as an asset of `account` and returns its reference, computed here.
    public func storeAsset(_ data: Data, account: String) throws -> AssetReference {
        if let failure = AssetRules.refusal(uploading: Int64(data.count)) { throw failure }
        let reference = AssetReference(of: data)
        try storeAsset(reference, bytes: .data(data), account: account)
        return reference
    }

    /// How many chunks the asset of `account` with `checksum` is in, or nil if it has none.
    public func assetChunkCount(_ checksum: String, account: String) throws -> Int? {
        try writer.read { db in
            guard let id = try Self.assetID(checksum, account: account, db) else { return nil }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM assetChunk WHERE assetId = ?", arguments: [id])
        }
    }

    /// Chunk `index` of the asset of `account` with `checksum`, or nil.
    public func assetChunk(_ checksum: String, account: String, index: Int) throws -> Data? {
        try writer.read { db in
            try Data.fetchOne(
                db, sql: "SELECT assetChunk.data FROM asset JOIN assetChunk ON assetChunk.assetId = asset.id "
                    + "WHERE asset.account = ? AND asset.checksum = ? AND assetChunk.seq = ?",
                arguments: [account, checksum, index])
        }
    }

    /// The bytes of the asset of `account` with `checksum`, or nil if it has none.
    public func asset(_ checksum: String, account: String) throws -> Data? {
        try writer.read { db in
            guard let id = try Self.assetID(checksum, account: account, db) else { return nil }
            return try Data.fetchAll(db, sql: "SELECT data FROM assetChunk WHERE assetId = ? ORDER BY seq", arguments: [id])
                .reduce(into: Data()) { $0.append($1) }
        }
    }

    /// Deletes the assets uploaded before `cutoff` that no record of their account names.
    /// A record names an asset in its fields' JSON by the asset's checksum (64 hex digits),
    /// so a text search finds every record that might: at worst one that holds the checksum
    /// as a string keeps the asset. An asset found named has its time moved on (it is looked
    /// at again only after another grace), and the work goes in short transactions of at
    /// most `AssetRules.collectionBatch` assets, so that a writer waits for one batch at most.
    @discardableResult
    public func collectAssets(uploadedBefore cutoff: Timestamp) throws -> Int {
        let now = clock.now().milliseconds
        var collected = 0
        while true {
            let (looked, deleted) = try writer.write { db -> (Int, Int) in
                let candidates = try Row.fetchAll(
                    db, sql: "SELECT id, account, checksum FROM asset WHERE uploadedAt < ? ORDER BY uploadedAt LIMIT ?",
                    arguments: [cutoff.milliseconds, AssetRules.collectionBatch])
                var deleted = 0
                for row in candidates {
                    let (id, account, checksum): (Int64, String, String) = (row[0], row[1], row[2])
                    let named = try Bool.fetchOne(
                        db,
                        sql: """
                            SELECT EXISTS (SELECT 1 FROM record JOIN zone ON zone.id = record.zoneId
                                           WHERE zone.account = ? AND instr(record.fields, ?) > 0)
                            """,
                        arguments: [account, checksum]) ?? true
                    if named {
                        try db.execute(sql: "UPDATE asset SET uploadedAt = ? WHERE id = ?", arguments: [now, id])
                    } else {
                        try db.execute(sql: "DELETE FROM asset WHERE id = ?", arguments: [id])
                        deleted += 1
                    }
                }
                return (candidates.count, deleted)
            }
            collected += deleted
            if looked < AssetRules.collectionBatch { return collected }
        }
    }

    private static func assetID(_ checksum: String, account: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM asset WHERE account = ? AND checksum = ?", arguments: [account, checksum])
    }

    /// Keeps `assetReference` naming the assets `record` names, in place of those `server`
    /// (the record it replaces, nil for a new one) named (`AssetRules.referenceChange`); the
    /// checksums `record` no longer names go into `dropped`.
    static func saveAssetReferences(
        of record: RemoteRecord, over server: RemoteRecord?, zoneRowID: Int64, dropping dropped: inout Set<String>, _ db: Database
    ) throws {
        let change = AssetRules.referenceChange(of: record, over: server)
        guard !change.dropped.isEmpty || !change.added.isEmpty else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM assetReference WHERE zoneId = ? AND recordName = ? AND checksum = ?")
        for checksum in change.dropped {
            try delete.execute(arguments: [zoneRowID, record.recordID.recordName, checksum])
            dropped.insert(checksum)
        }
        let insert = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO assetReference (zoneId, recordName, checksum) VALUES (?, ?, ?)")
        for checksum in change.added {
            try insert.execute(arguments: [zoneRowID, record.recordID.recordName, checksum])
        }
    }

    /// Deletes those of the assets of `account` with `checksums` that no record of `account`
    /// (in any of its zones) names: called at the end of the modify that stopped naming
    /// them, in its write transaction, so a save that names one again, in this request or
    /// the next, either came first and keeps it or comes after and finds it gone
    /// (`unknownItem`, and the client uploads it again). The collector stays for uploads
    /// that no save ever named.
    static func deleteUnnamedAssets(_ checksums: Set<String>, account: String, _ db: Database) throws {
        guard !checksums.isEmpty else { return }
        let delete = try db.cachedStatement(
            sql: """
                DELETE FROM asset WHERE account = ? AND checksum = ? AND NOT EXISTS (
                    SELECT 1 FROM assetReference JOIN zone ON zone.id = assetReference.zoneId
                    WHERE assetReference.checksum = ? AND zone.account = ?)
                """)
        for checksum in checksums.sorted() { try delete.execute(arguments: [account, checksum, checksum, account]) }
    }

    /// The size of each of the assets `references` name that `account` holds, by checksum
    /// (`AssetRules.namesHeldAssets`).
    static func heldAssets(_ references: [AssetReference], account: String, _ db: Database) throws -> [String: Int64] {
        var held: [String: Int64] = [:]
        for reference in references where held[reference.checksum] == nil {
            let size = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT size FROM asset WHERE account = ? AND checksum = ?"), arguments: [account, reference.checksum])
            if let size { held[reference.checksum] = size }
        }
        return held
    }
}
