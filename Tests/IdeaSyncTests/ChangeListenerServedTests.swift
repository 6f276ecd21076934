import AccountEncryption
import CloudHTTPClient
import CloudKitModel
import CloudServer
import Foundation
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import RemoteTestSupport
import SQLiteServerStore
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
        let server = try Server(remote)
        let a = server.device("a")
        let b = server.device("b")
        _ = try b.session.run()
        var ids: [UUID] = []
        for index in 0..<250 {
            ids.append(try a.repository.addIdea(title: "靈感 \(index)", description: index.isMultiple(of: 7) ? "描述 \(index)" : "").id)
        }
        _ = try a.session.run()
        for id in ids.prefix(40) { _ = try a.repository.deleteIdea(id: id) }
        for id in ids.suffix(60) { _ = try a.repository.setCompleted(true, id: id) }
        _ = try a.session.run()

        b.start()
        defer { b.stop() }
        try await Self.waitUntil("b has a's 210 ideas") { try b.snapshots() == a.snapshots() }
        try await Self.waitUntil("b is live") { b.engine.delivery == .live }
        #expect(try b.repository.pendingChangeCount() == 0)
    }

    @Test("Two serve processes over one PostgreSQL: a change written through one reaches a device polling the other, by notification",
          .enabled(if: TestPostgres.url != nil, "needs IDEABOX_TEST_POSTGRES_URL"))
    func acrossTwoServeProcesses() async throws {
        let stores = try TestPostgres.stores(count: 2, clock: .system)
        let first = try Server(store: stores[0])
        let second = try Server(store: stores[1], token: first.token)
        let a = first.device("a")
        let b = second.device("b")
        b.start()
        defer { b.stop() }
        try await Self.waitUntil("b is live") { b.engine.delivery == .live && b.engine.status.isSynced }
        // b's engine now only fetches on a notification (its safety fetch is minutes away).
        _ = try a.repository.addIdea(title: "經由另一台伺服器")
        _ = try a.session.run()
        try await Self.waitUntil("b has a's idea") { try b.snapshots() == a.snapshots() }
    }

    @Test("The server restarts while a poll is held: the device says polling, retries with backoff, and is live and in step again")
    func serverRestartMidPoll() async throws {
        let store = try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200)
        var server = try Server(store: store)
        let port = server.port
        let b = server.device("b")
        b.start()
        defer { b.stop() }
        try await Self.waitUntil("b is live") { b.engine.delivery == .live && b.engine.status.isSynced }

        server.running.stop()
        try await Self.waitUntil("b says polling") { b.engine.delivery == .polling }
        server = try Server(store: store, token: server.token, port: port)
        try await Self.waitUntil("b is live again") { b.engine.delivery == .live }
        let a = server.device("a")
        _ = try a.repository.addIdea(title: "after the restart")
        _ = try a.session.run()
        try await Self.waitUntil("b has a's idea") { try b.snapshots() == a.snapshots() }
    }

    @Test("A save sends exactly one request, and the other device shows it with none: its long poll carried the records",
          arguments: RemoteKind.tested.filter { $0 != .embedded }, [false, true])
    func oneRequestPerSave(remote: RemoteKind, sealed: Bool) async throws {
        let lines = Lines()
        let server = try Server(remote, log: RequestLog(clock: .system) { line in lines.append(line) })
        // Sealed, the carried records are opened and checked as fetched ones are, by the same layer.
        let sealer = sealed ? try Self.sealer() : nil
        let a = server.device("a", sealer: sealer)
        let b = server.device("b", sealer: sealer)
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

        _ = try a.repository.addIdea(title: "one request")
        a.engine.localChangeHappened()

        try await Self.waitUntil("b shows a's idea, and a has taken back its own") {
            try b.snapshots() == a.snapshots() && a.repository.pendingChangeCount() == 0
                && a.repository.syncMetadata().changeToken == b.repository.syncMetadata().changeToken
                && sent().contains { $0.contains("/records/modify ") }
        }
        try await Self.waitUntilQuiet(lines)
        #expect(sent().count == 1, "requests besides the long polls: \(sent())")
        #expect(try b.repository.ideas(.all, limit: 10).map(\.title) == ["one request"])
        #expect(try b.repository.syncLog().allSatisfy { $0.kind != .warning })
    }

    /// A sealer of a new account key, as an encrypted account's devices hold.
    static func sealer() throws -> RecordSealer {
        let made = try KeyEnvelope.make(
            passphrase: "correct horse 電池 staple", scrypt: ScryptParameters(logN: 4, blockSize: 1, parallelism: 1)!, random: .seeded(1))
        return RecordSealer(keyring: made.keyring, containerID: ServedRemote.container, hiddenNameZones: [], random: .seeded(2))
    }

    /// Waits until `lines` has not grown for 200 ms: the devices' requests have settled.
    static func waitUntilQuiet(_ lines: Lines) async throws {
        var seen = -1
        var quietPolls = 0
        try await waitUntil("the requests settle") {
            let count = lines.all.count
            quietPolls = count == seen ? quietPolls + 1 : 0
            seen = count
            return quietPolls >= 10
        }
    }

    /// Waits, looking every 20 ms, until `condition` holds; fails after `deadline`.
    static func waitUntil(_ what: String, _ condition: () throws -> Bool) async throws {
        let end = ContinuousClock.now + deadline
        while try !condition() {
            guard ContinuousClock.now < end else {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension ChangeListenerServedTests {
    /// `ideabox serve` over `store` on 127.0.0.1, with one account, `default`.
    struct Server {
        let running: RunningServer
        let token: String

        init(_ kind: RemoteKind, log: RequestLog = RequestLog(clock: .system) { _ in }) throws {
            let store: any RecordStore = kind == .servedPostgres
                ? try TestPostgres.store(clock: .system, maximumRecordsPerRequest: 200)
                : try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200)
            try self.init(store: store, log: log)
        }

        /// A server over `store` on `port` (any free one if 0), writing a line a request to
        /// `log`; `token` is the account's, added to the store if it is new.
        init(store: any RecordStore, token: String? = nil, port: Int = 0, log: RequestLog = RequestLog(clock: .system) { _ in }) throws {
            if let token {
                self.token = token
            } else {
                let token = AccessToken.generate()
                let hash = AccessToken.hash(token)
                try runBlocking { try await store.addAccessToken(hash: hash, account: "default") }
                self.token = token
            }
            running = try CloudServer(
                store: store, host: "127.0.0.1", port: port, containers: [ServedRemote.container], log: log).start()
        }

        var port: Int { running.port }

        /// A device signed in to the account, with an engine and a listener on Dispatch queues;
        /// with `sealer`, its records are sealed.
        func device(_ name: String, sealer: RecordSealer? = nil) -> LiveDevice {
            var client = WebServicesDatabase(
                endpoint: .init(server: URL(string: "http://127.0.0.1:\(port)")!, container: ServedRemote.container), accountName: "default", token: token, timeout: 10)
            guard let sealer else { return LiveDevice(name: name, client: client) }
            let feed = client
            client.replacesWholeRecords = true
            return LiveDevice(name: name, client: SealedDatabase(base: client, sealer: sealer) { _ in }, feed: feed)
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
