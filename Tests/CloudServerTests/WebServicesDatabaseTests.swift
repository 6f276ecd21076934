import CloudHTTPClient
import CloudKitModel
import CloudServer
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import ProcessTestSupport
import RemoteTestSupport
import SQLiteRecordStore
import ServerStore
import Synchronization
import Testing

/// The HTTP client: every error the server can answer with comes back as the same
/// `CloudError`, retry-after included, and a server that can't be reached is a network
/// failure to retry.
// Serialized: its tests hold long polls and blocking threads, and a full run's load made
// several at once outlast the client's timeout.
@Suite(.serialized) struct WebServicesDatabaseTests {
    /// A store that lets every token in and fails every operation with `error`.
    struct FailingStore: RecordStore {
        let error: CloudError
        var maximumRecordsPerRequest: Int { 200 }
        func account(forAccessTokenHash tokenHash: String) async throws -> String? { "alice" }
        func addAccessToken(hash tokenHash: String, account: String, label: String) async throws { throw error }
        func accountName(matching name: String) async throws -> String? { throw error }
        func accessTokens(account: String) async throws -> [AccessTokenEntry] { throw error }
        func revokeAccessToken(account: String, label: String) async throws -> Int { throw error }
        func deleteAccount(_ account: String) async throws -> Int { throw error }
        func revokeAccessTokens(account: String) async throws -> Int { throw error }
        func accessTokenAccounts() async throws -> [(account: String, validTokens: Int)] { throw error }
        func setQuota(_ quota: AccountQuota, account: String) async throws { throw error }
        func quota(account: String) async throws -> AccountQuota { throw error }
        func usage(account: String) async throws -> AccountUsage { throw error }
        func recordCount(account: String) async throws -> Int { throw error }
        func purgeDeletions(before cutoff: Timestamp) async throws -> Int { throw error }
        func zones(account: String) async throws -> [RecordZoneID] { throw error }
        func createZone(_ zone: RecordZoneID, account: String) async throws { throw error }
        func deleteZone(_ zone: RecordZoneID, account: String) async throws { throw error }
        func addAPIToken(hash tokenHash: String, label: String) async throws { throw error }
        func isValidAPIToken(hash tokenHash: String) async throws -> Bool { true }
        func revokeAPITokens(label: String) async throws -> Int { throw error }
        func apiTokens() async throws -> [APITokenEntry] { throw error }
        func serverSecret() async throws -> Data { Data(repeating: 7, count: 32) }
        func zoneTokens(account: String) async throws -> [RecordZoneID: ChangeToken] { throw error }
        func subscriptions(account: String) async throws -> [ZoneSubscription] { throw error }
        func saveSubscription(_ subscription: ZoneSubscription, account: String) async throws { throw error }
        func deleteSubscription(id: String, account: String) async throws -> Bool { throw error }
        func announceChanges(account: String, zones: Set<RecordZoneID>, from process: String) async throws {}
        func keepListening(account: String, process: String, for duration: Duration) async throws {}
        func listenForChanges(_ handler: @escaping @Sendable (String, String, RecordZoneID) -> Void) async throws {}
        func modify(account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool, device: String?) async throws -> ModifyResult {
            throw error
        }
        func changeWriters(account: String, in zone: RecordZoneID, since token: ChangeToken?, limit: Int) async throws -> [String?] {
            throw error
        }
        func fetchChanges(account: String, in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
            throw error
        }
        func records(account: String, in zone: RecordZoneID, ofType recordType: String, after: String?, limit: Int) async throws -> [RemoteRecord] {
            throw error
        }
        func records(account: String, in zone: RecordZoneID, named names: [String], byteBudget: Int) async throws -> NamedRecords {
            throw error
        }
        func query(account: String, _ query: StoredQuery) async throws -> StoredQueryPage { throw error }
        func markQueryable(_ fieldNames: Set<String>, of recordType: String, account: String) async throws -> QueryableFill? { throw error }
        func fillQueryable(_ fill: QueryableFill) async throws -> QueryableFill? { throw error }
        var queryableFills: QueryableFills { QueryableFills() }
        func fieldTypes(account: String, recordTypes: Set<String>) async throws -> [String: [String: String]] { throw error }
        func claimFieldTypes(_ types: [String: [String: String]], account: String) async throws -> [String: [String: String]] {
            throw error
        }
        func schema(ofAccount account: String) async throws -> [FieldTypeEntry] { throw error }
        func storeAsset(_ reference: AssetReference, bytes: AssetBytes, account: String) async throws { throw error }
        func assetChunkCount(_ checksum: String, account: String) async throws -> Int? { throw error }
        func assetChunk(_ checksum: String, account: String, index: Int) async throws -> Data? { throw error }
        func collectAssets(uploadedBefore cutoff: Timestamp) async throws -> Int { throw error }
    }

