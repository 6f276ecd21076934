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
    @Flag(
        name: .customLong("cut-halfway"),
        help: "Cut each direction of every initial sync once, halfway through its requests (a network failure), and let a second run finish it.")
    var cutsHalfway = false
    @OptionGroup var server: BenchServer.Options

    func validate() throws {
        guard rounds > 0 else { throw ValidationError("--rounds is at least 1.") }
    }

    func run() async throws {
        if comparesEncryption { return try await runPaired() }
        // Over HTTP: one server process for every round, a new account (an empty remote) per round.
        let served = try server.store.map { try BenchServer(store: $0) }
        defer { served?.stop() }
        var uploads: [Int] = []
        var downloads: [Int] = []
        var tripReports: [String] = []
        var requestReports: [String] = []
        let requestsEachWay = (ideas + SyncSession.batchLimit - 1) / SyncSession.batchLimit
        for round in 0..<rounds {
            let (upload, download) = try await Self.withDevices("round-\(round)", server: served) { a, b in
                _ = try a.repository.importIdeas(Self.corpus(count: ideas))
                let clock = ContinuousClock()
                var start = clock.now
                if cutsHalfway { a.remote.cut(afterRequests: requestsEachWay / 2) }
                let sending = MemorySampler()
                try await Self.runToTheEnd(a.session, cut: cutsHalfway)
                let sendingPeak = sending.stop()
                let upload = Self.rate(ideas, clock.now - start)
                start = clock.now
                if cutsHalfway { b.remote.cut(afterRequests: (ideas / SyncSession.fetchLimit) / 2) }
                let receiving = MemorySampler()
                try await Self.runToTheEnd(b.session, cut: cutsHalfway)
                let receivingPeak = receiving.stop()
                let download = Self.rate(ideas, clock.now - start)
                let (left, arrived) = (try a.repository.pendingChangeCount(), try b.repository.counts().all)
                guard left == 0, arrived == ideas else {
                    throw ValidationError("\(left) of \(ideas) ideas still queued on A, \(arrived) arrived on B")
                }
                if round == rounds - 1 {
                    requestReports = [
                        a.remote.modifies.report, b.remote.fetches.report,
                        "A's own memory (RssAnon) while sending: \(sending.before >> 20) MiB before, \(sendingPeak >> 20) MiB at most",
                        "B's own memory (RssAnon) while receiving: \(receiving.before >> 20) MiB before, \(receivingPeak >> 20) MiB at most",
                    ] + (served.map { Self.serverReports($0) } ?? [])
                    // One change at a time between two devices that hold the whole corpus.
                    tripReports = try await timeTrips(a, b)
                }
                return (upload, download)
            }
            uploads.append(upload)
            downloads.append(download)
        }
        print("remote: \(server.store.map { "ideabox serve over HTTP, store \($0)" } ?? "embedded SQLite file")")
        print("initial sync of \(ideas) ideas, \(rounds) rounds with new devices\(cutsHalfway ? ", each direction cut once halfway and resumed" : ""): records/s, median (slowest–fastest)")
        print("  A → remote: \(Self.summary(uploads))")
        print("  remote → B: \(Self.summary(downloads))")
        requestReports.forEach { print($0) }
        tripReports.forEach { print($0) }
    }

    /// Runs `session` once; when `cut`, a run that fails for the network is run once more.
    private static func runToTheEnd(_ session: SyncSession, cut: Bool) async throws {
        do {
            _ = try await session.run()
        } catch {
            guard cut else { throw error }
            print("  cut: \(error); running again")
            _ = try await session.run()
        }
    }

    /// serve's own figures: its time for each request (its log) and its memory.
    private static func serverReports(_ server: BenchServer) -> [String] {
        var modify = Measurement(name: "records/modify, serve's own time")
        var changes = Measurement(name: "records/changes, serve's own time")
        for line in server.log.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 5, fields[3] == "200", let milliseconds = Double(fields[4]) else { continue }
            let duration = Duration.microseconds(Int64(milliseconds * 1000))
            if fields[2].hasSuffix("/records/modify") { modify.record(duration) }
            if fields[2].hasSuffix("/changes/zone") || fields[2].hasSuffix("/records/changes") { changes.record(duration) }
        }
        return [modify, changes].filter { !$0.samples.isEmpty }.map(\.report)
            + ["serve's resident memory: \(server.usage().residentMiB) MiB now, \(server.peakResidentMiB) MiB at most"]
    }

    /// A and B over one new remote in a new temporary data root, removed afterwards.
    private static func withDevices<T>(
        _ name: String, server: BenchServer?, _ body: (Device, Device) async throws -> T
    ) async throws -> T {
        let process = ProcessInfo.processInfo.processIdentifier
        let root = URL(fileURLWithPath: NSTemporaryDirectory() + "ideabox-bench-sync-\(process)-\(name)")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        let remotes: (MeasuredDatabase, MeasuredDatabase)
        if let server {
            let account = try server.newAccount("bench-\(process)-\(name)")
            remotes = (MeasuredDatabase(try server.client(account)), MeasuredDatabase(try server.client(account)))
        } else {
            let cloud = try SimulatedCloud.open(directory: root, clock: .system)
            remotes = (MeasuredDatabase(cloud.database(forDevice: "a")), MeasuredDatabase(cloud.database(forDevice: "b")))
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

    private typealias Device = (repository: IdeaRepository, session: SyncSession, remote: MeasuredDatabase)

    private static func device(_ name: String, root: URL, remote: MeasuredDatabase) throws -> Device {
        let location = try DataLocation(root: root, profile: name)
        let database = try IdeaDatabase.open(
            directory: location.profileDirectory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
        let repository = database.repository(clock: .system, ids: .random)
        return (repository, SyncSession(repository: repository, database: remote, clock: .system), remote)
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
