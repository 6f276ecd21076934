import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
import SQLiteRecordStore

/// The embedded remote: a CloudKit-like server in one SQLite file beside the profiles, and
/// the simulated network of each device that reaches it.
///
/// The accounts' records live in a `SQLiteRecordStore` (the same store `ideabox serve
/// --store sqlite` serves); which account each device is signed in to, and the faults
/// injected per device, live in a `SimulatedNetwork` file beside it, so that every process
/// that opens them sees one server and one network. Each device gets its client from
/// `database(forDevice:)`.
public struct SimulatedCloud: Sendable {
    /// The account a device that has never signed in or out is signed in to.
    public static let defaultAccount = SimulatedNetwork.defaultAccount
    /// The file name of the remote under the data root.
    public static let fileName = SQLiteRecordStore.fileName
    /// The file in which a profile signed in to `ideabox serve` kept its simulated network
    /// before the network had a file of its own (`SimulatedNetwork.fileName`).
    public static let servedFaultsFileName = "faults.sqlite"

    /// The accounts' records.
    public let store: SQLiteRecordStore
    /// Which account each device is signed in to, and its faults.
    public let network: SimulatedNetwork
    /// Where writes are announced to the other processes of the data root (none in memory).
    let changes: ZoneChangeFile?

    /// The most items the server accepts in one `modify`.
    public var maximumRecordsPerRequest: Int { store.maximumRecordsPerRequest }

    /// Opens (creating if needed) `remote.sqlite` and its network in `directory`, safe for
    /// many processes at once (see `SQLiteRecordStore.open`). The network is opened first,
    /// so that it takes the devices and faults an earlier remote file kept before the store's
    /// migrations drop them.
    public static func open(
        directory: URL, clock: WallClock,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        sleeper: Sleeper = .system, maximumRecordsPerRequest: Int = 400
    ) throws -> SimulatedCloud {
        let network = try SimulatedNetwork.open(directory: directory, earlierFile: fileName, random: random, sleeper: sleeper)
        let store = try SQLiteRecordStore.open(
            directory: directory, fileName: fileName, clock: clock, maximumRecordsPerRequest: maximumRecordsPerRequest)
        let changes = ZoneChangeFile(url: directory.appendingPathComponent(fileName + ZoneChangeFile.suffix))
        return SimulatedCloud(store: store, network: network, changes: changes)
    }

    /// A private in-memory remote, for tests.
    public static func inMemory(
        clock: WallClock, random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        sleeper: Sleeper = .system, maximumRecordsPerRequest: Int = 400
    ) throws -> SimulatedCloud {
        let store = try SQLiteRecordStore.inMemory(clock: clock, maximumRecordsPerRequest: maximumRecordsPerRequest)
        return SimulatedCloud(store: store, network: try SimulatedNetwork.inMemory(random: random, sleeper: sleeper), changes: nil)
    }

    /// The account and faults of `device`, with its account's quota and record count.
    public func status(device: String) throws -> RemoteDeviceStatus {
        var status = try network.status(device: device)
        if let account = status.account {
            status.quota = try store.quota(account: account).maxRecords
            status.recordCount = try store.recordCount(account: account)
        }
        return status
    }

    /// The client of the device `deviceName`: it reaches the private database of whichever
    /// account the device is signed in to at the time of each request.
    public func database(forDevice deviceName: String) -> some CloudDatabase {
        SimulatedDatabase(cloud: self, device: deviceName)
    }

    /// The feed that wakes `deviceName` when another device of its account writes to a
    /// zone it watches; nil for an in-memory remote, which no other process shares.
    public func changeFeed(forDevice deviceName: String) -> (any ZoneChangeFeed)? {
        changes.map { EmbeddedChangeFeed(cloud: self, file: $0, device: deviceName) }
    }
}
