import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import ProcessTestSupport
import RemoteTestSupport
import SQLiteRecordStore
import ServerStore
import Synchronization

/// Devices of one simulated account over one remote, all on one hand-stepped scheduler and
/// clock: the embedded in-memory remote, or `ideabox serve` on 127.0.0.1 (with SQLite or
/// PostgreSQL behind it) reached over HTTP.
final class SyncFixture {
    /// When the clock starts (2026-11-20T08:15:30.000Z).
    static let start = TestTime.start

    let scheduler: ManualSyncScheduler
    /// The embedded remote; for the served kinds the devices' faults only, which their
    /// clients apply before a request goes out (as a served profile's faults.sqlite does).
    let cloud: SimulatedCloud
    /// Where the records are: `cloud`, or the store behind the server.
    let store: any RecordStore
    private let server: ServedRemote?

    /// Devices over the embedded in-memory remote.
    convenience init(
        random: any RandomNumberGenerator & Sendable = SeededRandomNumberGenerator(seed: 1), maximumRecordsPerRequest: Int = 400
    ) throws {
        let scheduler = ManualSyncScheduler(start: SyncFixture.start)
        let cloud = try Self.cloud(scheduler, random: random, maximumRecordsPerRequest: maximumRecordsPerRequest)
        self.init(scheduler: scheduler, cloud: cloud, store: cloud.store, server: nil)
    }

    /// Devices over `remote`: the embedded remote, or `ideabox serve` with SQLite or
    /// PostgreSQL behind it.
    convenience init(
        remote: RemoteKind, random: any RandomNumberGenerator & Sendable = SeededRandomNumberGenerator(seed: 1),
        maximumRecordsPerRequest: Int = 400
    ) async throws {
        guard remote != .embedded else {
            try self.init(random: random, maximumRecordsPerRequest: maximumRecordsPerRequest)
            return
        }
        let scheduler = ManualSyncScheduler(start: SyncFixture.start)
        let cloud = try Self.cloud(scheduler, random: random, maximumRecordsPerRequest: maximumRecordsPerRequest)
        let store: any RecordStore = if remote == .servedPostgres {
            try await TestPostgres.store(clock: scheduler.clock, maximumRecordsPerRequest: maximumRecordsPerRequest)
        } else {
            try SQLiteRecordStore.inMemory(clock: scheduler.clock, maximumRecordsPerRequest: maximumRecordsPerRequest)
        }
        let server = try await ServedRemote(
            store: store, account: SimulatedCloud.defaultAccount, maximumRecordsPerRequest: maximumRecordsPerRequest, clock: scheduler.clock)
        self.init(scheduler: scheduler, cloud: cloud, store: store, server: server)
    }

    private init(scheduler: ManualSyncScheduler, cloud: SimulatedCloud, store: any RecordStore, server: ServedRemote?) {
        self.scheduler = scheduler
        self.cloud = cloud
        self.store = store
        self.server = server
    }

    /// The embedded in-memory remote, on `scheduler`'s clock.
    private static func cloud(
        _ scheduler: ManualSyncScheduler, random: any RandomNumberGenerator & Sendable, maximumRecordsPerRequest: Int
    ) throws -> SimulatedCloud {
        try SimulatedCloud.inMemory(
            clock: scheduler.clock, random: random, sleeper: Sleeper { _ in }, maximumRecordsPerRequest: maximumRecordsPerRequest)
    }

