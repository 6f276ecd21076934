import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import PostgresRecordStore
import ProcessTestSupport
import RemoteTestSupport
import ServerStore
import Synchronization
import Testing

/// A fresh in-memory remote with a hand-moved clock, a seeded generator and a sleeper that
/// records instead of sleeping: embedded, or served over HTTP.
struct CloudFixture {
    /// When the clock starts (2026-11-20T08:15:30.000Z).
    static let start = TestTime.start
    /// The zone most tests use.
    static let zone = RecordZoneID(zoneName: "Ideas")
    /// The account every client is signed in to.
    static let account = SimulatedCloud.defaultAccount

    let kind: RemoteKind
    /// The embedded remote; for the served kinds only a place for the clients' faults.
    let cloud: SimulatedCloud
    /// The records: the embedded file, or the store behind the server.
    let store: any RecordStore
    /// Where the devices' faults are kept: the embedded file itself, or the clients' own.
    let faults: SimulatedCloud
    let clock: ManualClock
    let sleeps: SleepRecorder
    private let server: ServedRemote?

    init(kind: RemoteKind = .embedded, seed: UInt64 = 1, maximumRecordsPerRequest: Int = 400) async throws {
        self.kind = kind
        clock = ManualClock(start: Self.start)
        sleeps = SleepRecorder()
        cloud = try SimulatedCloud.inMemory(
            clock: clock.wallClock, random: SeededRandomNumberGenerator(seed: seed), sleeper: sleeps.sleeper,
            maximumRecordsPerRequest: maximumRecordsPerRequest)
        switch kind {
        case .embedded:
            store = cloud.store
            faults = cloud
            server = nil
        case .served, .servedPostgres:
            store = kind == .served
                ? cloud.store : try await TestPostgres.store(clock: clock.wallClock, maximumRecordsPerRequest: maximumRecordsPerRequest)
            faults = try SimulatedCloud.inMemory(
                clock: clock.wallClock, random: SeededRandomNumberGenerator(seed: seed), sleeper: sleeps.sleeper)
            server = try await ServedRemote(store: store, account: Self.account, maximumRecordsPerRequest: maximumRecordsPerRequest, clock: clock.wallClock)
        }
    }

    /// The client of `device`, with the test zone created in its account.
    func client(_ device: String = "laptop", createZone: Bool = true) async throws -> any CloudDatabase {
        let database: any CloudDatabase = if let server {
            FaultInjectingDatabase(base: server.client(), faults: faults.network, device: device)
        } else {
            cloud.database(forDevice: device)
        }
        if createZone { try await database.createZone(Self.zone) }
        return database
    }

    /// How many records the account holds on the server.
    func recordCount() async throws -> Int {
        try await store.recordCount(account: Self.account)
    }

    /// Limits the account to `maxRecords` records (nil: no limit).
    func setQuota(maxRecords: Int?) async throws {
        try await store.setQuota(maxRecords: maxRecords, account: Self.account)
    }

    /// Forgets the server's deletions made before `cutoff`; returns how many.
    func purgeDeletions(before cutoff: Timestamp) async throws -> Int {
        try await store.purgeDeletions(before: cutoff)
    }
}

/// A new `Note` record named `name` in the test zone.
func note(_ name: String, _ text: String = "text", zone: RecordZoneID = CloudFixture.zone) -> RemoteRecord {
    RemoteRecord(
        recordType: "Note", recordID: RecordID(recordName: name, zoneID: zone), fields: ["text": .string(text)])
}

/// The id of the record `name` in the test zone.
func id(_ name: String) -> RecordID {
    RecordID(recordName: name, zoneID: CloudFixture.zone)
}

/// A sleeper that notes how long it was asked to sleep and returns at once.
final class SleepRecorder: Sendable {
    private let recorded = Mutex<[Int]>([])

    /// The waits asked for so far, in milliseconds.
    var milliseconds: [Int] { recorded.withLock { $0 } }

    /// The sleeper to inject.
    var sleeper: Sleeper {
        Sleeper { [self] milliseconds in recorded.withLock { $0.append(milliseconds) } }
    }
}

/// A fresh directory under the system's temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("RemoteTests-\(UUID().uuidString)")

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}
