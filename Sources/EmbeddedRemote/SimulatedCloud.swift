import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
import SQLiteServerStore

/// The embedded remote: a CloudKit-like server in one SQLite file beside the profiles, and
/// the simulated network of each device that reaches it.
///
/// The accounts' records live in a `SQLiteRecordStore` (the same store `ideabox serve
/// --store sqlite` serves); this adds what only a simulation has: which account each device
/// is signed in to, and the faults injected per device (offline, latency, scripted and
/// random errors), kept in the same file so that every process that opens it sees one
/// server: a fault set by `ideabox remote …` in one shell reaches the app running in
/// another. Each device gets its client from `database(forDevice:)`.
public struct SimulatedCloud: Sendable {
    /// The account a device that has never signed in or out is signed in to, so that two
    /// new profiles under one root are two devices of one account.
    public static let defaultAccount = "default"
    /// The file name of the remote under the data root.
    public static let fileName = SQLiteRecordStore.fileName
    /// The file in which a profile signed in to `ideabox serve` keeps its simulated network.
    public static let servedFaultsFileName = "faults.sqlite"

    /// The accounts' records, and the file the devices and faults are kept in.
    public let store: SQLiteRecordStore
    /// How clients wait out injected latency.
    let sleeper: Sleeper
    /// The draws for random faults.
    let random: SharedRandom
    /// Where writes are announced to the other processes of the data root (none in memory).
    let changes: ZoneChangeFile?

    /// The connection(s) to the remote's file.
    var writer: any DatabaseWriter { store.writer }
    /// The most items the server accepts in one `modify`.
    public var maximumRecordsPerRequest: Int { store.maximumRecordsPerRequest }

    /// Opens (creating if needed) `remote.sqlite` in `directory`, safe for many processes at
    /// once (see `SQLiteRecordStore.open`). `fileName` names another file of the same kind,
    /// such as `servedFaultsFileName`.
    public static func open(
        directory: URL, fileName: String = fileName, clock: WallClock,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        sleeper: Sleeper = .system, maximumRecordsPerRequest: Int = 400
    ) throws -> SimulatedCloud {
        let store = try SQLiteRecordStore.open(
            directory: directory, fileName: fileName, clock: clock, maximumRecordsPerRequest: maximumRecordsPerRequest)
        let changes = ZoneChangeFile(url: directory.appendingPathComponent(fileName + ZoneChangeFile.suffix))
        return SimulatedCloud(store: store, sleeper: sleeper, random: SharedRandom(random), changes: changes)
    }

    /// A private in-memory remote, for tests.
    public static func inMemory(
        clock: WallClock, random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        sleeper: Sleeper = .system, maximumRecordsPerRequest: Int = 400
    ) throws -> SimulatedCloud {
        let store = try SQLiteRecordStore.inMemory(clock: clock, maximumRecordsPerRequest: maximumRecordsPerRequest)
        return SimulatedCloud(store: store, sleeper: sleeper, random: SharedRandom(random), changes: nil)
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
