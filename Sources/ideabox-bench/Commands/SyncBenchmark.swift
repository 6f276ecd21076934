import AccountEncryption
import ArgumentParser
import CloudHTTPClient
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync

/// `ideabox-bench sync`: the initial sync of many ideas from one device through the
/// embedded remote (or `ideabox serve` over HTTP) to a new device, and one change's round
/// trip between two devices.
struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Benchmark sync: initial sync rates, and one change's trip from device A to B.")

    @Option(help: "How many ideas the initial sync moves.") var ideas = 10_000
    @Option(help: "How many initial syncs to run, each with new devices and a new remote.") var rounds = 5
    @Option(help: "How many one-change round trips to time.") var trips = 30
    @Flag(
        name: .customLong("compare-encryption"),
        help: "Paired runs: each round syncs once plain and once with the account encrypted, alternating which goes first.")
    var comparesEncryption = false
    @OptionGroup var server: BenchServer.Options

    func validate() throws {
        guard rounds > 0 else { throw ValidationError("--rounds is at least 1.") }
    }

    func run() async throws {
        if comparesEncryption { return try await runPaired() }
        let corpus = Self.corpus(count: ideas)
        // Over HTTP: one server process for every round, a new account (an empty remote) per round.
        let served = try server.store.map { try BenchServer(store: $0) }
        defer { served?.stop() }
        var uploads: [Int] = []
        var downloads: [Int] = []
        var tripReports: [String] = []
        for round in 0..<rounds {
            let (upload, download) = try await Self.withDevices("round-\(round)", server: served) { a, b in
                _ = try a.repository.importIdeas(corpus)
                let clock = ContinuousClock()
                var start = clock.now
                let sent = try await a.session.run().sent
                let upload = Self.rate(sent, clock.now - start)
                start = clock.now
                let received = try await b.session.run().received
                let download = Self.rate(received, clock.now - start)
                guard sent == corpus.count, received == corpus.count else {
                    throw ValidationError("sent \(sent) and received \(received) of \(corpus.count) ideas")
                }
                if round == rounds - 1 {
                    // One change at a time between two devices that hold the whole corpus.
                    tripReports = try await timeTrips(a, b)
                }
                return (upload, download)
            }
            uploads.append(upload)
            downloads.append(download)
        }
        print("remote: \(server.store.map { "ideabox serve over HTTP, store \($0)" } ?? "embedded SQLite file")")
        print("initial sync of \(ideas) ideas, \(rounds) rounds with new devices: records/s, median (slowest–fastest)")
        print("  A → remote: \(Self.summary(uploads))")
        print("  remote → B: \(Self.summary(downloads))")
        tripReports.forEach { print($0) }
    }

    /// A and B over one new remote in a new temporary data root, removed afterwards.
    private static func withDevices<T>(
        _ name: String, server: BenchServer?, _ body: (Device, Device) async throws -> T
    ) async throws -> T {
        let process = ProcessInfo.processInfo.processIdentifier
        let root = URL(fileURLWithPath: NSTemporaryDirectory() + "ideabox-bench-sync-\(process)-\(name)")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        let remotes: (any CloudDatabase, any CloudDatabase)
        if let server {
            let account = try server.newAccount("bench-\(process)-\(name)")
            remotes = (try server.client(account), try server.client(account))
        } else {
            let cloud = try SimulatedCloud.open(directory: root, clock: .system)
            remotes = (cloud.database(forDevice: "a"), cloud.database(forDevice: "b"))
        }
        return try await body(try device("a", root: root, remote: remotes.0), try device("b", root: root, remote: remotes.1))
    }

    private static func corpus(count: Int) -> [Idea] {
        var texts = SampleCorpus(seed: 5)
        let base = Timestamp(milliseconds: 1_700_000_000_000)
        return (0..<count).map { index in
            let text = texts.nextText()
            let created = base.adding(milliseconds: Int64(index) * 1000)
            return Idea(id: UUID(), title: text.title, description: text.description, createdAt: created, deviceId: "bench")
        }
    }

    /// Times one change's trip from A to B, by the work and with both engines running.
    private func timeTrips(_ a: Device, _ b: Device) async throws -> [String] {
        var work = Measurement(name: "one change A → B: the work (A's sync + B's sync)")
        for index in 0..<trips {
            _ = try a.repository.addIdea(title: "change \(index)")
            try await work.time {
                _ = try await a.session.run()
                _ = try await b.session.run()
            }
        }

        var trip = Measurement(name: "one change A → B: whole trip, engines running")
        let schedulerA = DispatchSyncScheduler(clock: .system, label: "bench.a")
        let schedulerB = DispatchSyncScheduler(clock: .system, label: "bench.b")
        let engineA = SyncEngine(session: a.session, scheduler: schedulerA)
        let engineB = SyncEngine(session: b.session, scheduler: schedulerB)
        engineA.start()
        engineB.start()
        try await Task.sleep(for: .seconds(2))
        for index in 0..<trips {
            // Changes land at random points of B's periodic cycle, as real edits do.
            try await Task.sleep(for: .milliseconds(index % 10 * 100))
            try await trip.time {
                let idea = try a.repository.addIdea(title: "trip \(index)")
                engineA.localChangeHappened()
                while try b.repository.idea(id: idea.id) == nil {
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
        }
        engineA.stop()
        engineB.stop()
        return [work.report, trip.report]
    }

    private typealias Device = (repository: IdeaRepository, session: SyncSession)

    private static func device(_ name: String, root: URL, remote: any CloudDatabase) throws -> Device {
        let location = try DataLocation(root: root, profile: name)
        let database = try IdeaDatabase.open(
            directory: location.profileDirectory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
        let repository = database.repository(clock: .system, ids: .random)
        return (repository, SyncSession(repository: repository, database: remote, clock: .system))
    }

    private static func summary(_ rates: [Int]) -> String {
        let sorted = rates.sorted()
        return "\(sorted[sorted.count / 2]) (\(sorted[0])–\(sorted[sorted.count - 1]))"
    }

    private static func rate(_ count: Int, _ duration: Duration) -> Int {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds > 0 ? Int(Double(count) / seconds) : 0
    }
}