    /// A new device named `name`, with its own database and engine. `deviceIds` makes the
    /// device's id (random unless given), `ideaIds` the ids of its new ideas, `shape` how its
    /// ideas travel (ours, or the iPhone app's records in iCloud), and `client`
    /// may wrap the device's client of the remote (to watch or fault its requests).
    func device(
        _ name: String, seedsSamples: Bool = false, clockOffset: Int64 = 0,
        deviceIds: IdGenerator = .random, ideaIds: IdGenerator = .random, shape: RecordShape = .ideabox,
        client: (any CloudDatabase) -> any CloudDatabase = { $0 }
    ) throws -> Device {
        let database = try IdeaDatabase.inMemory(
            firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: seedsSamples, language: .english, clock: scheduler.clock.offset(by: clockOffset)), ids: deviceIds)
        let clock = scheduler.clock.offset(by: clockOffset)
        let repository = database.repository(clock: clock, ids: ideaIds)
        let remote = client(server.map { FaultInjectingDatabase(base: $0.client(), faults: cloud.network, device: name) }
            ?? cloud.database(forDevice: name))
        let session = SyncSession(repository: repository, database: remote, shape: shape, clock: clock)
        return Device(
            name: name, repository: repository, session: session, engine: SyncEngine(session: session, scheduler: scheduler),
            remote: remote)
    }

    /// The non-deleted ideas the remote holds in `account`, read by a fault-free observer
    /// device, by id.
    func remoteIdeas(account: String = SimulatedCloud.defaultAccount) async throws -> [IdeaSnapshot] {
        let records: [RemoteRecord]
        if server == nil {
            let observer = "observer-\(account)"
            try cloud.network.signIn(device: observer, account: account)
            records = try await cloud.database(forDevice: observer).records(in: RecordZoneID(zoneName: "Ideas"), ofType: "Idea")
        } else {
            records = try await store.records(account: account, in: RecordZoneID(zoneName: "Ideas"), ofType: "Idea", after: nil, limit: 100_000)
        }
        return records.compactMap(IdeaSnapshot.init(record:)).sorted { $0.id.lowercasedString < $1.id.lowercasedString }
    }

    /// How many records the remote holds in `account`, deleted ideas included.
    func remoteRecordCount(account: String = SimulatedCloud.defaultAccount) async throws -> Int {
        if server != nil {
            return try await store.recordCount(account: account)
        }
        try cloud.network.signIn(device: "observer-\(account)", account: account)
        return try cloud.status(device: "observer-\(account)").recordCount
    }
}

/// One simulated device.
struct Device {
    let name: String
    let repository: IdeaRepository
    let session: SyncSession
    let engine: SyncEngine
    /// The device's client of the remote, as its session uses it.
    let remote: any CloudDatabase

    /// Every idea, newest first.
    func ideas() throws -> [Idea] {
        try repository.ideas(.all, limit: 10_000)
    }

    /// Every idea as the fields sync must agree on, by id.
    func snapshots() throws -> [IdeaSnapshot] {
        try ideas().map(IdeaSnapshot.init).sorted { $0.id.lowercasedString < $1.id.lowercasedString }
    }
}

/// The fields of an idea that every device and the remote must agree on.
struct IdeaSnapshot: Hashable {
    var id: UUID
    var title: String
    var description: String
    var isCompleted: Bool
    var updatedAt: Timestamp
    var deviceId: String

    init(_ idea: Idea) {
        id = idea.id
        title = idea.title
        description = idea.description
        isCompleted = idea.isCompleted
        updatedAt = idea.updatedAt
        deviceId = idea.deviceId
    }

    /// The idea a remote record holds, or nil for a deleted or foreign record.
    init?(record: RemoteRecord) {
        guard record.recordType == "Idea", let id = UUID(uuidString: record.recordID.recordName),
              case .int64(0)? = record["isDeleted"],
              case .string(let title)? = record["title"], case .string(let description)? = record["description"],
              case .int64(let completed)? = record["isCompleted"], case .timestamp(let updatedAt)? = record["updatedAt"],
              case .string(let deviceId)? = record["deviceId"]
        else { return nil }
        self.id = id
        self.title = title
        self.description = description
        isCompleted = completed != 0
        self.deviceId = deviceId
        // As every device reads it: no later than the remote received it (`ArrivalRule`).
        let createdAt: Timestamp? = if case .timestamp(let time)? = record["createdAt"] { time } else { nil }
        if let receivedAt = record.modificationDate,
           ArrivalRule.isFromTheFuture(latest: max(updatedAt, createdAt ?? updatedAt), receivedAt: receivedAt) {
            self.updatedAt = min(updatedAt, receivedAt)
        } else {
            self.updatedAt = updatedAt
        }
    }

    /// One line for a failure message.
    var summary: String {
        "\(id.lowercasedString.prefix(8)) \"\(title)\" \"\(description)\" done=\(isCompleted) at \(updatedAt.milliseconds) by \(deviceId.prefix(8))"
    }
}
