import CloudKitModel

/// What the server decides of quotas outside a modify (which `ModifyRules` decides), whichever
/// store holds them: whether a zone may be made, and how a quota is kept in a row.
public enum QuotaRules {
    /// Whether making `zone`, which `exists` or not, adds a zone the quota counts: a zone that
    /// exists is not made again, and `_defaultZone` (which every account has) is not counted.
    public static func addsZone(_ zone: RecordZoneID, exists: Bool) -> Bool {
        !exists && zone != RecordZoneID.defaultZone
    }

    /// Why adding a zone is refused to an account with `quota` that has `zoneCount` zones
    /// (`quotaExceeded`), or nil if it is not.
    public static func refusal(addingZoneTo zoneCount: Int, quota: AccountQuota) -> CloudError? {
        quota.admits(zones: zoneCount + 1) ? nil : .quotaExceeded
    }

    /// `quota`'s limits as a row keeps them: records, zones, asset bytes, each -1 for none.
    public static func storedLimits(of quota: AccountQuota) -> (records: Int64, zones: Int64, assetBytes: Int64) {
        (Int64(quota.maxRecords ?? -1), Int64(quota.maxZones ?? -1), quota.maxAssetBytes ?? -1)
    }

    /// The quota a row keeps as `records`, `zones` and `assetBytes`, a negative limit being none.
    public static func quota(storedRecords records: Int64, zones: Int64, assetBytes: Int64) -> AccountQuota {
        func limit(_ value: Int64) -> Int64? { value < 0 ? nil : value }
        return AccountQuota(maxRecords: limit(records).map(Int.init), maxZones: limit(zones).map(Int.init), maxAssetBytes: limit(assetBytes))
    }
}
