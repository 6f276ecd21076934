import CloudHTTPClient
import Foundation
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import Synchronization

/// A device of the benchmark: an in-memory database, its session over a served client, and
/// (once listening) an engine and a long poll.
final class PushDevice: Sendable {
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
final class ThreadSyncScheduler: SyncScheduler, @unchecked Sendable {
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
                    _ = condition.wait(until: Date().addingTimeInterval(Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
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
