import RemoteTestSupport
import Testing

/// Which account's database each device sees.
@Suite struct AccountTests {
    @Test("A new device is signed in to the default account; two new devices share it")
    func defaultAccount() async throws {
        let fixture = try await CloudFixture()
        #expect(try fixture.cloud.network.signedInAccount(device: "laptop") == "default")
        let laptop = try await fixture.client("laptop")
        let phone = try await fixture.client("phone", createZone: false)
        #expect(try await laptop.accountStatus() == .available(accountName: "default"))
        _ = try await laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
        #expect(try await phone.records(in: CloudFixture.zone, ofType: "Note").map(\.recordID) == [id("a")])
    }

    @Test("Accounts are isolated: a device never sees another account's zones or records")
    func isolation() async throws {
        let fixture = try await CloudFixture()
        try fixture.cloud.network.signIn(device: "alice-laptop", account: "alice")
        try fixture.cloud.network.signIn(device: "bob-laptop", account: "bob")
        let alice = try await fixture.client("alice-laptop")
        let bob = try await fixture.client("bob-laptop", createZone: false)
        _ = try await alice.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
        #expect(await cloudError { try await bob.records(in: CloudFixture.zone, ofType: "Note") } == .zoneNotFound)
        try await bob.createZone(CloudFixture.zone)
        #expect(try await bob.records(in: CloudFixture.zone, ofType: "Note").isEmpty)
        #expect(try await bob.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).changed.isEmpty)
        let aliceToken = try await alice.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).token
        #expect(await cloudError { try await bob.fetchChanges(in: CloudFixture.zone, since: aliceToken, resultsLimit: 10) } == .changeTokenExpired)
    }

    @Test("Switching accounts: the same client sees only the new account's database from its next request")
    func switching() async throws {
        let fixture = try await CloudFixture()
        let laptop = try await fixture.client("laptop")
        _ = try await laptop.modify(saving: [note("in-default")], deleting: [], savePolicy: .allKeys)
        try fixture.cloud.network.signIn(device: "laptop", account: "work")
        #expect(try await laptop.accountStatus() == .available(accountName: "work"))
        #expect(await cloudError { try await laptop.records(in: CloudFixture.zone, ofType: "Note") } == .zoneNotFound)
        try await laptop.createZone(CloudFixture.zone)
        _ = try await laptop.modify(saving: [note("in-work")], deleting: [], savePolicy: .allKeys)
        try fixture.cloud.network.signIn(device: "laptop", account: "default")
        #expect(try await laptop.records(in: CloudFixture.zone, ofType: "Note").map(\.recordID) == [id("in-default")])
    }

    @Test("Signed out: no account, every request fails with notAuthenticated, signing in again works")
    func signedOut() async throws {
        let fixture = try await CloudFixture()
        let laptop = try await fixture.client("laptop")
        try fixture.cloud.network.signOut(device: "laptop")
        #expect(try fixture.cloud.network.signedInAccount(device: "laptop") == nil)
        #expect(try await laptop.accountStatus() == .noAccount)
        #expect(await cloudError { try await laptop.createZone(CloudFixture.zone) } == .notAuthenticated)
        #expect(await cloudError { try await laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys) } == .notAuthenticated)
        #expect(await cloudError { try await laptop.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 1) } == .notAuthenticated)
        #expect(await cloudError { try await laptop.records(in: CloudFixture.zone, ofType: "Note") } == .notAuthenticated)
        try fixture.cloud.network.signIn(device: "laptop", account: "default")
        #expect(try await laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys).saved.count == 1)
    }
}
