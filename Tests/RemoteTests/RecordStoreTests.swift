import CloudKitModel
import CloudStore
import Foundation
import RemoteTestSupport
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
}
