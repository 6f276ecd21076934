import GRDB
import IdeaBoxFoundation
import IdeaModel

/// A device's name as one of its records carried it.
public struct DeviceNaming: Sendable, Equatable {
    /// The device.
    public var deviceId: String
    /// What it calls itself.
    public var name: String
    /// When the record that carried it was written: a later record's name wins.
    public var namedAt: Timestamp

    /// `deviceId` calls itself `name` as of `namedAt`.
    public init(deviceId: String, name: String, namedAt: Timestamp) {
        self.deviceId = deviceId
        self.name = name
        self.namedAt = namedAt
    }
}

extension IdeaRepository {
    /// The names of the devices this device has heard of; this device is "this device".
    public func deviceNames() throws -> DeviceNames {
        try connection.read { db in try deviceNames(db) }
    }

    /// `deviceNames()` inside the caller's transaction.
    func deviceNames(_ db: Database) throws -> DeviceNames {
        var names: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT deviceId, name FROM deviceName") {
            names[row["deviceId"]] = row["name"]
        }
        return DeviceNames(thisDevice: deviceId, names: names)
    }

    /// The name a person gave this device (`ideabox device name`), if one did.
    public func chosenDeviceName() throws -> String? {
        try connection.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM deviceName WHERE deviceId = ?", arguments: [deviceId])
        }
    }

    /// Names this device `name`, sent with its records from now on.
    public func chooseDeviceName(_ name: String) throws {
        guard let name = DeviceNames.normalized(name) else { throw IdeaStoreError.invalidDeviceName(name) }
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO deviceName (deviceId, name, namedAt) VALUES (?, ?, ?)",
                arguments: [deviceId, name, try stamp(db)])
        }
    }

    /// Keeps the names records carried, each unless a later record named its device already;
    /// this device's own name is never taken from a record.
    func noteDeviceNames(_ namings: [DeviceNaming], _ db: Database) throws {
        for naming in namings where naming.deviceId != deviceId {
            guard let name = DeviceNames.normalized(naming.name) else { continue }
            try db.cachedStatement(sql: """
                INSERT INTO deviceName (deviceId, name, namedAt) VALUES (?, ?, ?)
                ON CONFLICT (deviceId) DO UPDATE SET name = excluded.name, namedAt = excluded.namedAt
                WHERE excluded.namedAt >= deviceName.namedAt
                """)
                .execute(arguments: [naming.deviceId, name, naming.namedAt])
        }
    }
}
