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
