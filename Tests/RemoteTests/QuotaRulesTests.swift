import CloudKitModel
import ServerStore
import Testing

/// `QuotaRules`: whether a zone may be made and how a quota is kept in a row, decided over
/// plain values with no store and no database (issue 61).
@Suite struct QuotaRulesTests {
    @Test("Only a zone that does not exist yet, and is not the default zone, counts against the quota of zones")
    func addsZone() {
        let ideas = RecordZoneID(zoneName: "Ideas")
        #expect(QuotaRules.addsZone(ideas, exists: false))
        #expect(!QuotaRules.addsZone(ideas, exists: true))
        #expect(!QuotaRules.addsZone(RecordZoneID.defaultZone, exists: false))
    }

    @Test("A zone past the quota of zones is refused with quotaExceeded; the last place is taken; no limit refuses none")
    func zoneQuota() {
        let quota = AccountQuota(maxRecords: nil, maxZones: 3, maxAssetBytes: nil)
        #expect(QuotaRules.refusal(addingZoneTo: 3, quota: quota) == .quotaExceeded)
        #expect(QuotaRules.refusal(addingZoneTo: 2, quota: quota) == nil)
        #expect(QuotaRules.refusal(addingZoneTo: 1_000_000, quota: AccountQuota(maxRecords: nil, maxZones: nil, maxAssetBytes: nil)) == nil)
    }

    @Test("A quota is kept as three numbers, -1 for no limit, and read back as it was")
    func storedLimits() {
        let quota = AccountQuota(maxRecords: nil, maxZones: 7, maxAssetBytes: 1 << 33)
        let limits = QuotaRules.storedLimits(of: quota)
        #expect(limits.records == -1 && limits.zones == 7 && limits.assetBytes == 1 << 33)
        #expect(QuotaRules.quota(storedRecords: limits.records, zones: limits.zones, assetBytes: limits.assetBytes) == quota)
        #expect(QuotaRules.quota(storedRecords: 0, zones: -5, assetBytes: -1) == AccountQuota(maxRecords: 0, maxZones: nil, maxAssetBytes: nil))
    }
}
