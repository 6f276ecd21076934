import AccountEncryption
import CloudHTTPClient
import CloudKitModel
import CloudServer
import Foundation
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import ProcessTestSupport
import RemoteTestSupport
import SQLiteRecordStore
import ServerStore
import Synchronization
import Testing

/// Devices that hold a real long poll on `ideabox serve` (in this process, on 127.0.0.1):
/// their engines and listeners run on Dispatch queues as in the app, and each test waits,
/// with `await`, until the devices agree.
@Suite(.serialized) struct ChangeListenerServedTests {
    /// How long a device may take to see a change before the test fails.
    static let deadline: Duration = .seconds(30)

    @Test("A device asleep through many changes (engine and long poll stopped) converges on its first fetch after",
          arguments: RemoteKind.tested.filter { $0 != .embedded })
    func asleepThroughManyChanges(remote: RemoteKind) async throws {
        let server = try await Server(remote)
        let a = server.device("a")
        let b = server.device("b")
        _ = try await b.session.run()
        var ids: [UUID] = []
        for index in 0..<250 {
            ids.append(try a.repository.addIdea(title: "靈感 \(index)", description: index.isMultiple(of: 7) ? "描述 \(index)" : "").id)
        }
        _ = try await a.session.run()
        for id in ids.prefix(40) { _ = try a.repository.deleteIdea(id: id) }
        for id in ids.suffix(60) { _ = try a.repository.setCompleted(true, id: id) }
        _ = try await a.session.run()

        b.start()
        defer { b.stop() }
        try await Self.waitUntil("b has a's 210 ideas") { try b.snapshots() == a.snapshots() }
        try await Self.waitUntil("b is live") { b.engine.delivery == .live }
        #expect(try b.repository.pendingChangeCount() == 0)
    }

    @Test("Two serve processes over one PostgreSQL: a change written through one reaches a device polling the other, by notification",
          .enabled(if: TestPostgres.url != nil, "needs IDEABOX_TEST_POSTGRES_URL"))
    func acrossTwoServeProcesses() async throws {
        let stores = try await TestPostgres.stores(count: 2, clock: .system)
        let first = try await Server(store: stores[0])
        let second = try await Server(store: stores[1], token: first.token)
        let a = first.device("a")
        let b = second.device("b")
        b.start()
        defer { b.stop() }
        try await Self.waitUntil("b is live") { b.engine.delivery == .live && b.engine.status.isSynced }
        // b's engine now only fetches on a notification (its safety fetch is minutes away).
        _ = try a.repository.addIdea(title: "經由另一台伺服器")
        _ = try await a.session.run()
        try await Self.waitUntil("b has a's idea") { try b.snapshots() == a.snapshots() }
    }

    @Test("The server restarts while a poll is held: the device says polling, retries with backoff, and is live and in step again")
    func serverRestartMidPoll() async throws {
        let store = try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200)
        var server = try await Server(store: store)
        let port = server.port
        let b = server.device("b")
        b.start()
        defer { b.stop() }
        try await Self.waitUntil("b is live") { b.engine.delivery == .live && b.engine.status.isSynced }

