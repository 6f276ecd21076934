import AccountEncryption
import ArgumentParser
import CloudHTTPClient
import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import IdeaSync
import Synchronization

/// `ideabox-bench delay --server sqlite|postgres://…`: one change's trip from A's save to B's
/// screen model when the server is a round trip away: both devices reach a real `ideabox
/// serve` through a proxy on loopback that holds every chunk for `--delay-ms` each way, and
/// run their engines and long polls as the app does. Counts the requests each change costs.
/// With `--encryption plain` or `sealed` each device syncs through the app's encryption layer
/// (`EncryptedDatabase`), in a plain account or an encrypted one, as every device of the app does.
struct DelayBenchmark: AsyncParsableCommand {
    /// The layer each device syncs through.
    enum Layer: String, ExpressibleByArgument, CaseIterable {
        /// The HTTP client alone.
        case none
        /// The app's encryption layer, in an account without encryption.
        case plain
        /// The app's encryption layer, in an encrypted account: every record sealed.
        case sealed
    }

    static let configuration = CommandConfiguration(
        commandName: "delay", abstract: "Benchmark a change from A's save to B's screen over a delayed network, with its requests.")

    @Option(help: "How many changes (add, complete, delete in turn) A makes for B to see.") var changes = 60
    @Option(help: "The delay the proxy adds each way, in milliseconds (a round trip is twice it).") var delayMs = 25
    @Option(help: "How long to wait after each change for its last requests, in milliseconds.") var settleMs = 400
    @Option(help: "The layer each device syncs through: none (the HTTP client alone), plain (the app's encryption layer, account not encrypted) or sealed (the layer, account encrypted).")
    var encryption: Layer = .none
    @OptionGroup var server: BenchServer.Options

    func validate() throws {
        guard server.store != nil else { throw ValidationError("delay measures `ideabox serve`: give --server sqlite or postgres://…") }
        guard changes > 0, delayMs >= 0 else { throw ValidationError("--changes must be positive and --delay-ms at least 0.") }
    }

    func run() async throws {
        let served = try BenchServer(store: server.store!)
        defer { served.stop() }
        guard let serverPort = served.endpoint.server.port else { throw ValidationError("the server's URL names no port") }
        let proxy = try DelayProxy(targetPort: serverPort, delay: .milliseconds(delayMs))
        defer { proxy.stop() }
        var endpoint = served.endpoint
        endpoint.server = URL(string: "http://127.0.0.1:\(proxy.port)")!
        print("remote: ideabox serve over HTTP, store \(server.store!), through a proxy adding \(delayMs) ms each way "
            + "(a round trip of \(2 * delayMs) ms)")

        let account = try served.newAccount("delay-\(getpid())")
        let client = { WebServicesDatabase(endpoint: endpoint, accountName: account.name, token: account.token, timeout: 60) }
        let keys = NSTemporaryDirectory() + "ideabox-bench-delay-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: keys) }
        var keyring: AccountKeyring?
        if encryption == .sealed {
            let made = try KeyEnvelope.make(passphrase: "bench passphrase", scrypt: ScryptParameters(logN: 10, blockSize: 8, parallelism: 1)!)
            let store = EnvelopeStore(database: try client())
            guard case .published = try await store.publish(made.envelope) else {
                throw ValidationError("the account already had an envelope")
            }
            keyring = made.keyring
        }
        let devices = try ["a", "b"].map { name -> DelayDevice in
            let feed = client()
            guard encryption != .none else { return DelayDevice(client: feed, feed: feed, name: name) }
            var whole = feed
            whole.replacesWholeRecords = true
            let keyFile = AccountKeyFile(directory: URL(fileURLWithPath: keys).appendingPathComponent(name))
            if let keyring { try keyFile.save(keyring) }
            let layer = EncryptedDatabase(base: feed, sealedBase: whole, keyFile: keyFile, containerID: BenchServer.container)
            return DelayDevice(client: layer, feed: feed, name: name)
        }
        let a = devices[0]
        let b = devices[1]
        defer {
            a.stop()
            b.stop()
        }
        print("each device syncs through " + (encryption == .none ? "the HTTP client alone"
            : "the app's encryption layer, in \(encryption == .sealed ? "an encrypted" : "a plain") account"))
        let screen = AppModel(repository: b.repository, language: .english, clock: .system)
        try screen.start()
        a.start()
        b.start()
        try await waitUntil("A and B live") { [a, b].allSatisfy { $0.engine.delivery == .live && $0.engine.isSynced } }
        try await Task.sleep(for: .milliseconds(settleMs))

        var fromSave = Measurement(name: "A's save → B's screen model")
        var untilShown: [Int] = []
        var inAll: [Int] = []
        var idea: Idea?
        for index in 0..<changes {
            let clock = ContinuousClock()
            let before = proxy.requestCount
            let saved = clock.now
            let expected: IdeaCounts
            switch index % 3 {
            case 0:
                idea = try a.repository.addIdea(title: "delay \(index)")
                expected = IdeaCounts(all: 1, completed: 0)
            case 1:
                _ = try a.repository.setCompleted(true, id: idea!.id)
                expected = IdeaCounts(all: 1, completed: 1)
            default:
                _ = try a.repository.deleteIdea(id: idea!.id)
                expected = IdeaCounts(all: 0, completed: 0)
            }
            a.engine.localChangeHappened()
            try await waitUntil("B's screen shows change \(index)", every: 0.0002) {
                screen.tick()
                return screen.counts == expected
            }
            fromSave.record(clock.now - saved)
            untilShown.append(proxy.requestCount - before)
            try await Task.sleep(for: .milliseconds(settleMs))
            try await waitUntil("A has sent change \(index)") { a.session.pendingCount() == 0 && a.engine.isSynced }
            inAll.append(proxy.requestCount - before)
        }
        print("one change A → B, \(changes) changes (add, complete, delete in turn), both engines and long polls running:")
        print("  " + fromSave.report)
        print("  requests through the proxy per change, until B's screen shows it: " + Self.summary(untilShown)
            + "; in all, within \(settleMs) ms after: " + Self.summary(inAll))
    }

    /// `mean 3.00 (min 3, max 4)`.
    private static func summary(_ counts: [Int]) -> String {
        let mean = Double(counts.reduce(0, +)) / Double(max(1, counts.count))
        return String(format: "mean %.2f", mean) + " (min \(counts.min() ?? 0), max \(counts.max() ?? 0))"
    }

}

/// A device of the delay benchmark: an in-memory database, its session and engine over a
/// client that goes through the proxy, and a long poll, run as the app runs them.
private final class DelayDevice: Sendable {
    let repository: IdeaRepository
    let session: SyncSession
    let engine: SyncEngine
    private let listener: ChangeListener

    /// A device syncing through `client`, told of changes by `feed`.
    init(client: any CloudDatabase, feed: WebServicesDatabase, name: String) {
        let database = try! IdeaDatabase.inMemory(firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), ids: .random)
        repository = database.repository(clock: .system, ids: .random)
        session = SyncSession(repository: repository, database: client, clock: .system)
        let engine = SyncEngine(session: session, scheduler: DispatchSyncScheduler(clock: .system, label: "bench.delay.\(name).sync"))
        self.engine = engine
        listener = ChangeListener(
            feed: feed, zones: [SyncSession.zone], scheduler: DispatchSyncScheduler(clock: .system, label: "bench.delay.\(name).poll"),
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
}

extension SyncEngine {
    /// Whether the last sync succeeded.
    fileprivate var isSynced: Bool {
        if case .synced = status { return true }
        return false
    }
}
