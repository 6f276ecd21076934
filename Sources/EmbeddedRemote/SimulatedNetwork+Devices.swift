import GRDB

extension SimulatedNetwork {
    /// The account a device that has never signed in or out is signed in to, so that two
    /// new profiles under one root are two devices of one account.
    public static let defaultAccount = "default"

    /// Signs `device` in to `account`; from its next request on, the device's client sees
    /// that account's database only.
    public func signIn(device: String, account: String) throws {
        try writer.write { db in
            try Self.ensureDevice(device, db)
            try db.execute(sql: "UPDATE device SET account = ? WHERE name = ?", arguments: [account, device])
        }
    }

    /// Signs `device` out: its requests fail with `notAuthenticated` until it signs in.
    public func signOut(device: String) throws {
        try writer.write { db in
            try Self.ensureDevice(device, db)
            try db.execute(sql: "UPDATE device SET account = NULL WHERE name = ?", arguments: [device])
        }
    }

    /// The account `device` is signed in to, or nil if it is signed out. A device never
    /// seen before is signed in to `defaultAccount`.
    public func signedInAccount(device: String) throws -> String? {
        try writer.read { db in try Self.account(of: device, db) }
    }

    /// The account `device` is signed in to (the default one if never set), or nil.
    static func account(of device: String, _ db: Database) throws -> String? {
        let row = try Row.fetchOne(db, sql: "SELECT account FROM device WHERE name = ?", arguments: [device])
        guard let row else { return defaultAccount }
        return row["account"]
    }

    /// Gives `device` its row, signed in to the default account, if it has none yet.
    static func ensureDevice(_ device: String, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO device (name, account) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            arguments: [device, defaultAccount])
    }
}
