import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import RemoteTestSupport
import ServerStore
import Testing

/// What every `RecordStore` answers the same way, SQLite and PostgreSQL alike (the rest of
/// the contract is run through the clients in the other suites).
@Suite struct RecordStoreTests {
    @Test("Records by name: those that exist, as saved; a missing name, another account's zone is not found", arguments: RemoteKind.tested)
    func recordsByName(kind: RemoteKind) throws {
        let fixture = try CloudFixture(kind: kind)
        let database = try fixture.client()
        let saved = try database.modify(saving: [note("a"), note("b"), note("c")], deleting: [], savePolicy: .allKeys).saved
        _ = try database.modify(saving: [], deleting: [id("c")], savePolicy: .allKeys)
        let store = fixture.store
        let account = CloudFixture.account
        let found = try runBlocking { try await store.records(account: account, in: CloudFixture.zone, named: ["b", "a", "missing", "c"]) }
        #expect(Set(found) == Set(saved.filter { $0.recordID.recordName != "c" }))
        #expect(throws: CloudError.zoneNotFound) {
            try runBlocking { try await store.records(account: "someone-else", in: CloudFixture.zone, named: ["a"]) }
        }
    }

    @Test("Accounts: found by name in any case; tokens by label, revoked one by one; the last use noted", arguments: RemoteKind.tested)
    func accountsAndTheirTokens(kind: RemoteKind) throws {
        let store = try CloudFixture(kind: kind).store
        try runBlocking {
            try await store.addAccessToken(hash: "h-laptop", account: "Bob", label: "laptop")
            try await store.addAccessToken(hash: "h-phone", account: "Bob", label: "phone")
        }
        for spelling in ["Bob", "bob", "BOB"] {
            #expect(try runBlocking { try await store.accountName(matching: spelling) } == "Bob")
        }
        #expect(try runBlocking { try await store.accountName(matching: "bobby") } == nil)
        #expect(try runBlocking { try await store.accessTokens(account: "Bob") }.allSatisfy { $0.lastUsed == nil })
        #expect(try runBlocking { try await store.account(forAccessTokenHash: "h-phone") } == "Bob")
        let tokens = try runBlocking { try await store.accessTokens(account: "Bob") }
        #expect(tokens.map(\.label) == ["laptop", "phone"])
        #expect(tokens.first { $0.label == "phone" }?.lastUsed != nil && tokens.first { $0.label == "laptop" }?.lastUsed == nil)
        #expect(try runBlocking { try await store.revokeAccessToken(account: "Bob", label: "phone") } == 1)
        #expect(try runBlocking { try await store.account(forAccessTokenHash: "h-phone") } == nil)
        #expect(try runBlocking { try await store.account(forAccessTokenHash: "h-laptop") } == "Bob")
        #expect(try runBlocking { try await store.revokeAccessToken(account: "Bob", label: "phone") } == 0)
    }

    @Test("Deleting an account takes all it holds, in every container, and nothing of an account whose name it begins",
          arguments: RemoteKind.tested)
    func deletingAnAccount(kind: RemoteKind) throws {
        let store = try CloudFixture(kind: kind).store
        let zone = RecordZoneID(zoneName: "Ideas")
        for account in ["carol", "carol@iCloud.example.Other", "carola"] {
            let record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "r-\(account)", zoneID: zone), fields: ["title": .string(account)])
            try runBlocking {
                try await store.addAccessToken(hash: "h-\(account)", account: account, label: "first")
                try await store.createZone(zone, account: account)
                _ = try await store.modify(account: account, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: false)
                try await store.saveSubscription(ZoneSubscription(id: "s", zone: zone), account: account)
                try await store.setQuota(maxRecords: 10, account: account)
            }
        }
        #expect(try runBlocking { try await store.deleteAccount("carol") } == 2)
        for account in ["carol", "carol@iCloud.example.Other"] {
            #expect(try runBlocking { try await store.recordCount(account: account) } == 0)
            #expect(try runBlocking { try await store.zones(account: account) }.isEmpty)
            #expect(try runBlocking { try await store.subscriptions(account: account) }.isEmpty)
            #expect(try runBlocking { try await store.account(forAccessTokenHash: "h-\(account)") } == nil)
        }
        #expect(try runBlocking { try await store.accountName(matching: "CAROL") } == nil)
        #expect(try runBlocking { try await store.recordCount(account: "carola") } == 1)
        #expect(try runBlocking { try await store.account(forAccessTokenHash: "h-carola") } == "carola")
    }

    @Test("Quotas count zones and asset bytes as well as records: past each limit quotaExceeded and nothing stored; the defaults until one is set",
          arguments: RemoteKind.tested)
    func quotasCountZonesAndAssetBytes(kind: RemoteKind) throws {
        let store = try CloudFixture(kind: kind).store
        let account = "dora"
        #expect(try runBlocking { try await store.quota(account: account) } == .defaults)
        try runBlocking { try await store.setQuota(AccountQuota(maxRecords: 1, maxZones: 2, maxAssetBytes: 3 << 20), account: account) }
        #expect(try runBlocking { try await store.quota(account: account) } == AccountQuota(maxRecords: 1, maxZones: 2, maxAssetBytes: 3 << 20))

        for name in ["A", "B", "A"] { try runBlocking { try await store.createZone(RecordZoneID(zoneName: name), account: account) } }
        #expect(throws: CloudError.quotaExceeded) {
            try runBlocking { try await store.createZone(RecordZoneID(zoneName: "C"), account: account) }
        }
        #expect(try runBlocking { try await store.zones(account: account) }.map(\.zoneName).sorted() == ["A", "B"])

        let first = Data(repeating: 1, count: 2 << 20), second = Data(repeating: 2, count: 2 << 20)
        let reference = try runBlocking { try await store.storeAsset(first, account: account) }
        #expect(throws: CloudError.quotaExceeded) { try runBlocking { try await store.storeAsset(second, account: account) } }
        // The same bytes again are the asset already held: nothing more counts.
        #expect(try runBlocking { try await store.storeAsset(first, account: account) } == reference)
        #expect(try runBlocking { try await store.asset(AssetReference(of: second).checksum, account: account) } == nil)
        #expect(try runBlocking { try await store.usage(account: account) } == AccountUsage(records: 0, zones: 2, assetBytes: 2 << 20))

        // A limit of none lifts it; the other limits stay.
        try runBlocking { try await store.setQuota(maxRecords: nil, account: account) }
        #expect(try runBlocking { try await store.quota(account: account) } == AccountQuota(maxRecords: nil, maxZones: 2, maxAssetBytes: 3 << 20))
    }

    @Test("An asset is kept in chunks of at most 1 MiB and read back whole; one no record names is collected after the grace, a named one never",
          arguments: RemoteKind.tested)
    func assetsAreChunkedAndCollected(kind: RemoteKind) throws {
        let fixture = try CloudFixture(kind: kind)
        let store = fixture.store
        let account = CloudFixture.account
        var generator = SeededRandomNumberGenerator(seed: 7)
        let named = Data((0..<(5 << 19)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let unnamed = Data("a draft never saved".utf8)
        let reference = try runBlocking { try await store.storeAsset(named, account: account) }
        let orphan = try runBlocking { try await store.storeAsset(unnamed, account: account) }
        #expect(try runBlocking { try await store.assetChunkCount(reference.checksum, account: account) } == 3)
        #expect(try runBlocking { try await store.asset(reference.checksum, account: account) } == named)
        #expect(try runBlocking { try await store.assetChunk(reference.checksum, account: account, index: 2) }?.count == 1 << 19)

        try runBlocking { try await store.createZone(CloudFixture.zone, account: account) }
        let record = RemoteRecord(
            recordType: "File", recordID: RecordID(recordName: "f", zoneID: CloudFixture.zone), fields: ["data": .asset(reference)])
        _ = try runBlocking { try await store.modify(account: account, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: true) }

        // Within the grace both stay: an upload's save may still be coming.
        fixture.clock.advance(by: 60_000)
        let cutoff = fixture.clock.wallClock.now().adding(milliseconds: -3_600_000)
        #expect(try runBlocking { try await store.collectAssets(uploadedBefore: cutoff) } == 0)
        fixture.clock.advance(by: 3_600_000)
        let later = fixture.clock.wallClock.now().adding(milliseconds: -3_600_000)
        #expect(try runBlocking { try await store.collectAssets(uploadedBefore: later) } == 1)
        #expect(try runBlocking { try await store.asset(orphan.checksum, account: account) } == nil)
        #expect(try runBlocking { try await store.asset(reference.checksum, account: account) } == named)
        #expect(try runBlocking { try await store.usage(account: account) }.assetBytes == Int64(named.count))

        // Found named, its time moved on: the next hour's collection leaves it alone without
        // looking. Once no record names it, a collection after that takes it.
        let replaced = RemoteRecord(recordType: "File", recordID: record.recordID, fields: ["data": .string("moved elsewhere")])
        _ = try runBlocking { try await store.modify(account: account, saves: [RecordSave(replaced, policy: .allKeys)], deletes: [], atomic: true) }
        #expect(try runBlocking { try await store.collectAssets(uploadedBefore: later) } == 0)
        fixture.clock.advance(by: 3_660_000)
        let afterThat = fixture.clock.wallClock.now().adding(milliseconds: -3_600_000)
        #expect(try runBlocking { try await store.collectAssets(uploadedBefore: afterThat) } == 1)
        #expect(try runBlocking { try await store.usage(account: account) }.assetBytes == 0)
    }

    @Test("Uploading bytes the account already holds moves their time on: the save that upload is for finds them, even past the grace",
          arguments: RemoteKind.tested)
    func aRepeatedUploadIsSparedByCollection(kind: RemoteKind) throws {
        let fixture = try CloudFixture(kind: kind)
        let store = fixture.store
        let data = Data("a photo uploaded twice".utf8)
        let reference = try runBlocking { try await store.storeAsset(data, account: CloudFixture.account) }
        fixture.clock.advance(by: 2 * 3_600_000)
        #expect(try runBlocking { try await store.storeAsset(data, account: CloudFixture.account) } == reference)
        let cutoff = fixture.clock.wallClock.now().adding(milliseconds: -3_600_000)
        #expect(try runBlocking { try await store.collectAssets(uploadedBefore: cutoff) } == 0)
        #expect(try runBlocking { try await store.asset(reference.checksum, account: CloudFixture.account) } == data)
    }
}
