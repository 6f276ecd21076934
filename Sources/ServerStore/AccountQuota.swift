/// What one account may hold: records, zones and the bytes of its assets, across all its
/// databases (every container, both environments). Each limit is nil for none. An account
/// never given a quota has `defaults`, so that one token cannot fill the server's disk with
/// zones or assets.
public struct AccountQuota: Hashable, Sendable {
    /// The most records across its zones.
    public var maxRecords: Int?
    /// The most zones, `_defaultZone` not counted (every account has it).
    public var maxZones: Int?
    /// The most bytes of assets, each asset counted once however many records name it.
    public var maxAssetBytes: Int64?

    /// A quota.
    public init(maxRecords: Int?, maxZones: Int?, maxAssetBytes: Int64?) {
        self.maxRecords = maxRecords
        self.maxZones = maxZones
        self.maxAssetBytes = maxAssetBytes
    }

    /// An account's quota until an operator sets one (`serve account quota`): records
    /// without limit, as before quotas counted anything else; 100 zones (IdeaBox uses two);
    /// 1 GiB of assets.
    public static let defaults = AccountQuota(maxRecords: nil, maxZones: 100, maxAssetBytes: 1 << 30)

    /// Whether an account may hold `records` records: every store asks this (and the two
    /// below) with what the account would hold after the record, zone or asset it is about
    /// to add, inside the transaction that adds it.
    public func admits(records: Int) -> Bool {
        records <= maxRecords ?? .max
    }

    /// Whether an account may hold `zones` zones.
    public func admits(zones: Int) -> Bool {
        zones <= maxZones ?? .max
    }

    /// Whether an account may hold `assetBytes` bytes of assets.
    public func admits(assetBytes: Int64) -> Bool {
        assetBytes <= maxAssetBytes ?? .max
    }
}

/// What one account holds now, across all its databases, as its quota counts it.
public struct AccountUsage: Hashable, Sendable {
    /// Records across its zones, with the deleted ones whose deletion the server still
    /// remembers (until `RecordZoneStore.purgeDeletions` forgets it): each is a row, so
    /// that saving and deleting new names without end is refused like saving them.
    public var records: Int
    /// Zones, `_defaultZone` not counted.
    public var zones: Int
    /// Bytes of its assets.
    public var assetBytes: Int64

    /// A usage.
    public init(records: Int, zones: Int, assetBytes: Int64) {
        self.records = records
        self.zones = zones
        self.assetBytes = assetBytes
    }
}
