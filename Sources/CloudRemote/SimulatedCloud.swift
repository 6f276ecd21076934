import Foundation
import GRDB
import IdeaBoxCore

/// The simulated CloudKit server: accounts, each with a private database of zones of
/// records, plus the faults injected per device, all in one SQLite file.
///
/// Every process that opens the same file sees one server: a fault set by
/// `ideabox remote …` in one shell reaches the app running in another. Each device gets
/// its client from `database(forDevice:)`.
public struct SimulatedCloud: Sendable {
    /// The account a device that has never signed in or out is signed in to, so that two
    /// new profiles under one root are two devices of one account.
    public static let defaultAccount = "default"
    /// The file name of the remote under the data root.
    public static let fileName = "remote.sqlite"

    /// The connection(s) to the server's file.
    let writer: any DatabaseWriter
    /// The server's clock, for creation and modification times.
    let clock: WallClock
    /// How clients wait out injected latency.
    let sleeper: Sleeper
    /// The draws for random faults.
    let random: SharedRandom
    /// The most items the server accepts in one `modify`.
    public let maximumRecordsPerRequest: Int

    /// Opens (creating if needed) `remote.sqlite` in `directory`, in WAL mode, safe for many
    /// processes at once. Migrating runs under an exclusive file lock, so two processes
    /// starting together create the schema once.
    /// `fileName` names another file of the same kind, such as the one in which a profile
    /// signed in to `ideabox serve` keeps its simulated network.
    public static func open(
        directory: URL, fileName: String = fileName, clock: WallClock,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        sleeper: Sleeper = .system, maximumRecordsPerRequest: Int = 400
    ) throws -> SimulatedCloud {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let lockName = (fileName as NSString).deletingPathExtension + ".lock"
        let lock = try FileLock(url: directory.appendingPathComponent(lockName))
        defer { lock.unlock() }
        let pool = try DatabasePool(path: directory.appendingPathComponent(fileName).path, configuration: configuration)
        try RemoteSchema.migrator.migrate(pool)
        return SimulatedCloud(
            writer: pool, clock: clock, sleeper: sleeper, random: SharedRandom(random),
            maximumRecordsPerRequest: maximumRecordsPerRequest)
    }

    /// A private in-memory server, for tests.
    public static func inMemory(
        clock: WallClock, random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        sleeper: Sleeper = .system, maximumRecordsPerRequest: Int = 400
    ) throws -> SimulatedCloud {
        let queue = try DatabaseQueue(configuration: configuration)
        try RemoteSchema.migrator.migrate(queue)
        return SimulatedCloud(
            writer: queue, clock: clock, sleeper: sleeper, random: SharedRandom(random),
            maximumRecordsPerRequest: maximumRecordsPerRequest)
    }

    /// The client of the device `deviceName`: it reaches the private database of whichever
    /// account the device is signed in to at the time of each request.
    public func database(forDevice deviceName: String) -> some CloudDatabase {
        SimulatedDatabase(cloud: self, device: deviceName)
    }

    /// Forgets deletions made before `cutoff`, as CloudKit trims its change history. Change
    /// tokens older than a forgotten deletion then throw `changeTokenExpired`. Returns how
    /// many deletions were forgotten. The server never purges on its own.
    @discardableResult
    public func purgeDeletions(before cutoff: Timestamp) throws -> Int {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE zone SET purgedThrough = MAX(purgedThrough, (
                        SELECT MAX(changeSequence) FROM deletion WHERE deletion.zoneId = zone.id AND deletedAt < ?))
                    WHERE id IN (SELECT zoneId FROM deletion WHERE deletedAt < ?)
                    """,
                arguments: [cutoff.milliseconds, cutoff.milliseconds])
            try db.execute(sql: "DELETE FROM deletion WHERE deletedAt < ?", arguments: [cutoff.milliseconds])
            return db.changesCount
        }
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        // Other processes (another profile's app, a `remote` command) hold the write lock
        // for a millisecond or two; wait for them instead of failing. GRDB opens every
        // write transaction IMMEDIATE, so the wait happens at BEGIN, never halfway through.
        configuration.busyMode = .timeout(15)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        return configuration
    }
}