    @Test("Server errors reach the client as the same CloudError (a busy zone as TRY_AGAIN_LATER with its wait)", arguments: [
        CloudError.quotaExceeded, .zoneBusy(retryAfter: 7), .requestRateLimited(retryAfter: 2),
        .serviceUnavailable(retryAfter: 5), .serviceUnavailable(retryAfter: nil), .internalError, .limitExceeded,
        .zoneNotFound, .changeTokenExpired, .unknownItem,
    ])
    func errors(error: CloudError) async throws {
        let log = RequestLog(clock: .system) { _ in }
        let running = try await CloudServer(store: FailingStore(error: error), port: 0, containers: [ServedRemote.container], log: log).start()
        defer { running.requestStop() }
        let client = WebServicesDatabase(
            endpoint: .init(server: URL(string: "http://127.0.0.1:\(running.port)")!, container: ServedRemote.container), accountName: "alice",
            token: "t", timeout: 10)
        let zone = RecordZoneID(zoneName: "Ideas")
        // Web Services has no code for a busy zone: Apple's TRY_AGAIN_LATER, with the wait.
        let expected = if case let .zoneBusy(seconds) = error { CloudError.serviceUnavailable(retryAfter: seconds) } else { error }
        #expect(await cloudError { try await client.fetchChanges(in: zone, since: nil, resultsLimit: 10) } == expected)
        #expect(await cloudError { try await client.modify(saving: [], deleting: [RecordID(recordName: "a", zoneID: zone)], savePolicy: .allKeys) } == expected)
        #expect(await cloudError { try await client.uploadAsset(Data("large".utf8)) } == expected)
        #expect(await cloudError { try await client.fetchAsset(AssetReference(of: Data("large".utf8))) } == expected)
    }

    /// Apple in front of a served remote of alice, its web auth tokens single use (Apple's
    /// word), and the endpoint a client reaches it at; the served remote is the caller's to keep.
    static func singleUseApple() async throws -> (AppleCloudKit, WebServicesDatabase.Endpoint, ServedRemote) {
        let clock = ManualClock(start: TestTime.start)
        let cloud = try SimulatedCloud.inMemory(clock: clock.wallClock)
        let served = try await ServedRemote(store: cloud.store, account: "alice", maximumRecordsPerRequest: 200, clock: clock.wallClock)
        let apple = try await AppleCloudKit(
            backend: served.endpoint.server, backendToken: served.token, callback: URL(string: "http://127.0.0.1:8421/")!,
            clock: clock.wallClock, usedTokensExpire: true)
        return (apple, WebServicesDatabase.Endpoint(server: apple.url, container: ServedRemote.container, apiToken: apple.apiToken), served)
    }

    @Test("Each new web auth token an answer hands out (Apple's way) is sent from then on, by every copy of the client, and given to onNewToken first")
    func adoptsTheTokensAnswersHandOut() async throws {
        // Apple's word ("single use") held: a client that kept sending its first token fails.
        let (apple, endpoint, served) = try await Self.singleUseApple()
        defer { withExtendedLifetime(served) {} }
        let first = apple.signIn()
        let kept = Locked<[(previous: String, new: String)]>([])
        let client = WebServicesDatabase(endpoint: endpoint, accountName: "alice", token: first, timeout: 10) { previous, token in
            kept.withLock { $0.append((previous, token)) }
        }
        for _ in 0..<3 { try await client.checkSignIn() }
        let copy = client
        try await copy.checkSignIn()
        let handOuts = kept.withLock { $0 }
        let tokens = handOuts.map(\.new)
        #expect(tokens.count == 4 && Set(tokens).count == 4 && !tokens.contains(first), "\(tokens.count) tokens kept")
        #expect(handOuts.map(\.previous) == [first] + tokens.dropLast(), "each with the one it replaced")
        let stale = WebServicesDatabase(endpoint: endpoint, accountName: "alice", token: first, timeout: 10)
        #expect(await cloudError { try await stale.checkSignIn() } == .tokenRefused)
    }

