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

/// `ideabox-bench push --server sqlite|postgres://…`: changes pushed to devices that hold a
/// long poll on a real `ideabox serve`, in three parts: one change's trip from A to B's
/// screen model; what an idle device costs the server; and many devices holding polls on
/// one server while others write.
struct PushBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push", abstract: "Benchmark push: change latency, idle requests, and many devices holding long polls.")

    @Option(help: "How many changes (add, complete, delete in turn) A makes for B to see.") var changes = 200
    @Option(help: "How many idle devices the idle part watches.") var idleDevices = 5
    @Option(help: "How long the idle part watches them, in seconds.") var idleSeconds = 120
    @Option(help: "How many devices hold long polls in the fan-out part (0 skips it).") var listeners = 1000
    @Option(help: "How many devices write in the fan-out part, each in an account of its own.") var writers = 50
    @Option(help: "How many changes each writer makes in the fan-out part.") var rounds = 10
    @OptionGroup var server: BenchServer.Options

    func validate() throws {
        guard server.store != nil else { throw ValidationError("push measures `ideabox serve`: give --server sqlite or postgres://…") }
        guard writers > 0, listeners == 0 || listeners >= writers else { throw ValidationError("--listeners must be 0 or at least --writers.") }
    }

    func run() throws {
        let files = FileLimit.raiseToHardLimit()
        let served = try BenchServer(store: server.store!)
        defer { served.stop() }
        let serverFiles = served.log.firstMatch(of: /open files up to (\d+)/).map { String($0.1) } ?? "?"
        print("remote: ideabox serve over HTTP, store \(server.store!); the server's file limit \(serverFiles), this process's \(files)")
        try latency(served)
        try idleCost(served)
        if listeners > 0 { try fanOut(served) }
    }

    // MARK: (a) One change, A to B's screen model

    private func latency(_ served: BenchServer) throws {
        let account = try served.newAccount("push-latency-\(getpid())")
        let a = PushDevice(client: try served.client(account))
        let b = PushDevice(client: try served.client(account))
        let screen = AppModel(repository: b.repository, language: .english, clock: .system)
        try screen.start()
        b.startListening(scheduler: DispatchSyncScheduler(clock: .system, label: "bench.b.notifications"))
        defer { b.stop() }
        try Self.wait("B live") { b.engine.delivery == .live && b.engine.status.isSynced }

        var fromPush = Measurement(name: "A's push starts → B's screen model")
        var fromCommit = Measurement(name: "A's push answered → B's screen model")
        var fromSave = Measurement(name: "A's save → B's screen model, both engines")
        var idea: Idea?
        for index in 0..<changes * 2 {
            // The first half pushes by hand, to time the push; the second runs A's engine as the app does.
            let byEngine = index >= changes
            if index == changes { a.startListening(scheduler: DispatchSyncScheduler(clock: .system, label: "bench.a.notifications")) }
            let clock = ContinuousClock()
            let saved = clock.now
            let expected: IdeaCounts
            switch index % 3 {
            case 0:
                idea = try a.repository.addIdea(title: "push \(index)")
                expected = IdeaCounts(all: 1, completed: 0)
            case 1:
                _ = try a.repository.setCompleted(true, id: idea!.id)
                expected = IdeaCounts(all: 1, completed: 1)
            default:
                _ = try a.repository.deleteIdea(id: idea!.id)
                expected = IdeaCounts(all: 0, completed: 0)
            }
            let start = clock.now
            if byEngine {
                a.engine.localChangeHappened()
            } else {
                _ = try a.session.run()
            }
            let committed = clock.now
            try Self.wait("B's screen shows change \(index)", every: 0.0002) {
                screen.tick()
                return screen.counts == expected
            }
            if byEngine {
                fromSave.record(clock.now - saved)
            } else {
                fromPush.record(clock.now - start)
                fromCommit.record(clock.now - committed)
            }
        }
        a.stop()
        print("(a) one change A → B, \(changes) changes (add, complete, delete in turn) each way, B's engine and long poll running:")
        print("  " + fromPush.report)
        print("  " + fromCommit.report)
        print("  " + fromSave.report)
    }

    // MARK: (b) What an idle device costs

    private func idleCost(_ served: BenchServer) throws {
        let account = try served.newAccount("push-idle-\(getpid())")
        let devices = try (0..<idleDevices).map { _ in PushDevice(client: try served.client(account)) }
        for (index, device) in devices.enumerated() {
            device.startListening(scheduler: DispatchSyncScheduler(clock: .system, label: "bench.idle.\(index)"))
        }
        defer { devices.forEach { $0.stop() } }
        try Self.wait("every idle device live") { devices.allSatisfy { $0.engine.delivery == .live && $0.engine.status.isSynced } }
        Thread.sleep(forTimeInterval: 1)
        let before = served.log.split(separator: "\n").count
        Thread.sleep(forTimeInterval: Double(idleSeconds))
        let lines = served.log.split(separator: "\n").dropFirst(before)
        let theirs = lines.filter { $0.hasSuffix(" \(account.name)") || $0.contains(" /webcourier/") }
        let perMinute = Double(theirs.count) / Double(idleDevices) / (Double(idleSeconds) / 60)
        print("(b) \(idleDevices) idle devices for \(idleSeconds) s: \(theirs.count) requests in all, "
            + String(format: "%.2f", perMinute) + " per device per minute (the long polls; no other request)")
        if theirs.contains(where: { !$0.contains(" /webcourier/") }) {
            print("  other requests: " + theirs.filter { !$0.contains(" /webcourier/") }.joined(separator: " | "))
        }
    }

    // MARK: (c) Many devices holding polls while others write

    private func fanOut(_ served: BenchServer) throws {
        let pool = try HTTPConnectionPool.with(connectionsPerHost: listeners + writers + 64)
        let perAccount = listeners / writers
        let accounts = try (0..<writers).map { try served.newAccount("push-fan-\(getpid())-\($0)") }
        let writerDevices = accounts.map { PushDevice(client: served.client($0, pool: pool)) }
        let listening = (0..<perAccount * writers).map { index in
            PushDevice(client: served.client(accounts[index % writers], pool: pool), recordsNotices: true)
        }
        for device in listening {
            device.startListening(scheduler: ThreadSyncScheduler())
        }
        defer { listening.forEach { $0.stop() } }
        try Self.wait("\(listening.count) devices live", timeout: 300) {
            listening.allSatisfy { $0.engine.delivery == .live && $0.engine.status.isSynced }
        }
        Thread.sleep(forTimeInterval: 2)
        let held = served.usage()

        var notification = Measurement(name: "a push starts → notification at each device")
        var peak = held
        for round in 0..<rounds {
            let starts = Mutex([ContinuousClock.Instant](repeating: .now, count: writers))
            let failures = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: writers) { index in
                do {
                    _ = try writerDevices[index].repository.addIdea(title: "round \(round) from writer \(index)")
                    starts.withLock { $0[index] = .now }
                    _ = try writerDevices[index].session.run()
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
            guard failures.withLock({ $0 }) == 0 else { throw ValidationError("a writer's sync failed in round \(round)") }
            try Self.wait("round \(round) everywhere", timeout: 120) {
                try listening.allSatisfy { try $0.repository.counts().all == round + 1 }
            }
            let roundStarts = starts.withLock { $0 }
            for (index, device) in listening.enumerated() {
                let start = roundStarts[index % writers]
                if let noticed = device.notices.first(where: { $0 >= start }) { notification.record(noticed - start) }
            }
            let usage = served.usage()
            peak = (max(peak.residentMiB, usage.residentMiB), max(peak.openFiles, usage.openFiles))
        }
        // Every device holds exactly its writer's ideas: none lost, none twice.
        var lost = 0
        var duplicated = 0
        for (index, device) in listening.enumerated() {
            let mine = try device.repository.ideas(.all, limit: 100_000)
            let theirs = Set(try writerDevices[index % writers].repository.ideas(.all, limit: 100_000).map(\.id))
            lost += theirs.subtracting(mine.map(\.id)).count
            duplicated += mine.count - Set(mine.map(\.id)).count
        }
        print("(c) \(listening.count) devices holding long polls (\(perAccount) per account), \(writers) writers, \(rounds) rounds:")
        print("  " + notification.report)
        print("  server with every poll held: \(held.residentMiB) MiB resident, \(held.openFiles) open files; "
            + "at its peak \(peak.residentMiB) MiB, \(peak.openFiles) open files")
        print("  converged: every device holds its writer's \(rounds) ideas; \(lost) lost, \(duplicated) duplicated")
    }

    /// Waits, looking every `interval` seconds, until `condition` holds.
    private static func wait(_ what: String, timeout: TimeInterval = 60, every interval: TimeInterval = 0.005, _ condition: () throws -> Bool) throws {
        let end = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < end else { throw ValidationError("timed out waiting until \(what)") }
            Thread.sleep(forTimeInterval: interval)
        }
    }
}

