import CloudKitModel
import ServerStore
import Testing

/// `AssetRules`: which uploads the server takes and which asset references a save keeps and
/// drops, decided over plain values with no store and no database (issue 61).
@Suite struct AssetRulesTests {
    static func reference(_ digit: Character, size: Int64 = 10) -> AssetReference {
        AssetReference(checksum: String(repeating: digit, count: 64), size: size)!
    }

    static func record(_ fields: [String: FieldValue]) -> RemoteRecord {
        RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "a", zoneID: RecordZoneID(zoneName: "Ideas")), fields: fields)
    }

    @Test("An upload above the largest asset is refused with limitExceeded whatever the account holds; one of the largest size is not")
    func uploadSize() {
        #expect(AssetRules.refusal(uploading: Int64(AssetReference.maximumSize) + 1) == .limitExceeded)
        #expect(AssetRules.refusal(uploading: Int64(AssetReference.maximumSize)) == nil)
    }

    @Test("A new asset that would take the account past its bytes is refused with quotaExceeded; one that fills them exactly is stored")
    func uploadQuota() {
        let quota = AccountQuota(maxRecords: nil, maxZones: nil, maxAssetBytes: 100)
        #expect(AssetRules.refusal(storing: Self.reference("a", size: 10), assetBytes: 91, quota: quota) == .quotaExceeded)
        #expect(AssetRules.refusal(storing: Self.reference("a", size: 10), assetBytes: 90, quota: quota) == nil)
        #expect(AssetRules.refusal(storing: Self.reference("a", size: 10), assetBytes: 1 << 40, quota: AccountQuota(maxRecords: nil, maxZones: nil, maxAssetBytes: nil)) == nil)
    }

    @Test("A record names held assets only where every asset it names, in any field or list, is held at the size it names")
    func heldAssets() {
        let (a, b) = (Self.reference("a"), Self.reference("b", size: 20))
        let record = Self.record(["file": .asset(a), "more": .list([.asset(b)]), "title": .string("x")])
        #expect(Set(AssetRules.references(of: record)) == [a, b])
        #expect(AssetRules.namesHeldAssets(record, held: [a.checksum: 10, b.checksum: 20]))
        #expect(!AssetRules.namesHeldAssets(record, held: [a.checksum: 10]))
        #expect(!AssetRules.namesHeldAssets(record, held: [a.checksum: 10, b.checksum: 21]))
        #expect(AssetRules.namesHeldAssets(Self.record(["title": .string("x")]), held: [:]))
    }

    @Test("A save drops the references its record no longer names and adds those it names anew; the same assets change nothing")
    func referenceChange() {
        let (a, b, c) = (Self.reference("a"), Self.reference("b"), Self.reference("c"))
        let server = Self.record(["one": .asset(a), "two": .asset(b)])
        let change = AssetRules.referenceChange(of: Self.record(["two": .asset(b), "three": .asset(c)]), over: server)
        #expect(change.dropped == [a.checksum] && change.added == [c.checksum])
        let same = AssetRules.referenceChange(of: Self.record(["renamed": .asset(a), "two": .asset(b)]), over: server)
        #expect(same.dropped.isEmpty && same.added.isEmpty)
        let new = AssetRules.referenceChange(of: server, over: nil)
        #expect(new.dropped.isEmpty && new.added == [a.checksum, b.checksum])
    }
}
