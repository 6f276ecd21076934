import CloudKitModel
import Foundation
import IdeaBoxFoundation
import ServerStore
import Testing

/// `ModifyRules`: whether a modify takes each save, decided over plain values with no store
/// and no database (issue 61: the rule both stores apply, written once).
@Suite struct ModifyRulesTests {
    static let zone = RecordZoneID(zoneName: "Ideas")
    static let asset = AssetReference(checksum: String(repeating: "a", count: 64), size: 10)!

    static func record(_ name: String, in zone: RecordZoneID = zone, fields: [String: FieldValue] = ["title": .string("x")]) -> RemoteRecord {
        RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: name, zoneID: zone), fields: fields)
    }

    static func stored(_ name: String, tag: String = "t1", fields: [String: FieldValue] = ["title": .string("x")]) -> RemoteRecord {
        RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: name, zoneID: zone), fields: fields, changeTag: tag,
            creationDate: Timestamp(milliseconds: 1_000), modificationDate: Timestamp(milliseconds: 2_000))
    }

    static let unlimited = AccountQuota(maxRecords: nil, maxZones: nil, maxAssetBytes: nil)

    @Test("A request of more saves and deletes than the store takes is refused whole with limitExceeded; one at the maximum is not")
    func operationsLimit() {
        #expect(ModifyRules.refusal(operations: 401, maximum: 400) == .limitExceeded)
        #expect(ModifyRules.refusal(operations: 400, maximum: 400) == nil)
    }

    @Test("A save failing several rules fails with the first: encryption, then its policy, then its size, then an unknown asset, then the quota")
    func refusalsComeInOrder() {
        let huge: FieldValue = .string(String(repeating: "x", count: RecordSizeLimit.maximumBytes + 1))
        var rules = ModifyRules(sealing: .sealed, quota: AccountQuota(maxRecords: 0, maxZones: nil, maxAssetBytes: nil), recordCount: 0)
        let server = Self.stored("a", tag: "t1")
        var stale = Self.record("a", fields: ["title": huge, "file": .asset(Self.asset)])
        stale.changeTag = "t0"
        func failure(_ record: RemoteRecord, _ policy: SavePolicy, over existing: RemoteRecord?) -> CloudError? {
            Self.failure(rules.decide(RecordSave(record, policy: policy), over: existing, deletionRemembered: false, heldAssets: [:]))
        }
        #expect(failure(stale, .ifServerRecordUnchanged, over: server) == .encryptionChanged)
        rules.sealing = .unknown
        #expect(failure(stale, .ifServerRecordUnchanged, over: server) == .serverRecordChanged(serverRecord: server))
        #expect(failure(stale, .allKeys, over: nil) == .limitExceeded)
        #expect(failure(Self.record("a", fields: ["file": .asset(Self.asset)]), .allKeys, over: nil) == .unknownItem)
        #expect(failure(Self.record("a"), .allKeys, over: nil) == .quotaExceeded)
        #expect(failure(Self.record("a"), .allKeys, over: server) == nil, "an update adds no record")
    }

    @Test("The sealing rule refuses a plain save while the database holds an envelope and a sealed one once it was turned off")
    func sealing() {
        let sealed = Self.record("s", fields: [SealingRule.sealedField: .bytes(Data([1]))])
        var rules = ModifyRules(sealing: .sealed, quota: Self.unlimited, recordCount: 0)
        #expect(Self.failure(rules.decide(RecordSave(Self.record("p"), policy: .allKeys), over: nil, deletionRemembered: false, heldAssets: [:])) == .encryptionChanged)
        #expect(Self.failure(rules.decide(RecordSave(sealed, policy: .allKeys), over: nil, deletionRemembered: false, heldAssets: [:])) == nil)
        rules.sealing = .plain
        #expect(Self.failure(rules.decide(RecordSave(sealed, policy: .allKeys), over: nil, deletionRemembered: false, heldAssets: [:])) == .encryptionChanged)
    }

    @Test("A save naming an asset is taken only where the account holds it at the size named")
    func assetsMustBeHeld() {
        var rules = ModifyRules(sealing: .unknown, quota: Self.unlimited, recordCount: 0)
        let save = RecordSave(Self.record("a", fields: ["file": .asset(Self.asset)]), policy: .allKeys)
        #expect(Self.failure(rules.decide(save, over: nil, deletionRemembered: false, heldAssets: [Self.asset.checksum: 11])) == .unknownItem)
        #expect(Self.failure(rules.decide(save, over: nil, deletionRemembered: false, heldAssets: [Self.asset.checksum: 10])) == nil)
    }

    @Test("New records count against the quota, each taken one counting for the next; updates and saves over a remembered deletion add none")
    func quotaCountsNewRecords() throws {
        var rules = ModifyRules(sealing: .unknown, quota: AccountQuota(maxRecords: 2, maxZones: nil, maxAssetBytes: nil), recordCount: 1)
        #expect(rules.countsRecords)
        let new = RecordSave(Self.record("b"), policy: .allKeys)
        #expect(Self.failure(rules.decide(new, over: nil, deletionRemembered: false, heldAssets: [:])) == nil)
        #expect(rules.recordCount == 2)
        #expect(Self.failure(rules.decide(RecordSave(Self.record("c"), policy: .allKeys), over: nil, deletionRemembered: false, heldAssets: [:])) == .quotaExceeded)
        #expect(Self.failure(rules.decide(new, over: Self.stored("b"), deletionRemembered: false, heldAssets: [:])) == nil)
        #expect(Self.failure(rules.decide(RecordSave(Self.record("d"), policy: .allKeys), over: nil, deletionRemembered: true, heldAssets: [:])) == nil)
        #expect(rules.recordCount == 2)

        var unlimited = ModifyRules(sealing: .unknown, quota: Self.unlimited, recordCount: 0)
        #expect(!unlimited.countsRecords)
        for name in ["e", "f", "g"] {
            #expect(Self.failure(unlimited.decide(RecordSave(Self.record(name), policy: .allKeys), over: nil, deletionRemembered: false, heldAssets: [:])) == nil)
        }
        #expect(unlimited.recordCount == 0)
    }

    @Test("A taken save returns the record to store, merged into the stored one's fields when it merges; a checked save of a changed record fails with the server's")
    func takenSaveIsMerged() throws {
        var rules = ModifyRules(sealing: .unknown, quota: Self.unlimited, recordCount: 0)
        let server = Self.stored("a", fields: ["title": .string("old"), "body": .string("kept")])
        var sent = Self.record("a", fields: ["title": .string("new")])
        sent.changeTag = "t1"
        let merged = try rules.decide(
            RecordSave(sent, policy: .ifServerRecordUnchanged, mergesFields: true), over: server, deletionRemembered: false, heldAssets: [:]).get()
        #expect(merged.fields == ["title": .string("new"), "body": .string("kept")])
        sent.changeTag = "t0"
        #expect(Self.failure(rules.decide(RecordSave(sent, policy: .ifServerRecordUnchanged), over: server, deletionRemembered: false, heldAssets: [:]))
            == .serverRecordChanged(serverRecord: server))
    }

    @Test("A stored record takes its new tag, keeps the stored copy's creation time (now for a new one) and is modified now")
    func storedRecord() {
        let now = Timestamp(milliseconds: 9_000)
        let over = ModifyRules.stored(Self.record("a"), changeTag: "t2", over: Self.stored("a"), now: now)
        #expect(over.changeTag == "t2" && over.creationDate == Timestamp(milliseconds: 1_000) && over.modificationDate == now)
        let new = ModifyRules.stored(Self.record("b"), changeTag: "t3", over: nil, now: now)
        #expect(new.creationDate == now && new.modificationDate == now)
    }

    @Test("The field types saves keep: each field once, the first record's type where two differ, by record type then name, no type for an empty list")
    func fieldTypesKept() {
        let kept = ModifyRules.fieldTypes(of: [
            (recordType: "Note", fields: ["b": .int64(1), "a": .string("x"), "empty": .list([])]),
            (recordType: "Idea", fields: ["z": .double(1)]),
            (recordType: "Note", fields: ["b": .string("later"), "c": .list([.string("x")])]),
        ])
        #expect(kept.map { "\($0.recordType).\($0.fieldName):\($0.type)" } == ["Idea.z:DOUBLE", "Note.a:STRING", "Note.b:INT64", "Note.c:STRING_LIST"])
    }

    static func failure(_ decision: Result<RemoteRecord, CloudError>) -> CloudError? {
        if case .failure(let failure) = decision { return failure }
        return nil
    }
}
