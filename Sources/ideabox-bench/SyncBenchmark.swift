import ArgumentParser
import CloudRemote
import Foundation
import IdeaBoxCore
import IdeaStore
import IdeaSync

/// `ideabox-bench sync`: the initial sync of many ideas from one device through the
/// embedded remote to a new device, and one change's round trip between two devices.
struct SyncBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Benchmark sync: initial sync rates, and one change's trip from device A to B.")

    @Option(help: "How many ideas the initial sync moves.") var ideas = 10_000
    @Option(help: "How many one-change round trips to time.") var trips = 30

    func run() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory() + "ideabox-bench-sync-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        let cloud = try SimulatedCloud.open(directory: root, clock: .system)
        let a = try Self.device("a", root: root, cloud: cloud)
        let b = try Self.device("b", root: root, cloud: cloud)

        var texts = SampleCorpus(seed: 5)
        let base = Timestamp(milliseconds: 1_700_000_000_000)
        let corpus = (0..<ideas).map { index in
            let text = texts.nextText()
            let created = base.adding(milliseconds: Int64(index) * 1000)
            return Idea(id: UUID(), title: text.title, description: text.description, createdAt: created, deviceId: "bench")
        }
        _ = try a.repository.importIdeas(corpus)

        let clock = ContinuousClock()
        var start = clock.now
        let sent = try a.session.run().sent
        let upload = clock.now - start
        start = clock.now
        let received = try b.session.run().received
        let download = clock.now - start
        print("initial sync of \(ideas) ideas")
        print("  A → remote: \(sent) records in \(Measurement.milliseconds(upload))  = \(Self.rate(sent, upload)) records/s")
        print("  remote → B: \(received) records in \(Measurement.milliseconds(download))  = \(Self.rate(received, download)) records/s")

        var work = Measurement(name: "one change A → B: the work (A's sync + B's sync)")
        for index in 0..<trips {
            _ = try a.repository.addIdea(title: "change \(index)")
            try work.time {
                _ = try a.session.run()
                _ = try b.session.run()
            }
        }
        print(work.report)

        var trip = Measurement(name: "one change A → B: whole trip, engines running")
        let schedulerA = DispatchSyncScheduler(clock: .system, label: "bench.a")
        let schedulerB = DispatchSyncScheduler(clock: .system, label: "bench.b")
        let engineA = SyncEngine(session: a.session, scheduler: schedulerA)
        let engineB = SyncEngine(session: b.session, scheduler: schedulerB)
        engineA.start()
        engineB.start()
        Thread.sleep(forTimeInterval: 2)
        for index in 0..<trips {
            // Changes land at random points of B's periodic cycle, as real edits do.
            Thread.sleep(forTimeInterval: Double(index % 10) / 10)
            try trip.time {
                let idea = try a.repository.addIdea(title: "trip \(index)")
                engineA.localChangeHappened()
                while try b.repository.idea(id: idea.id) == nil {
                    Thread.sleep(forTimeInterval: 0.005)
                }
            }
        }
        engineA.stop()
        engineB.stop()
        print(trip.report)
    }

    private static func device(_ name: String, root: URL, cloud: SimulatedCloud) throws -> (repository: IdeaRepository, session: SyncSession) {
        let location = try DataLocation(root: root, profile: name)
        let database = try IdeaDatabase.open(
            directory: location.profileDirectory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
        let repository = database.repository(clock: .system, ids: .random)
        return (repository, SyncSession(repository: repository, database: cloud.database(forDevice: name), clock: .system))
    }

    private static func rate(_ count: Int, _ duration: Duration) -> Int {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds > 0 ? Int(Double(count) / seconds) : 0
    }
}