    @Test("A token another process of the profile spent (Apple's single use) is followed by the one it kept: the request goes again, once, with it; without one kept, the refusal stands")
    func followsATokenAnotherProcessKept() async throws {
        let (apple, endpoint, served) = try await Self.singleUseApple()
        defer { withExtendedLifetime(served) {} }
        // The profile's token file, as both processes read and write it.
        let kept = Locked<String>(apple.signIn())
        func process() -> WebServicesDatabase {
            WebServicesDatabase(
                endpoint: endpoint, accountName: "alice", token: kept.value, timeout: 10,
                onNewToken: { _, new in kept.withLock { $0 = new } }, savedToken: { kept.value })
        }
        let zone = RecordZoneID(zoneName: "Ideas")
        let app = process()
        try await app.createZone(zone)
        let command = process()
        try await command.checkSignIn()  // spends the app's token, keeps the next
        try await app.checkSignIn()  // refused, then sent again with the kept one
        try await command.checkSignIn()  // and the other way round
        _ = try await app.fetchChanges(in: zone, since: nil, resultsLimit: 10)  // the same, on the futures path
        let lone = WebServicesDatabase(endpoint: endpoint, accountName: "alice", token: kept.value, timeout: 10)
        try await app.checkSignIn()  // spends what `lone` holds; `lone` keeps nothing
        #expect(await cloudError { try await lone.checkSignIn() } == .tokenRefused)
    }

    @Test("No server listening: named with its host and port as refused, a transient error, at once; no token: notAuthenticated without a request")
    func unreachable() async throws {
        let client = WebServicesDatabase(
            endpoint: .init(server: URL(string: "http://127.0.0.1:1")!, container: ServedRemote.container), accountName: "alice", token: "t", timeout: 5)
        let clock = ContinuousClock()
        let started = clock.now
        let failure = await cloudError { try await client.records(in: RecordZoneID(zoneName: "Ideas"), ofType: "Idea") }
        // The client's own retries of the connection held this for its 10-second connect timeout.
        let took = clock.now - started
        #expect(failure == .serverUnreachable(host: "127.0.0.1:1", cause: .refused) && failure?.isTransient == true)
        #expect(failure?.description == "nothing listens at 127.0.0.1:1 (connection refused)")
        #expect(took < .seconds(5), "a refused connection took \(took)")
        let unknown = WebServicesDatabase(
            endpoint: .init(server: URL(string: "http://no-such-host.invalid:8420")!, container: ServedRemote.container, allowsInsecureHTTP: true),
            accountName: "alice", token: "t", timeout: 5)
        let notFound = await cloudError { try await unknown.records(in: RecordZoneID(zoneName: "Ideas"), ofType: "Idea") }
        #expect(notFound == .serverUnreachable(host: "no-such-host.invalid:8420", cause: .unknownHost), "\(String(describing: notFound))")
        let signedOut = WebServicesDatabase(
            endpoint: .init(server: URL(string: "http://127.0.0.1:1")!, container: ServedRemote.container), accountName: "alice", token: nil)
        #expect(try await signedOut.accountStatus() == .noAccount)
        #expect(await cloudError { try await signedOut.createZone(RecordZoneID(zoneName: "Ideas")) } == .notAuthenticated)
    }
}

