import CloudKitModel

/// What the server decides of assets, whichever store holds them: which uploads it takes,
/// whether a save names only assets the account holds, and which references a save keeps
/// and drops. The stores read the sizes and references these are decided over, and write
/// what they say.
public enum AssetRules {
    /// The most assets one transaction of a store's `collectAssets` looks at, so that a
    /// writer waits for one batch at most.
    public static let collectionBatch = 100

    /// Why an upload of `size` bytes is refused whatever the account holds (`limitExceeded`
    /// above `AssetReference.maximumSize`), or nil if it is not.
    public static func refusal(uploading size: Int64) -> CloudError? {
        size > Int64(AssetReference.maximumSize) ? .limitExceeded : nil
    }

    /// Why storing `reference`, an asset the account does not hold yet, is refused where it
    /// holds `assetBytes` bytes of assets under `quota` (`quotaExceeded`), or nil if it is
    /// not. An asset the account holds already is never refused: only its time moves on.
    public static func refusal(storing reference: AssetReference, assetBytes: Int64, quota: AccountQuota) -> CloudError? {
        quota.admits(assetBytes: assetBytes + reference.size) ? nil : .quotaExceeded
    }

    /// The references of the assets `record`'s fields name.
    public static func references(of record: RemoteRecord) -> [AssetReference] {
        record.fields.values.flatMap(\.assetReferences)
    }

    /// Whether the account holds every asset `record` names at the size it names, where
    /// `held` is the size of each asset it holds, by checksum (among those `record` names, or more).
    public static func namesHeldAssets(_ record: RemoteRecord, held: [String: Int64]) -> Bool {
        references(of: record).allSatisfy { held[$0.checksum] == $0.size }
    }

    /// The references a save of `record` over `server` (the record it replaces, nil for a new
    /// one) changes, by checksum: those `server` named and `record` does not (`dropped`: the
    /// asset is deleted at the end of the request if no record names it then), and those
    /// `record` names and `server` did not (`added`). Both are empty for a record that names
    /// the assets it replaced, so it costs nothing.
    public static func referenceChange(of record: RemoteRecord, over server: RemoteRecord?) -> (dropped: Set<String>, added: Set<String>) {
        let named = Set(references(of: record).map(\.checksum))
        let before = Set(server.map { references(of: $0).map(\.checksum) } ?? [])
        return (before.subtracting(named), named.subtracting(before))
    }
}
