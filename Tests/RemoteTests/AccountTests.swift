import RemoteTestSupport
import Testing

/// Which account's database each device sees.
@Suite struct AccountTests {
    @Test("A new device is signed in to the default account; two new devices share it")
    func defaultAccount() async throws {
        let fixture = try await CloudFixture()
        #expect(try fixture.cloud.network.signedInAccount(device: "laptop") == "default")
        let laptop = try fixture.client("laptop")
        let phone = try fixture.client("phone", createZone: false)
        #expect(try laptop.accountStatus() == .available(accountName: "default"))
        _ = try laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
        #expect(try phone.records(in: CloudFixture.zone, ofType: "Note").map(\.recordID) == [id("a")])
    }

    @Test("Accounts are isolated: a device never sees another account's zones or records")
    func isolation() async throws {
        let fixture = try await CloudFixture()
        try fixture.cloud.network.signIn(device: "alice-laptop", account: "alice")
        try fixture.cloud.network.signIn(device: "bob-laptop", account: "bob")
        let alice = try fixture.client("alice-laptop")
        let bob = try fixture.client("bob-laptop", createZone: false)
        _ = try alice.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
        #expect(cloudError { try bob.records(in: CloudFixture.zone, ofType: "Note") } == .zoneNotFound)
        try bob.createZone(CloudFixture.zone)
        #expect(try bob.records(in: CloudFixture.zone, ofType: "Note").isEmpty)
        #expect(try bob.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).changed.isEmpty)
        let aliceToken = try alice.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).token
        #expect(cloudError { try bob.fetchChanges(in: CloudFixture.zone, since: aliceToken, resultsLimit: 10) } == .changeTokenExpired)
    }

    @Test("Switching accounts: the same client sees only the new account's database from its next request")
    func switching() async throws {
        let fixture = try await CloudFixture()
        let laptop = try fixture.client("laptop")
        _ = try laptop.modify(saving: [note("in-default")], deleting: [], savePolicy: .allKeys)
        try fixture.cloud.network.signIn(device: "laptop", account: "work")
        #expect(try laptop.accountStatus() == .available(accountName: "work"))
        #expect(cloudError { try laptop.records(in: CloudFixture.zone, ofType: "Note") } == .zoneNotFound)
        try laptop.createZone(CloudFixture.zone)
        _ = try laptop.modify(saving: [note("in-work")], deleting: [], savePolicy: .allKeys)
        try fixture.cloud.network.signIn(device: "laptop", account: "default")
        #expect(try laptop.records(in: CloudFixture.zone, ofType: "Note").map(\.recordID) == [id("in-default")])
    }

    @Test("Signed out: no account, every request fails with notAuthenticated, signing in again works")
    func signedOut() async throws {
        let fixture = try await CloudFixture()
        let laptop = try fixture.client("laptop")
        try fixture.cloud.network.signOut(device: "laptop")
        #expect(try fixture.cloud.network.signedInAccount(device: "laptop") == nil)
        #expect(try laptop.accountStatus() == .noAccount)
        #expect(cloudError { try laptop.createZone(CloudFixture.zone) } == .notAuthenticated)
        #expect(cloudError { try laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys) } == .notAuthenticated)
        #expect(cloudError { try laptop.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 1) } == .notAuthenticated)
        #expect(cloudError { try laptop.records(in: CloudFixture.zone, ofType: "Note") } == .notAuthenticated)
        try fixture.cloud.network.signIn(device: "laptop", account: "default")
        #expect(try laptop.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys).saved.count == 1)
    }
}