extension WebServicesDatabaseTests {
    @Test("The client subscribes once per zone, takes a webcourier URL, and its long poll names the zone that another device changed, or nothing when its time is up")
    func notifications() async throws {
        let server = try await ServerFixture(socket: true)
        let alice = server.client("alice", token: server.aliceToken)
        // Another client of the same account and token: another device, whose saves wake alice's poll.
        let otherDevice = server.client("alice", token: server.aliceToken)
        try await alice.subscribe(to: [ServerFixture.zone])
        try await alice.subscribe(to: [ServerFixture.zone])  // again, from another launch: still one subscription
        #expect(try await server.store.subscriptions(account: "alice").map(\.id) == [WebServicesDatabase.subscriptionID(for: ServerFixture.zone)])
        let url = try await alice.webcourierURL()

        #expect(try await alice.waitForChange(at: url, seconds: 1) == nil)
        let poll = Task { try await alice.waitForChange(at: url, seconds: 30) }
        let answered = Answered(poll)
        var zone: RecordZoneID?
        for index in 0..<100 {
            zone = await answered.value ?? nil
            if zone != nil { break }
            let record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "n\(index)", zoneID: ServerFixture.zone))
            _ = try await otherDevice.modify(saving: [record], deleting: [], savePolicy: .allKeys)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(zone == ServerFixture.zone)
        let forged = URL(string: url.absoluteString.replacingOccurrences(of: "/webcourier/", with: "/webcourier/x"))!
        #expect(await cloudError { try await alice.waitForChange(at: forged, seconds: 1) } == .notAuthenticated)
    }

    @Test("Plain HTTP with a token to a machine other than this one is refused before a packet is sent")
    func plainHTTPToAnotherMachineIsRefused() async throws {
        // 192.0.2.1 is TEST-NET-1: nothing answers there, so a request that went out would
        // wait for its 10 s connection timeout and fail as a network failure instead.
        let client = WebServicesDatabase(
            endpoint: .init(server: URL(string: "http://192.0.2.1:8420")!, container: ServedRemote.container), accountName: "alice", token: "ibx_x", timeout: 10)
        let started = ContinuousClock.now
        let error = await cloudError { try await client.fetchChanges(in: ServerFixture.zone, since: nil, resultsLimit: 10) }
        guard case let .untrustedServer(host, reason)? = error else {
            Issue.record("expected untrustedServer, got \(String(describing: error))")
            return
        }
        #expect(host == "192.0.2.1" && reason.contains("plain HTTP to another machine"))
        #expect(ContinuousClock.now - started < .seconds(5), "a request went out and waited for its connection")
        #expect(await cloudError { try await client.startWatching([ServerFixture.zone]) }?.code == .untrustedServer)
        for host in ["127.0.0.1", "127.255.0.9", "::1", "[::1]", "localhost", "LOCALHOST"] {
            #expect(LoopbackHost.contains(host), "\(host)")
        }
        for host in ["192.0.2.1", "128.0.0.1", "::2", "ideas.example", "", "127.0.0.1.example"] {
            #expect(!LoopbackHost.contains(host), "\(host)")
        }
    }

    @Test("As a ZoneChangeFeed: woken by a change of its own account, not by another account's; a quiet wait answers nil")
    func feedWokenByItsAccountOnly() async throws {
        let server = try await ServerFixture(socket: true)
        let alice = server.client("alice", token: server.aliceToken)
        let bob = server.client("bob", token: server.bobToken)
        let cursor = try await alice.startWatching([ServerFixture.zone])
        #expect(try await alice.waitForChanges(after: cursor, seconds: 1) == nil)

        let fromBob = Answered(Task { try await alice.waitForChanges(after: cursor, seconds: 2) })
        for index in 0..<10 {
            let record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "b\(index)", zoneID: ServerFixture.zone))
            _ = try await bob.modify(saving: [record], deleting: [], savePolicy: .allKeys)
        }
        while await fromBob.value == nil { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await fromBob.value == .some(nil), "bob's changes woke alice's poll")

        // A change after the cursor, made while no poll was held, answers the next poll at once
        // (made by another device of alice's: a device's own upload is no news to it).
        let record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "a", zoneID: ServerFixture.zone))
        let alicesOtherDevice = server.client("alice", token: server.aliceToken)
        _ = try await alicesOtherDevice.modify(saving: [record], deleting: [], savePolicy: .allKeys)
        let started = ContinuousClock.now
        let answer = try await alice.waitForChanges(after: cursor, seconds: 30)
        let took = ContinuousClock.now - started
        let notice = try #require(answer)
        #expect(notice.zones == [ServerFixture.zone] && notice.cursor != cursor)
        #expect(took < .seconds(25), "answered at \(took), not at once (the poll's own time is 30 s)")
        // The notice's cursor covers that change: the next poll waits again.
        #expect(try await alice.waitForChanges(after: notice.cursor, seconds: 1) == nil)
    }

    @Test("Two zones changed since the cursor: one notice names one, and its cursor makes the next answer at once with the other")
    func twoZonesChangedAreBothNamedInTurn() async throws {
        let server = try await ServerFixture(socket: true)
        let alice = server.client("alice", token: server.aliceToken)
        let library = RecordZoneID(zoneName: "RawLibraryZone")
        try await alice.createZone(library)
        let cursor = try await alice.startWatching([ServerFixture.zone, library])
        // Written by another device of alice's: a device's own upload is no news to it.
        let alicesOtherDevice = server.client("alice", token: server.aliceToken)
        for zone in [ServerFixture.zone, library] {
            let record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "n", zoneID: zone))
            _ = try await alicesOtherDevice.modify(saving: [record], deleting: [], savePolicy: .allKeys)
        }
        let first = try #require(try await alice.waitForChanges(after: cursor, seconds: 5))
        let second = try #require(try await alice.waitForChanges(after: first.cursor, seconds: 5))
        #expect(Set(first.zones + second.zones) == [ServerFixture.zone, library], "\(first) \(second)")
        #expect(try await alice.waitForChanges(after: second.cursor, seconds: 1) == nil)
    }

    @Test("A webcourier URL stops serving once its account has no valid token made before it (revoked, or deleted and made anew)")
    func webcourierEndsWithItsAccountsTokens() async throws {
        // A clock the test moves on, so that the token made anew is later than the URL.
        let now = Mutex(Timestamp(milliseconds: 1_767_225_600_000))
        let clock = WallClock { now.withLock { $0 } }
        let store = try SQLiteRecordStore.inMemory(clock: clock, maximumRecordsPerRequest: 200)
        let served = try await ServedRemote(store: store, account: "alice", maximumRecordsPerRequest: 200, clock: clock)
        let alice = served.client()
        let cursor = try await alice.startWatching([ServerFixture.zone])
        #expect(try await alice.waitForChanges(after: cursor, seconds: 1) == nil)
        _ = try await store.deleteAccount("alice")
        #expect(await cloudError { try await alice.waitForChanges(after: cursor, seconds: 1) } == .notAuthenticated)
        // The name made anew, with a new token: the old URL still does not serve.
        now.withLock { $0 = $0.adding(milliseconds: 1) }
        try await store.addAccessToken(hash: AccessToken.hash(AccessToken.generate()), account: "alice", label: "token")
        #expect(await cloudError { try await alice.waitForChanges(after: cursor, seconds: 1) } == .notAuthenticated)
    }

    @Test("A since token the server never gave out is refused as an expired token, not taken for no change")
    func feedWithAForgedCursor() async throws {
        let server = try await ServerFixture(socket: true)
        let alice = server.client("alice", token: server.aliceToken)
        let cursor = try await alice.startWatching([ServerFixture.zone])
        let url = try #require(cursor.value.split(separator: " ").first)
        let forged = ChangeCursor("\(url) not-base64")
        #expect(await cloudError { try await alice.waitForChanges(after: forged, seconds: 1) } == .changeTokenExpired)
    }

    @Test("A poll's URL: the webcourier URL, its timeout within 1...60, the sync token percent-encoded so that it reads back whole, and carry=records; without a token the timeout alone")
    func pollURLs() throws {
        let url = "http://127.0.0.1:8080/webcourier/eyJrIjoidyJ9.c2ln-_"
        let token = "AbC+/9=="
        let asked = try WebServicesDatabase.pollURL(after: ChangeCursor(url + " " + token), seconds: 90)
        #expect(asked.absoluteString == url + "?timeout=60&since=AbC%2B%2F9%3D%3D&carry=records")
        let query = URLComponents(url: asked, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.map(\.name) == ["timeout", "since", "carry"])
        #expect(query.first { $0.name == "since" }?.value == token)
        #expect(try WebServicesDatabase.pollURL(after: ChangeCursor(url), seconds: 0).absoluteString == url + "?timeout=1")
        #expect(try WebServicesDatabase.pollURL(after: ChangeCursor(url + "?timeout=5 " + token), seconds: 30).absoluteString
            == url + "?timeout=30&since=AbC%2B%2F9%3D%3D&carry=records")
        for broken in ["", "not a url", "/webcourier/x"] {
            #expect(throws: CloudError.networkFailure) { try WebServicesDatabase.pollURL(after: ChangeCursor(broken), seconds: 5) }
        }
    }
}
