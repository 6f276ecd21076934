import CloudKitModel
import Foundation
import IdeaBoxFoundation
import RemoteTestSupport
import ServerStore
import Testing

/// What every `RecordStore` answers the same way, SQLite and PostgreSQL alike (the rest of
/// the contract is run through the clients in the other suites).
@Suite struct RecordStoreTests {
    @Test("Records by name: those that exist, as saved; a missing name, another account's zone is not found", arguments: RemoteKind.tested)
    func recordsByName(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try await fixture.client()
        let saved = try await database.modify(saving: [note("a"), note("b"), note("c")], deleting: [], savePolicy: .allKeys).saved
        _ = try await database.modify(saving: [], deleting: [id("c")], savePolicy: .allKeys)
        let store = fixture.store
        let account = CloudFixture.account
        let found = try await store.records(account: account, in: CloudFixture.zone, named: ["b", "a", "missing", "c"], byteBudget: PageBudget.byteBudget)
        let byName = Dictionary(uniqueKeysWithValues: saved.map { ($0.recordID.recordName, $0) })
        #expect(found == NamedRecords(records: [byName["b"]!, byName["a"]!], namesRead: 4))
        await #expect(throws: CloudError.zoneNotFound) {
            try await store.records(account: "someone-else", in: CloudFixture.zone, named: ["a"], byteBudget: 1)
        }
    }

    @Test("Issue 61: each change records the device its save named (nil for none), a deletion too, the latest write of a name counting; who wrote the changes after a token is read once each, up to the limit, through the gate too",
          arguments: RemoteKind.tested)
    func changesRecordTheirWriters(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let (store, account, zone) = (fixture.store, CloudFixture.account, CloudFixture.zone)
        let gated = GatedRecordStore(store, limit: 2)
        func save(_ names: [String], deleting deleted: [String] = [], by device: String?) async throws {
            _ = try await store.modify(
                account: account, saves: names.map { RecordSave(note($0), policy: .allKeys) }, deletes: deleted.map { RecordDeletion(id($0)) },
                atomic: false, device: device)
        }
        func writers(since token: ChangeToken?, limit: Int = 10) async throws -> [Set<String?>] {
            var found: [Set<String?>] = []
            for reader in [store, gated as any RecordStore] {
                found.append(Set(try await reader.changeWriters(account: account, in: zone, since: token, limit: limit)))
            }
            return found
        }
        try await store.createZone(zone, account: account)
        #expect(try await writers(since: nil) == [[], []])
        try await save(["a", "b"], by: nil)
        let afterAnonymous = try await store.zoneTokens(account: account)[zone]
        #expect(try await writers(since: nil) == [[nil], [nil]])
        try await save(["c"], by: "phone")
        #expect(try await writers(since: afterAnonymous) == [["phone"], ["phone"]], "only the phone wrote after the token")
        try await save([], deleting: ["a"], by: "laptop")
        #expect(try await writers(since: afterAnonymous) == [["phone", "laptop"], ["phone", "laptop"]])
        #expect(try await writers(since: nil) == [[nil, "phone", "laptop"], [nil, "phone", "laptop"]])
        #expect(try await writers(since: nil, limit: 2).allSatisfy { $0.count == 2 }, "at most the limit")
        // "c" written again by the laptop: the phone wrote nothing that is still a change.
        try await save(["c"], by: "laptop")
        #expect(try await writers(since: afterAnonymous) == [["laptop"], ["laptop"]])
        let now = try await store.zoneTokens(account: account)[zone]
        #expect(try await writers(since: now) == [[], []])
        await #expect(throws: CloudError.zoneNotFound) {
            try await store.changeWriters(account: "someone-else", in: zone, since: nil, limit: 2)
        }
    }

    @Test("Accounts: found by name in any case; tokens by label, revoked one by one; the last use noted", arguments: RemoteKind.tested)
    func accountsAndTheirTokens(kind: RemoteKind) async throws {
        let store = try await CloudFixture(kind: kind).store
        try await store.addAccessToken(hash: "h-laptop", account: "Bob", label: "laptop")
        try await store.addAccessToken(hash: "h-phone", account: "Bob", label: "phone")
        for spelling in ["Bob", "bob", "BOB"] {
            #expect(try await store.accountName(matching: spelling) == "Bob")
        }
        #expect(try await store.accountName(matching: "bobby") == nil)
        #expect(try await store.accessTokens(account: "Bob").allSatisfy { $0.lastUsed == nil })
        #expect(try await store.account(forAccessTokenHash: "h-phone") == "Bob")
        let tokens = try await store.accessTokens(account: "Bob")
        #expect(tokens.map(\.label) == ["laptop", "phone"])
        #expect(tokens.first { $0.label == "phone" }?.lastUsed != nil && tokens.first { $0.label == "laptop" }?.lastUsed == nil)
        #expect(try await store.revokeAccessToken(account: "Bob", label: "phone") == 1)
        #expect(try await store.account(forAccessTokenHash: "h-phone") == nil)
        #expect(try await store.account(forAccessTokenHash: "h-laptop") == "Bob")
        #expect(try await store.revokeAccessToken(account: "Bob", label: "phone") == 0)
    }

    @Test("A poll's set-up reads its token's account, its database's subscriptions and its zones' tokens as the three calls alone do, through the gate too; a revoked or unknown token serves none",
          arguments: RemoteKind.tested)
    func pollSetUpReadsTokenSubscriptionsAndZones(kind: RemoteKind) async throws {
        let store = try await CloudFixture(kind: kind).store
        let gated = GatedRecordStore(store, limit: 2)
        let (ideas, library) = (RecordZoneID(zoneName: "Ideas"), RecordZoneID(zoneName: "Library"))
        let subscriptions = [ZoneSubscription(id: "zone-ideas", zone: ideas), ZoneSubscription(id: "zone-library", zone: library)]
        try await store.addAccessToken(hash: "h-laptop", account: "Bob", label: "laptop")
        try await store.addAccessToken(hash: "h-phone", account: "Bob", label: "phone")
        for subscription in subscriptions.reversed() { try await store.saveSubscription(subscription, account: "Bob@iCloud.x") }
        try await store.saveSubscription(ZoneSubscription(id: "zone-other", zone: RecordZoneID(zoneName: "Other")), account: "Carol")
        for zone in [ideas, library] { try await store.createZone(zone, account: "Bob@iCloud.x") }
        try await store.createZone(ideas, account: "Carol")
        /// Each reader's set-up, checked against the three calls alone.
        func expectSetUp(_ tokenHash: String, serves account: String?) async throws {
            for reader in [store, gated as any RecordStore] {
                let setUp = try await reader.pollSetUp(accessTokenHash: tokenHash, subscriptionsOf: "Bob@iCloud.x")
                let zoneTokens = try await reader.zoneTokens(account: "Bob@iCloud.x")
                #expect(setUp == PollSetUp(tokenAccount: account, subscriptions: subscriptions, zoneTokens: zoneTokens))
                #expect(Set(zoneTokens.keys) == [ideas, library])
                #expect(setUp.subscriptions == (try await reader.subscriptions(account: "Bob@iCloud.x")))
                #expect(try await reader.pollSetUp(accessTokenHash: "h-unknown", subscriptionsOf: "Nobody")
                    == PollSetUp(tokenAccount: nil, subscriptions: [], zoneTokens: [:]))
            }
        }
        try await expectSetUp("h-phone", serves: "Bob")
        // A change moves the zone's token in the next set-up, and only that zone's.
        let before = try await store.pollSetUp(accessTokenHash: "h-phone", subscriptionsOf: "Bob@iCloud.x").zoneTokens
        let record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "r1", zoneID: ideas), fields: ["title": .string("一")])
        _ = try await store.modify(account: "Bob@iCloud.x", saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: false)
        let after = try await store.pollSetUp(accessTokenHash: "h-phone", subscriptionsOf: "Bob@iCloud.x").zoneTokens
        #expect(after[ideas] != before[ideas] && after[library] == before[library])
        try await expectSetUp("h-phone", serves: "Bob")
        // The use is noted as `account(forAccessTokenHash:)` notes it.
        #expect(try await store.accessTokens(account: "Bob").first { $0.label == "phone" }?.lastUsed != nil)
        #expect(try await store.accessTokens(account: "Bob").first { $0.label == "laptop" }?.lastUsed == nil)
        #expect(try await store.revokeAccessToken(account: "Bob", label: "phone") == 1)
        try await expectSetUp("h-phone", serves: nil)
        try await expectSetUp("h-laptop", serves: "Bob")
    }

    @Test("Deleting an account takes all it holds, in every container, and nothing of an account whose name it begins",
          arguments: RemoteKind.tested)
    func deletingAnAccount(kind: RemoteKind) async throws {
        let store = try await CloudFixture(kind: kind).store
        let zone = RecordZoneID(zoneName: "Ideas")
        for account in ["carol", "carol@iCloud.example.Other", "carola"] {
            let record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "r-\(account)", zoneID: zone), fields: ["title": .string(account)])
            try await store.addAccessToken(hash: "h-\(account)", account: account, label: "first")
            try await store.createZone(zone, account: account)
            _ = try await store.modify(account: account, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: false)
            try await store.saveSubscription(ZoneSubscription(id: "s", zone: zone), account: account)
            try await store.setQuota(maxRecords: 10, account: account)
        }
        #expect(try await store.deleteAccount("carol") == 2)
        for account in ["carol", "carol@iCloud.example.Other"] {
            #expect(try await store.recordCount(account: account) == 0)
            #expect(try await store.zones(account: account).isEmpty)
            #expect(try await store.subscriptions(account: account).isEmpty)
            #expect(try await store.account(forAccessTokenHash: "h-\(account)") == nil)
        }
        #expect(try await store.accountName(matching: "CAROL") == nil)
        #expect(try await store.recordCount(account: "carola") == 1)
        #expect(try await store.account(forAccessTokenHash: "h-carola") == "carola")
    }

    @Test("Quotas count zones and asset bytes as well as records: past each limit quotaExceeded and nothing stored; the defaults until one is set",
          arguments: RemoteKind.tested)
    func quotasCountZonesAndAssetBytes(kind: RemoteKind) async throws {
        let store = try await CloudFixture(kind: kind).store
        let account = "dora"
        #expect(try await store.quota(account: account) == .defaults)
        try await store.setQuota(AccountQuota(maxRecords: 1, maxZones: 2, maxAssetBytes: 3 << 20), account: account)
        #expect(try await store.quota(account: account) == AccountQuota(maxRecords: 1, maxZones: 2, maxAssetBytes: 3 << 20))

        for name in ["A", "B", "A"] { try await store.createZone(RecordZoneID(zoneName: name), account: account) }
        await #expect(throws: CloudError.quotaExceeded) {
            try await store.createZone(RecordZoneID(zoneName: "C"), account: account)
        }
        #expect(try await store.zones(account: account).map(\.zoneName).sorted() == ["A", "B"])

        let first = Data(repeating: 1, count: 2 << 20), second = Data(repeating: 2, count: 2 << 20)
        let reference = try await store.storeAsset(first, account: account)
        await #expect(throws: CloudError.quotaExceeded) { try await store.storeAsset(second, account: account) }
        // The same bytes again are the asset already held: nothing more counts.
        #expect(try await store.storeAsset(first, account: account) == reference)
        #expect(try await store.asset(AssetReference(of: second).checksum, account: account) == nil)
        #expect(try await store.usage(account: account) == AccountUsage(records: 0, zones: 2, assetBytes: 2 << 20))

        // A limit of none lifts it; the other limits stay.
        try await store.setQuota(maxRecords: nil, account: account)
        #expect(try await store.quota(account: account) == AccountQuota(maxRecords: nil, maxZones: 2, maxAssetBytes: 3 << 20))
    }

    @Test("An asset is kept in chunks of at most 1 MiB and read back whole; one no record names is collected after the grace, a named one never",
          arguments: RemoteKind.tested)
    func assetsAreChunkedAndCollected(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let store = fixture.store
        let account = CloudFixture.account
        var generator = SeededRandomNumberGenerator(seed: 7)
        let named = Data((0..<(5 << 19)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let unnamed = Data("a draft never saved".utf8)
        let reference = try await store.storeAsset(named, account: account)
        let orphan = try await store.storeAsset(unnamed, account: account)
        #expect(try await store.assetChunkCount(reference.checksum, account: account) == 3)
        #expect(try await store.asset(reference.checksum, account: account) == named)
        #expect(try await store.assetChunk(reference.checksum, account: account, index: 2)?.count == 1 << 19)

        try await store.createZone(CloudFixture.zone, account: account)
        let record = RemoteRecord(
            recordType: "File", recordID: RecordID(recordName: "f", zoneID: CloudFixture.zone), fields: ["data": .asset(reference)])
        _ = try await store.modify(account: account, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: true)

        // Within the grace both stay: an upload's save may still be coming.
        fixture.clock.advance(by: 60_000)
        let cutoff = fixture.clock.wallClock.now().adding(milliseconds: -3_600_000)
        #expect(try await store.collectAssets(uploadedBefore: cutoff) == 0)
        fixture.clock.advance(by: 3_600_000)
        let later = fixture.clock.wallClock.now().adding(milliseconds: -3_600_000)
        #expect(try await store.collectAssets(uploadedBefore: later) == 1)
        #expect(try await store.asset(orphan.checksum, account: account) == nil)
        #expect(try await store.asset(reference.checksum, account: account) == named)
        #expect(try await store.usage(account: account).assetBytes == Int64(named.count))

        // Found named, its time moved on: the next hour's collection leaves it alone without
        // looking.
        fixture.clock.advance(by: 1_000)
        #expect(try await store.collectAssets(uploadedBefore: later) == 0)
        #expect(try await store.asset(reference.checksum, account: account) == named)
    }

    @Test("A save that stops naming an asset deletes it in the same operation, and keeps the asset it names now",
          arguments: RemoteKind.tested)
    func replacingARecordDeletesTheAssetItNoLongerNames(kind: RemoteKind) async throws {
        let (store, account) = try await Self.storeWithZone(kind)
        let x = try await store.storeAsset(Data("first contents".utf8), account: account)
        let y = try await store.storeAsset(Data("second contents".utf8), account: account)
        try await Self.save(file("f", .asset(x)), store, account)
        #expect(try await Self.save(file("f", .asset(y)), store, account).failures.isEmpty)
        #expect(try await store.asset(x.checksum, account: account) == nil)
        #expect(try await store.asset(y.checksum, account: account) == Data("second contents".utf8))
        #expect(try await store.usage(account: account).assetBytes == y.size)

        // A list names its assets too; a merging update that drops the field drops them.
        let z = try await store.storeAsset(Data("third contents".utf8), account: account)
        try await Self.save(file("f", .list([.asset(y), .asset(z)])), store, account)
        let update = RemoteRecord(recordType: "File", recordID: id("f"), fields: ["data": .string("inline now")])
        try await Self.save(update, store, account, mergesFields: true)
        for checksum in [y.checksum, z.checksum] {
            #expect(try await store.asset(checksum, account: account) == nil)
        }
        #expect(try await store.usage(account: account).assetBytes == 0)
    }

    @Test("Deleting the last record that names an asset deletes it; one another record still names stays, in any zone",
          arguments: RemoteKind.tested)
    func deletingTheLastRecordThatNamesAnAssetDeletesIt(kind: RemoteKind) async throws {
        let (store, account) = try await Self.storeWithZone(kind)
        let other = RecordZoneID(zoneName: "RawLibraryZone")
        try await store.createZone(other, account: account)
        let x = try await store.storeAsset(Data("shared contents".utf8), account: account)
        try await Self.save(file("a", .asset(x)), store, account)
        try await Self.save(file("b", .asset(x), zone: other), store, account)

        _ = try await store.modify(account: account, saves: [], deletes: [RecordDeletion(id("a"))], atomic: false)
        #expect(try await store.asset(x.checksum, account: account) == Data("shared contents".utf8))
        try await Self.save(file("b", .string("no asset"), zone: other), store, account)
        #expect(try await store.asset(x.checksum, account: account) == nil)

        // Deleted and named again in one request (a file renamed): kept.
        let y = try await store.storeAsset(Data("renamed contents".utf8), account: account)
        try await Self.save(file("old-name", .asset(y)), store, account)
        let renamed = try await store.modify(
            account: account, saves: [RecordSave(file("new-name", .asset(y)), policy: .allKeys)],
            deletes: [RecordDeletion(id("old-name"))], atomic: true)
        #expect(renamed.failures.isEmpty && renamed.deleted == [id("old-name")])
        #expect(try await store.asset(y.checksum, account: account) == Data("renamed contents".utf8))

        // A failed atomic request deletes nothing.
        let failed = try await store.modify(
            account: account, saves: [RecordSave(note("new-name"), policy: .allKeys)],
            deletes: [RecordDeletion(id("missing"), policy: .ifServerRecordUnchanged)], atomic: true)
        #expect(!failed.failures.isEmpty)
        #expect(try await store.asset(y.checksum, account: account) != nil)
    }

    @Test("Another account's record naming the same bytes neither keeps an account's asset nor loses its own", arguments: RemoteKind.tested)
    func assetsAreDeletedPerAccount(kind: RemoteKind) async throws {
        let (store, account) = try await Self.storeWithZone(kind)
        let neighbour = "neighbour"
        try await store.createZone(CloudFixture.zone, account: neighbour)
        let bytes = Data("the same photo".utf8)
        let x = try await store.storeAsset(bytes, account: account)
        _ = try await store.storeAsset(bytes, account: neighbour)
        try await Self.save(file("f", .asset(x)), store, account)
        try await Self.save(file("f", .asset(x)), store, neighbour)
        _ = try await store.modify(account: account, saves: [], deletes: [RecordDeletion(id("f"))], atomic: false)
        #expect(try await store.asset(x.checksum, account: account) == nil)
        #expect(try await store.asset(x.checksum, account: neighbour) == bytes)
    }

    @Test("A field's first type stays: a later claim of another gets the first; a field a record was saved with (unclaimed, as the embedded remote saves) has that value's type; deleting the account forgets them",
          arguments: RemoteKind.tested)
    func fieldTypesAreClaimedOnce(kind: RemoteKind) async throws {
        let (store, account) = try await Self.storeWithZone(kind)
        let old = RemoteRecord(
            recordType: "Photo", recordID: id("old"), fields: ["taken": .timestamp(Timestamp(milliseconds: 5)), "tags": .list([])])
        try await Self.save(old, store, account)
        let first = try await store.claimFieldTypes(["Photo": ["taken": "INT64", "title": "STRING", "tags": "STRING_LIST"]], account: account)
        #expect(first == ["Photo": ["taken": "TIMESTAMP", "title": "STRING", "tags": "STRING_LIST"]])
        let second = try await store.claimFieldTypes(["Photo": ["title": "BYTES"]], account: account)
        #expect(second == ["Photo": ["title": "STRING"]])
        #expect(try await store.fieldTypes(account: account, recordTypes: ["Photo", "Other"]) == first)
        #expect(try await store.fieldTypes(account: "someone-else", recordTypes: ["Photo"]).isEmpty)
        let listed = try await store.schema(ofAccount: account)
        #expect(listed.map { "\($0.database) \($0.recordType).\($0.fieldName) \($0.type)" }
            == ["\(account) Photo.tags STRING_LIST", "\(account) Photo.taken TIMESTAMP", "\(account) Photo.title STRING"])
        _ = try await store.deleteAccount(account)
        #expect(try await store.schema(ofAccount: account).isEmpty)
    }

    @Test("A claim past 1,000 fields of a record type or 10,000 of a database is refused, naming the limit, and stores nothing of itself, not even its other record types' fields",
          arguments: RemoteKind.tested)
    func fieldTypeClaimsAreBounded(kind: RemoteKind) async throws {
        let (store, account) = try await Self.storeWithZone(kind)
        let first = Self.stringFields(999), past = Self.stringFields(2, from: 999), full = Self.stringFields(1_000)
        _ = try await store.claimFieldTypes(["Photo": first], account: account)
        await #expect(throws: FieldTypeLimitExceeded.self) {
            try await store.claimFieldTypes(["Aardvark": ["a": "INT64"], "Photo": past], account: account)
        }
        do {
            _ = try await store.claimFieldTypes(["Photo": past], account: account)
            Issue.record("the 1,001st field of Photo was typed")
        } catch let refusal as FieldTypeLimitExceeded {
            #expect(refusal.reason.contains("at most 1000 fields"), "\(refusal.reason)")
        }
        #expect(try await store.fieldTypes(account: account, recordTypes: ["Photo", "Aardvark"])["Photo"]?.count == 999)
        #expect(try await store.fieldTypes(account: account, recordTypes: ["Aardvark"]).isEmpty)
        // A field typed already is no new one: a claim naming 999 of them and one new field fits.
        #expect(try await store.claimFieldTypes(["Photo": full], account: account)["Photo"]?.count == 1_000)

        let others = Dictionary(uniqueKeysWithValues: (0..<9).map { ("Type\($0)", full) })
        _ = try await store.claimFieldTypes(others, account: account)
        do {
            _ = try await store.claimFieldTypes(["Last": ["one": "STRING"]], account: account)
            Issue.record("the 10,001st field was typed")
        } catch let refusal as FieldTypeLimitExceeded {
            #expect(refusal.reason.contains("at most 10000 fields"), "\(refusal.reason)")
        }
        #expect(try await store.schema(ofAccount: account).count == 10_000)
        // Another account's database has its own.
        #expect(try await store.claimFieldTypes(["Last": ["one": "STRING"]], account: "neighbour") == ["Last": ["one": "STRING"]])
    }

    /// `count` STRING fields named `f<first>`, `f<first + 1>`, ….
    private static func stringFields(_ count: Int, from first: Int = 0) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (first..<first + count).map { ("f\($0)", "STRING") })
    }

    private static func storeWithZone(_ kind: RemoteKind) async throws -> (any RecordStore, String) {
        let store = try await CloudFixture(kind: kind).store
        try await store.createZone(CloudFixture.zone, account: CloudFixture.account)
        return (store, CloudFixture.account)
    }

    @discardableResult
    private static func save(
        _ record: RemoteRecord, _ store: any RecordStore, _ account: String, mergesFields: Bool = false
    ) async throws -> ModifyResult {
        let save = RecordSave(record, policy: .allKeys, mergesFields: mergesFields)
        let result = try await store.modify(account: account, saves: [save], deletes: [], atomic: true)
        #expect(result.failures.isEmpty)
        return result
    }

    @Test("Uploading bytes the account already holds moves their time on: the save that upload is for finds them, even past the grace",
          arguments: RemoteKind.tested)
    func aRepeatedUploadIsSparedByCollection(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let store = fixture.store
        let data = Data("a photo uploaded twice".utf8)
        let reference = try await store.storeAsset(data, account: CloudFixture.account)
        fixture.clock.advance(by: 2 * 3_600_000)
        #expect(try await store.storeAsset(data, account: CloudFixture.account) == reference)
        let cutoff = fixture.clock.wallClock.now().adding(milliseconds: -3_600_000)
        #expect(try await store.collectAssets(uploadedBefore: cutoff) == 0)
        #expect(try await store.asset(reference.checksum, account: CloudFixture.account) == data)
    }
}

/// A `File` record named `name` whose `data` field is `data`.
private func file(_ name: String, _ data: FieldValue, zone: RecordZoneID = CloudFixture.zone) -> RemoteRecord {
    RemoteRecord(recordType: "File", recordID: RecordID(recordName: name, zoneID: zone), fields: ["data": data])
}
