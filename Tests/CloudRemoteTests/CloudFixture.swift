import CloudRemote
import Foundation
import IdeaBoxCore
import Synchronization

/// A fresh in-memory remote with a hand-moved clock, a seeded generator and a sleeper that
/// records instead of sleeping.
struct CloudFixture {
    /// 2026-11-20T08:15:30.000Z.
    static let start = Timestamp(milliseconds: 1_795_162_530_000)
    /// The zone most tests use.
    static let zone = RecordZoneID(zoneName: "Ideas")

    let cloud: SimulatedCloud
    let clock: ManualClock
    let sleeps: SleepRecorder

    init(seed: UInt64 = 1, maximumRecordsPerRequest: Int = 400) throws {
        clock = ManualClock(start: Self.start)
        sleeps = SleepRecorder()
        cloud = try SimulatedCloud.inMemory(
            clock: clock.wallClock, random: SeededRandomNumberGenerator(seed: seed), sleeper: sleeps.sleeper,
            maximumRecordsPerRequest: maximumRecordsPerRequest)
    }

    /// The client of `device`, with the test zone created in its account.
    func client(_ device: String = "laptop", createZone: Bool = true) throws -> any CloudDatabase {
        let database = cloud.database(forDevice: device)
        if createZone { try database.createZone(Self.zone) }
        return database
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
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("CloudRemoteTests-\(UUID().uuidString)")

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` and returns the `CloudError` it threw, or nil if it threw none.
func cloudError(_ body: () throws -> some Any) -> CloudError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? CloudError
    }
}
