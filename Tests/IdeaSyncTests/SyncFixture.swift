import CloudRemote
import Foundation
import IdeaBoxCore
import IdeaStore
import IdeaSync
import Synchronization

/// Devices of one simulated account over one in-memory remote, all on one hand-stepped
/// scheduler and clock.
final class SyncFixture {
    /// 2026-11-20T08:00:00.000Z.
    static let start = Timestamp(milliseconds: 1_795_161_600_000)

    let scheduler = ManualSyncScheduler(start: SyncFixture.start)
    let cloud: SimulatedCloud

    init(random: any RandomNumberGenerator & Sendable = SeededRandomNumberGenerator(seed: 1), maximumRecordsPerRequest: Int = 400) throws {
        cloud = try SimulatedCloud.inMemory(
            clock: scheduler.clock, random: random, sleeper: Sleeper { _ in }, maximumRecordsPerRequest: maximumRecordsPerRequest)
    }

    /// A new device named `name`, with its own database and engine.
    func device(_ name: String, seedsSamples: Bool = false, clockOffset: Int64 = 0) throws -> Device {
        let database = try IdeaDatabase.inMemory(
            firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: seedsSamples, language: .english))
        let clock = scheduler.clock.offset(by: clockOffset)
        let repository = database.repository(clock: clock, ids: .random)
        let session = SyncSession(repository: repository, database: cloud.database(forDevice: name), clock: clock)
        return Device(name: name, repository: repository, session: session, engine: SyncEngine(session: session, scheduler: scheduler))
    }
}

/// One simulated device.
struct Device {
    let name: String
    let repository: IdeaRepository
    let session: SyncSession
    let engine: SyncEngine

    /// Every idea, newest first.
    func ideas() throws -> [Idea] {
        try repository.ideas(.all, limit: 10_000)
    }
}
