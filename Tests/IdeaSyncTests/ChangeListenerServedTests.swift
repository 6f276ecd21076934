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

        init(_ kind: RemoteKind) throws {
            let store: any RecordStore = kind == .servedPostgres
                ? try TestPostgres.store(clock: .system, maximumRecordsPerRequest: 200)
                : try SQLiteRecordStore.inMemory(clock: .system, maximumRecordsPerRequest: 200)
            try self.init(store: store)
        }

        /// A server over `store` on `port` (any free one if 0); `token` is the account's, added
        /// to the store if it is new.
        init(store: any RecordStore, token: String? = nil, port: Int = 0) throws {
            if let token {
                self.token = token
            } else {
                let token = AccessToken.generate()
                let hash = AccessToken.hash(token)
                try runBlocking { try await store.addAccessToken(hash: hash, account: "default") }
                self.token = token
            }
            running = try CloudServer(
                store: store, host: "127.0.0.1", port: port, containers: [ServedRemote.container], log: RequestLog(clock: .system) { _ in }).start()
        }

        var port: Int { running.port }

        /// A device signed in to the account, with an engine and a listener on Dispatch queues.
        func device(_ name: String) -> LiveDevice {
            let client = WebServicesDatabase(
                endpoint: .init(server: URL(string: "http://127.0.0.1:\(port)")!, container: ServedRemote.container), accountName: "default", token: token, timeout: 10)
            return LiveDevice(name: name, client: client)
        }
    }

    /// A device whose engine and long poll run as the app's do.
    struct LiveDevice {
        let repository: IdeaRepository
        let session: SyncSession
        let engine: SyncEngine
        let listener: ChangeListener

        init(name: String, client: WebServicesDatabase) {
            let database = try! IdeaDatabase.inMemory(
                firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), ids: .random)
            repository = database.repository(clock: .system, ids: .random)
            session = SyncSession(repository: repository, database: client, clock: .system)
            let engine = SyncEngine(session: session, scheduler: DispatchSyncScheduler(clock: .system, label: "test.sync.\(name)"))
            self.engine = engine
            listener = ChangeListener(
                feed: client, zones: [SyncSession.zone],
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

extension SyncStatus {
    /// Whether the last sync succeeded.
    var isSynced: Bool {
        if case .synced = self { return true }
        return false
    }
}
