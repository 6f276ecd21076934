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
}