/// A device of the benchmark: an in-memory database, its session over a served client, and
/// (once listening) an engine and a long poll.
private final class PushDevice: Sendable {
    let repository: IdeaRepository
    let session: SyncSession
    let engine: SyncEngine
    private let client: WebServicesDatabase
    private let recordsNotices: Bool
    private let noticeTimes = Mutex<[ContinuousClock.Instant]>([])
    private let listener = Mutex<ChangeListener?>(nil)

    init(client: WebServicesDatabase, recordsNotices: Bool = false) {
        let database = try! IdeaDatabase.inMemory(firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), ids: .random)
        repository = database.repository(clock: .system, ids: .random)
        session = SyncSession(repository: repository, database: client, clock: .system)
        engine = SyncEngine(session: session, scheduler: DispatchSyncScheduler(clock: .system, label: "bench.push.sync"))
        self.client = client
        self.recordsNotices = recordsNotices
    }

    /// When each notification arrived.
    var notices: [ContinuousClock.Instant] { noticeTimes.withLock { $0 } }

    /// Starts the engine and a long poll whose waits run on `scheduler`.
    func startListening(scheduler: any SyncScheduler) {
        let engine = engine
        let listener = ChangeListener(
            feed: client, zones: [SyncSession.zone], scheduler: scheduler,
            onChange: { [self] zones in
                if recordsNotices { noticeTimes.withLock { $0.append(.now) } }
                engine.changesArrived(in: zones)
            },
            onDelivery: { engine.deliveryChanged($0) })
        self.listener.withLock { $0 = listener }
        engine.start()
        listener.start()
    }

    func stop() {
        listener.withLock { $0 }?.stop()
        engine.stop()
    }
}

/// A scheduler with a thread of its own, for a listener whose waits block it for up to a
/// minute: a thousand of them would exhaust Dispatch's pool of threads.
private final class ThreadSyncScheduler: SyncScheduler, @unchecked Sendable {
    let clock = WallClock.system
    private let condition = NSCondition()
    private var jobs: [(due: ContinuousClock.Instant, work: @Sendable () -> Void)] = []

    init() {
        let thread = Thread { [self] in runJobs() }
        thread.stackSize = 256 << 10
        thread.start()
    }

    func schedule(after milliseconds: Int64, _ work: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append((.now + .milliseconds(max(0, milliseconds)), work))
        jobs.sort { $0.due < $1.due }
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty || jobs[0].due > .now {
                if let next = jobs.first {
                    let left = next.due - .now
                    condition.wait(until: Date().addingTimeInterval(Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
                } else {
                    condition.wait()
                }
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.work()
        }
    }
}

extension SyncStatus {
    /// Whether the last sync succeeded.
    fileprivate var isSynced: Bool {
        if case .synced = self { return true }
        return false
    }
}
