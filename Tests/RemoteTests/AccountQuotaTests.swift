import CloudKitModel
import Foundation
import IdeaBoxFoundation
import RemoteTestSupport
import ServerStore
import Testing

/// An account's quota (`AccountQuota`) covers all its databases, and a deletion counts
/// against it until the server forgets it, on every store.
@Suite struct AccountQuotaTests {
    /// The key of erin's database in a second container, as `serve --container A --container B` names it.
    static let otherContainer = "erin@iCloud.example.Other"

    @Test(
        "One quota for an account's databases in every container: records, zones and asset bytes count together; an account whose name begins the same is apart",
        arguments: RemoteKind.tested)
    func quotaCoversEveryDatabaseOfTheAccount(kind: RemoteKind) async throws {
        let store = try await CloudFixture(kind: kind).store
        try await store.setQuota(AccountQuota(maxRecords: 10, maxZones: 3, maxAssetBytes: 1 << 20), account: "erin")
        // A database's key names its account's quota.
        #expect(try await store.quota(account: Self.otherContainer).maxRecords == 10)

        for zone in ["A", "B"] { try await store.createZone(RecordZoneID(zoneName: zone), account: "erin") }
        try await store.createZone(RecordZoneID(zoneName: "A"), account: Self.otherContainer)
        await #expect(throws: CloudError.quotaExceeded) {
            try await store.createZone(RecordZoneID(zoneName: "B"), account: Self.otherContainer)
        }

        let first = try await Self.save((0..<6).map { "r\($0)" }, account: "erin", store: store)
        #expect(first.failures.isEmpty)
        let second = try await Self.save((0..<6).map { "s\($0)" }, account: Self.otherContainer, store: store)
        #expect(second.saved.count == 4)
        #expect(second.failures == Dictionary(uniqueKeysWithValues: ["s4", "s5"].map { (Self.id($0), CloudError.quotaExceeded) }))

        _ = try await store.storeAsset(Data(repeating: 1, count: 700_000), account: "erin")
        await #expect(throws: CloudError.quotaExceeded) {
            try await store.storeAsset(Data(repeating: 2, count: 400_000), account: Self.otherContainer)
        }
        let usage = AccountUsage(records: 10, zones: 3, assetBytes: 700_000)
        #expect(try await store.usage(account: "erin") == usage)
        #expect(try await store.usage(account: Self.otherContainer) == usage)

        // erina is another account: none of erin's counts, and her quota is the defaults.
        try await store.createZone(RecordZoneID(zoneName: "A"), account: "erina")
        #expect(try await Self.save(["e"], account: "erina", store: store).failures.isEmpty)
        #expect(try await store.usage(account: "erina") == AccountUsage(records: 1, zones: 1, assetBytes: 0))
        #expect(try await store.quota(account: "erina") == .defaults)
    }

    @Test(
        "A deleted record counts against the record quota until its deletion is forgotten; a save of a deleted name takes its place",
        arguments: RemoteKind.tested)
    func deletionsCountUntilForgotten(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let store = fixture.store
        try await store.createZone(RecordZoneID(zoneName: "A"), account: "erin")
        try await store.setQuota(maxRecords: 1, account: "erin")
        #expect(try await Self.save(["one"], account: "erin", store: store).failures.isEmpty)
        #expect(try await Self.delete("one", account: "erin", store: store).deleted == [Self.id("one")])
        // Create and delete without end would leave a deletion row each time: refused instead.
        #expect(try await Self.save(["two"], account: "erin", store: store).failures == [Self.id("two"): .quotaExceeded])
        #expect(try await store.usage(account: "erin").records == 1)
        // The deleted name saved again takes the deletion's place.
        #expect(try await Self.save(["one"], account: "erin", store: store).failures.isEmpty)
        #expect(try await Self.delete("one", account: "erin", store: store).deleted == [Self.id("one")])

        fixture.clock.advance(by: 1)
        #expect(try await fixture.purgeDeletions(before: fixture.clock.now) >= 1)
        #expect(try await store.usage(account: "erin").records == 0)
        #expect(try await Self.save(["two"], account: "erin", store: store).failures.isEmpty)
    }

    /// The record `name` of zone A.
    static func id(_ name: String) -> RecordID {
        RecordID(recordName: name, zoneID: RecordZoneID(zoneName: "A"))
    }

    /// Saves a new record for each of `names` in zone A of `account`, in one modify.
    static func save(_ names: [String], account: String, store: any RecordStore) async throws -> ModifyResult {
        let saves = names.map { RecordSave(RemoteRecord(recordType: "Note", recordID: id($0), fields: ["text": .string($0)]), policy: .allKeys) }
        return try await store.modify(account: account, saves: saves, deletes: [], atomic: false)
    }

    /// Deletes the record `name` of zone A of `account`, forced.
    static func delete(_ name: String, account: String, store: any RecordStore) async throws -> ModifyResult {
        try await store.modify(account: account, saves: [], deletes: [RecordDeletion(id(name))], atomic: false)
    }
}
