import Foundation
import GRDB
import IdeaBoxFoundation

/// The simulated network of the devices that share one data root (or of one profile signed
/// in to `ideabox serve`): which account each device is signed in to, and the faults set
/// for it (offline, latency, scripted and random errors).
///
/// It is a file of its own, with its own migrations (`NetworkSchema`), beside whatever the
/// devices reach: the embedded remote's record store or a server. Every process that opens
/// the file sees one network, so a fault set by `ideabox remote …` in one shell reaches the
/// app running in another. A server never hears of it.
public struct SimulatedNetwork: Sendable {
    /// The file name of the network beside the embedded remote, and in a served profile.
    public static let fileName = "network.sqlite"

    /// The connection(s) to the network's file.
    let writer: any DatabaseWriter
    /// How clients wait out injected latency.
    let sleeper: Sleeper
    /// The draws for random faults.
    let random: SharedRandom

    /// Opens (creating if needed) the network file in `directory`. A new file takes the
    /// devices and faults an earlier version kept in `earlierFile` of the same folder (the
    /// embedded remote's file, or a served profile's `faults.sqlite`), which are left there
    /// for that file's own migrations to drop.
    public static func open(
        directory: URL, earlierFile: String?, random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        sleeper: Sleeper = .system
    ) throws -> SimulatedNetwork {
        try OwnerOnly.createDirectory(directory)
        let lock = try FileLock(url: directory.appendingPathComponent("network.lock"))
        defer { lock.unlock() }
        let url = directory.appendingPathComponent(fileName)
        try OwnerOnly.prepareDatabase(url)
        let pool = try DatabasePool(path: url.path, configuration: configuration)
        let earlier = earlierFile.map { directory.appendingPathComponent($0) }
        try NetworkSchema.migrator(movingFrom: earlier).migrate(pool)
        return SimulatedNetwork(writer: pool, sleeper: sleeper, random: SharedRandom(random))
    }

    /// A private in-memory network, for tests.
    public static func inMemory(
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(), sleeper: Sleeper = .system
    ) throws -> SimulatedNetwork {
        let queue = try DatabaseQueue(configuration: configuration)
        try NetworkSchema.migrator(movingFrom: nil).migrate(queue)
        return SimulatedNetwork(writer: queue, sleeper: sleeper, random: SharedRandom(random))
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        // Another process (an app, a `remote` command) holds the write lock for a millisecond
        // or two; wait for it instead of failing.
        configuration.busyMode = .timeout(15)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return configuration
    }
}
