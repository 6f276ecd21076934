import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// The asset bytes of each account, stored a chunk at a time.
public protocol AssetStore: Sendable {
    /// Stores `bytes`, which `reference` names (its checksum and size computed from them by
    /// the caller), as an asset of `account`, a chunk at a time; once, however often it
    /// comes. `limitExceeded` above `AssetReference.maximumSize`, `quotaExceeded` beyond the
    /// account's asset bytes.
    func storeAsset(_ reference: AssetReference, bytes: AssetBytes, account: String) async throws
    /// How many chunks the asset of `account` with `checksum` is stored in, or nil if it has none.
    func assetChunkCount(_ checksum: String, account: String) async throws -> Int?
    /// Chunk `index` (from 0) of the asset of `account` with `checksum`, or nil if there is none.
    func assetChunk(_ checksum: String, account: String, index: Int) async throws -> Data?
    /// Deletes the assets uploaded before `cutoff` that no record of their account names;
    /// returns how many. (The cutoff spares an asset uploaded for a save still to come.)
    func collectAssets(uploadedBefore cutoff: Timestamp) async throws -> Int
}

extension AssetStore {
    /// Stores `data` as an asset of `account` and returns its reference (see `storeAsset(_:bytes:account:)`).
    public func storeAsset(_ data: Data, account: String) async throws -> AssetReference {
        guard data.count <= AssetReference.maximumSize else { throw CloudError.limitExceeded }
        let reference = AssetReference(of: data)
        try await storeAsset(reference, bytes: .data(data), account: account)
        return reference
    }

    /// The whole of the asset of `account` with `checksum`, or nil if it has none.
    public func asset(_ checksum: String, account: String) async throws -> Data? {
        guard let count = try await assetChunkCount(checksum, account: account) else { return nil }
        var data = Data()
        for index in 0..<count {
            guard let chunk = try await assetChunk(checksum, account: account, index: index) else { return nil }
            data.append(chunk)
        }
        return data
    }
}