        await server.running.stop()
        try await Self.waitUntil("b says polling") { b.engine.delivery == .polling }
        server = try await Server(store: store, token: server.token, port: port)
        try await Self.waitUntil("b is live again") { b.engine.delivery == .live }
        let a = server.device("a")
        _ = try a.repository.addIdea(title: "after the restart")
        _ = try await a.session.run()
        try await Self.waitUntil("b has a's idea") { try b.snapshots() == a.snapshots() }
    }

    @Test("A save sends exactly one request, and the other device shows it with none: its long poll carried the records",
          arguments: RemoteKind.tested.filter { $0 != .embedded }, [false, true])
    func oneRequestPerSave(remote: RemoteKind, sealed: Bool) async throws {
        let lines = Lines()
        let server = try await Server(remote, log: RequestLog(clock: .system) { line in lines.append(line) })
        // Sealed, the carried records are opened and checked as fetched ones are, by the same layer.
        let sealer = sealed ? try Self.sealer() : nil
        let a = server.device("a", sealer: sealer)
        let b = server.device("b", sealer: sealer)
        try await Self.expectOneRequestPerChange(a, b, lines)
    }

    @Test("Through the app's encryption layer, in a plain account and an encrypted one, a save still sends exactly one request (no look at the key envelope first), and the other device shows it with none",
          arguments: RemoteKind.tested.filter { $0 != .embedded }, [false, true])
    func oneRequestPerSaveThroughTheEncryptionLayer(remote: RemoteKind, encrypted: Bool) async throws {
        let lines = Lines()
        let server = try await Server(remote, log: RequestLog(clock: .system) { line in lines.append(line) })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("one-request-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFiles = ["a", "b"].map { AccountKeyFile(directory: folder.appendingPathComponent($0)) }
        if encrypted {
            let made = try KeyEnvelope.make(
                passphrase: "correct horse 電池 staple", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
            _ = try await EnvelopeStore(database: server.client()).publish(made.envelope)
            for keyFile in keyFiles { try keyFile.save(made.keyring) }
        }
        // The zone exists before the devices take their polls' tokens, as for an app started
        // again: a token taken before the zone was made carries nothing of it the first time.
        try await server.client().createZone(SyncSession.zone)
        let a = server.encryptedDevice("a", keyFile: keyFiles[0])
        let b = server.encryptedDevice("b", keyFile: keyFiles[1])
        try await Self.expectOneRequestPerChange(a, b, lines)
        let sealedRecords = try await server.client().records(in: SyncSession.zone, ofType: RecordSealer.sealedType(of: SyncSession.recordType))
        #expect(sealedRecords.count == (encrypted ? 2 : 0))
    }

    /// Starts `a` and `b`, then expects a save on `a` to cost one request (besides the long
    /// polls) and none on `b` to show it, and the same the other way.
    static func expectOneRequestPerChange(_ a: LiveDevice, _ b: LiveDevice, _ lines: Lines) async throws {
        a.start()
        b.start()
        defer {
            a.stop()
            b.stop()
        }
        try await Self.waitUntil("a and b are live") {
            [a, b].allSatisfy { $0.engine.delivery == .live && $0.engine.status.isSynced }
        }
        try await Self.waitUntilQuiet(lines)
        let before = lines.all.count
        let sent = { lines.all.dropFirst(before).filter { !$0.contains("/webcourier/") } }

        let aStoodAt = try a.repository.syncMetadata().changeToken
        _ = try a.repository.addIdea(title: "one request")
        a.engine.localChangeHappened()

        try await Self.waitUntil("b shows a's idea") {
            try b.snapshots() == a.snapshots() && a.repository.pendingChangeCount() == 0
                && sent().contains { $0.contains("/records/modify ") }
        }
        try await Self.waitUntilQuiet(lines)
        #expect(sent().count == 1, "requests besides the long polls: \(sent())")
        #expect(try b.repository.ideas(.all, limit: 10).map(\.title) == ["one request"])
        #expect(try b.repository.syncLog().allSatisfy { $0.kind != .warning })
        // a's poll, not woken by a's own upload (its URL and its save name the same client,
        // X-IdeaBox-Device), asked for no fetch: a stands where it stood.
        #expect(try a.repository.syncMetadata().changeToken == aStoodAt, "a fetched its own upload back")

        // b's change reaches a with no request either: a's own upload and b's, in the one page
        // that a's poll, woken by b's, carries.
        let afterFirst = lines.all.count
        let sentSince = { lines.all.dropFirst(afterFirst).filter { !$0.contains("/webcourier/") } }
        _ = try b.repository.addIdea(title: "an answer")
        b.engine.localChangeHappened()
        try await Self.waitUntil("a shows b's idea") {
            try a.snapshots() == b.snapshots() && b.repository.pendingChangeCount() == 0
                && sentSince().contains { $0.contains("/records/modify ") }
        }
        try await Self.waitUntilQuiet(lines)
        #expect(sentSince().count == 1, "requests besides the long polls: \(sentSince())")
        #expect(try a.repository.syncMetadata().changeToken != aStoodAt)
        #expect(try a.repository.syncLog().allSatisfy { $0.kind != .warning })
    }

    @Test("A change of another device that lands between a device's last fetch and its send still reaches it; its own upload after its poll's token does not answer its next poll (issue 61), and the change after it moves the device past both",
          arguments: RemoteKind.tested.filter { $0 != .embedded })
    func anotherDevicesChangeBeforeAnOwnSendIsFetched(remote: RemoteKind) async throws {
        let server = try await Server(remote)
        let client = server.client()
        let a = LiveDevice(name: "a", client: client)
        let c = server.device("c")
        _ = try await a.session.run()
        _ = try await c.session.run()
        var cursor = try await client.startWatching([SyncSession.zone])

        _ = try c.repository.addIdea(title: "c, after a's last fetch")
        _ = try await c.session.run()
        _ = try a.repository.addIdea(title: "a, sent without a fetch")
        _ = try await a.session.send()
        let betweenAnswer = try await Self.poll(client, after: cursor, seconds: 10)
        let between = try #require(betweenAnswer)
        #expect(between.zones == [SyncSession.zone], "a's own upload hid c's change")
        cursor = between.cursor
        _ = try await a.session.run()
        #expect(try Set(a.repository.ideas(.all, limit: 10).map(\.title)) == ["c, after a's last fetch", "a, sent without a fetch"])

        _ = try a.repository.addIdea(title: "a, alone")
        _ = try await a.session.send()
        // Sent before the poll began, after its token: the poll waits all the same, as the
        // server knows the change is the device's own (issue 61); c's next change answers it,
        // and the device's token moves past both.
        let quiet = try await Self.poll(client, after: cursor, seconds: 1)
        #expect(quiet == nil, "the device's own upload answered its next poll")

        _ = try c.repository.addIdea(title: "c, later")
        _ = try await c.session.run()
        let laterAnswer = try await Self.poll(client, after: cursor, seconds: 10)
        let later = try #require(laterAnswer)
        #expect(later.zones == [SyncSession.zone])
        _ = try await a.session.run()
        _ = try await c.session.run()
        #expect(try a.snapshots() == c.snapshots())
        #expect(try a.repository.ideas(.all, limit: 10).count == 4)
        #expect(try a.repository.pendingChangeCount() == 0)
    }

    @Test("A sealed record the server altered is refused when a long poll carries it, as when it is fetched; the device keeps its version")
    func aTamperedCarriedRecordIsRefused() async throws {
        let lines = Lines()
        let server = try await Server(.served, log: RequestLog(clock: .system) { line in lines.append(line) })
        let sealer = try Self.sealer()
        let refusals = Refusals()
        let a = server.device("a", sealer: sealer)
        let b = server.device("b", sealer: sealer, report: refusals.append)
        let idea = try a.repository.addIdea(title: "genuine", description: "秘密")
        _ = try await a.session.run()
        b.start()
        defer { b.stop() }
        try await Self.waitUntil("b is live with a's idea") {
            try b.snapshots() == a.snapshots() && b.engine.delivery == .live && b.engine.status.isSynced
        }
        try await Self.waitUntilQuiet(lines)
        let before = lines.all.count
        let bStoodAt = try b.repository.syncMetadata().changeToken

        // The server (here, a client writing under the sealed layer) alters the sealed bytes.
        let raw = server.client()
        var record = try #require(try await raw.records(in: SyncSession.zone, ofType: RecordSealer.sealedType(of: SyncSession.recordType)).first)
        guard case .bytes(var blob)? = record.fields[RecordSealer.sealedField] else {
            Issue.record("no sealed field in \(record)")
            return
        }
        blob[blob.startIndex + 30] ^= 0x04
        record.fields[RecordSealer.sealedField] = .bytes(blob)
        _ = try await raw.modify(saving: [record], deleting: [], savePolicy: .allKeys)

        try await Self.waitUntil("b has taken the carried page") {
            try b.repository.syncMetadata().changeToken != bStoodAt && b.engine.status.isSynced
        }
        try await Self.waitUntilQuiet(lines)
        #expect(refusals.all.count == 1, "\(refusals.all)")
        #expect(try b.repository.idea(id: idea.id)?.title == "genuine")
        #expect(try b.repository.idea(id: idea.id)?.description == "秘密")
        let fetches = lines.all.dropFirst(before).filter { $0.contains("/changes/zone ") || $0.contains("/records/changes ") }
        #expect(fetches.isEmpty, "b fetched instead of taking the carried page: \(fetches)")
    }

    /// A sealer of a new account key, as an encrypted account's devices hold.
    static func sealer() throws -> RecordSealer {
        let made = try KeyEnvelope.make(
            passphrase: "correct horse 電池 staple", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
        return RecordSealer(keyring: made.keyring, containerID: ServedRemote.container, hiddenNameZones: [], random: .seeded(2))
    }

    /// One long poll of `feed` after `cursor`.
    static func poll(_ feed: WebServicesDatabase, after cursor: ChangeCursor, seconds: Int) async throws -> ZoneChangeNotice? {
        try await feed.waitForChanges(after: cursor, seconds: seconds)
    }

    /// Waits until `lines` has not grown for 200 ms of the clock: the devices' requests have settled.
    static func waitUntilQuiet(_ lines: Lines) async throws {
        try await Poll.untilQuiet("the requests settle", timeout: deadline, every: .milliseconds(20)) { lines.all.count }
    }

    /// Waits, looking every 20 ms, until `condition` holds; fails after `deadline` (`Poll.until`).
    static func waitUntil(_ what: String, deadline: Duration = deadline, _ condition: () throws -> Bool) async throws {
        try await Poll.until(what, timeout: deadline, every: .milliseconds(20)) { try condition() }
    }
}

extension ChangeListenerServedTests {
    /// `ideabox serve` over `store` on 127.0.0.1, with one account, `default`.
    struct Server {
        let running: RunningServer
        let token: String

        init(_ kind: RemoteKind, log: RequestLog = RequestLog(clock: .system) { _ in }) async throws {
            let store: any RecordStore = kind == .servedPostgres
                ? try await TestPostgres.store(clock: .system, maximumRecordsPerRequest: 200)
                : try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200)
            try await self.init(store: store, log: log)
        }

        /// A server over `store` on `port` (any free one if 0), writing a line a request to
        /// `log`; `token` is the account's, added to the store if it is new.
        init(store: any RecordStore, token: String? = nil, port: Int = 0, log: RequestLog = RequestLog(clock: .system) { _ in }) async throws {
            if let token {
                self.token = token
            } else {
                let token = AccessToken.generate()
                let hash = AccessToken.hash(token)
                try await store.addAccessToken(hash: hash, account: "default")
                self.token = token
            }
            running = try await CloudServer(
                store: store, host: "127.0.0.1", port: port, containers: [ServedRemote.container], log: log).start()
        }

        var port: Int { running.port }

        /// A client of the account, as a device holds one.
        func client() -> WebServicesDatabase {
            WebServicesDatabase(
                endpoint: .init(server: URL(string: "http://127.0.0.1:\(port)")!, container: ServedRemote.container), accountName: "default", token: token, timeout: 10)
        }

        /// A device that syncs as the app's do, through the encryption layer with `keyFile`.
        func encryptedDevice(_ name: String, keyFile: AccountKeyFile) -> LiveDevice {
            let feed = client()
            var whole = feed
            whole.replacesWholeRecords = true
            let layer = EncryptedDatabase(base: feed, sealedBase: whole, keyFile: keyFile, containerID: ServedRemote.container)
            return LiveDevice(name: name, client: layer, feed: feed)
        }

        /// A device signed in to the account, with an engine and a listener on Dispatch queues;
        /// with `sealer`, its records are sealed, and what the sealed layer refuses goes to `report`.
        func device(_ name: String, sealer: RecordSealer? = nil, report: @escaping @Sendable (OpenFailure) -> Void = { _ in }) -> LiveDevice {
            var client = client()
            guard let sealer else { return LiveDevice(name: name, client: client) }
            let feed = client
            client.replacesWholeRecords = true
            return LiveDevice(name: name, client: SealedDatabase(base: client, sealer: sealer, report: report), feed: feed)
        }
    }

    /// A device whose engine and long poll run as the app's do.
    struct LiveDevice {
        let repository: IdeaRepository
        let session: SyncSession
        let engine: SyncEngine
        let listener: ChangeListener

        init(name: String, client: WebServicesDatabase) {
            self.init(name: name, client: client, feed: client)
        }

        /// A device syncing through `client`, told of changes by `feed`.
        init(name: String, client: any CloudDatabase, feed: any ZoneChangeFeed) {
            let database = try! IdeaDatabase.inMemory(
                firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), ids: .random)
            repository = database.repository(clock: .system, ids: .random)
            session = SyncSession(repository: repository, database: client, clock: .system)
            let engine = SyncEngine(session: session, scheduler: DispatchSyncScheduler(clock: .system, label: "test.sync.\(name)"))
            self.engine = engine
            listener = ChangeListener(
                feed: feed, zones: [SyncSession.zone],
                scheduler: DispatchSyncScheduler(clock: .system, label: "test.notifications.\(name)"), pollSeconds: 5,
                onChange: { engine.changesArrived(in: $0) }, onDelivery: { engine.deliveryChanged($0) })
        }

        func start() {
            engine.start()
            listener.start()
        }

        func stop() {
            listener.stop()
            engine.stop()
        }

        /// Every idea, as the fields sync must agree on, by id.
        func snapshots() throws -> [IdeaSnapshot] {
            try repository.ideas(.all, limit: 10_000).map(IdeaSnapshot.init).sorted { $0.id.lowercasedString < $1.id.lowercasedString }
        }
    }
}

/// What a sealed layer refused, from any thread.
final class Refusals: Sendable {
    private let failures = Mutex<[OpenFailure]>([])

    /// Every refusal so far.
    var all: [OpenFailure] { failures.withLock { $0 } }

    func append(_ failure: OpenFailure) {
        failures.withLock { $0.append(failure) }
    }
}

/// The lines a server's request log wrote, from any thread.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])

    /// Every line so far.
    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }
}

extension SyncStatus {
    /// Whether the last sync succeeded.
    var isSynced: Bool {
        if case .synced = self { return true }
        return false
    }
}
