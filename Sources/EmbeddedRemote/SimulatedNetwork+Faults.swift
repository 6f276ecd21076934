import CloudKitModel
import Foundation
import GRDB

/// Faults are stored in the network's file, so that a setting made by one process reaches
/// the clients of every other process. They belong to a device; the quota, which belongs to
/// an account, is the record store's (`SimulatedCloud.store`).
extension SimulatedNetwork {
    /// Turns the network of `device` off (its requests fail with `networkUnavailable`) or on.
    public func setOffline(_ isOffline: Bool, device: String) throws {
        try updateDevice(device, sql: "UPDATE device SET isOffline = ? WHERE name = ?", isOffline)
    }

    /// Whether the network of `device` is off.
    public func isOffline(device: String) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT isOffline FROM device WHERE name = ?", arguments: [device]) ?? false
        }
    }

    /// Adds `milliseconds` of latency to every request of `device` that reaches the server.
    public func setLatency(milliseconds: Int, device: String) throws {
        try updateDevice(device, sql: "UPDATE device SET latencyMilliseconds = ? WHERE name = ?", max(0, milliseconds))
    }

    /// Adds a random fault to `device`; rates are drawn in the order they were added, and
    /// the first that hits fails the request.
    public func addErrorRate(_ rate: ErrorRate, device: String) throws {
        let error = try Self.encode(rate.error)
        try writer.write { db in
            try db.execute(
                sql: "INSERT INTO errorRate (device, operation, probability, error) VALUES (?, ?, ?, ?)",
                arguments: [device, rate.operation?.rawValue, rate.probability, error])
        }
    }

    /// Removes every random fault of `device`.
    public func clearErrorRates(device: String) throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM errorRate WHERE device = ?", arguments: [device])
        }
    }

    /// Queues `errors` for `device`: each of its next requests (of a matching kind) throws
    /// the first waiting error that applies to it, instead of being carried out.
    public func scriptErrors(_ errors: [ScriptedError], device: String) throws {
        let encoded = try errors.map { ($0.operation?.rawValue, try Self.encode($0.error), $0.failsAfterApplying) }
        try writer.write { db in
            for (operation, error, failsAfterApplying) in encoded {
                try db.execute(
                    sql: "INSERT INTO scriptedError (device, operation, error, failsAfterApplying) VALUES (?, ?, ?, ?)",
                    arguments: [device, operation, error, failsAfterApplying])
            }
        }
    }

    /// Drops the errors still waiting for `device`.
    public func clearScriptedErrors(device: String) throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM scriptedError WHERE device = ?", arguments: [device])
        }
    }

    /// The account and faults of `device`; its account's quota and record count are the
    /// record store's business (`SimulatedCloud.status(device:)`), nil and 0 here.
    public func status(device: String) throws -> RemoteDeviceStatus {
        try writer.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT isOffline, latencyMilliseconds FROM device WHERE name = ?", arguments: [device])
            let account = try Self.account(of: device, db)
            return RemoteDeviceStatus(
                device: device,
                account: account,
                isOffline: row?["isOffline"] ?? false,
                latencyMilliseconds: row?["latencyMilliseconds"] ?? 0,
                errorRates: try Self.errorRates(of: device, operation: nil, db),
                scriptedErrors: try Row.fetchAll(
                    db, sql: "SELECT operation, error, failsAfterApplying FROM scriptedError WHERE device = ? ORDER BY id",
                    arguments: [device]
                ).map(Self.scriptedError),
                quota: nil, recordCount: 0)
        }
    }

    /// Decides, in one transaction, what happens to a request of `device`: refused on the
    /// device itself, or let through to the server with the faults that apply. Consumes the
    /// first scripted error that matches `operation`, but only if the request gets through.
    func admit(device: String, operation: CloudOperation) throws -> Admission {
        try writer.write { db in
            guard let account = try Self.account(of: device, db) else { return .refused(.notAuthenticated) }
            return try Self.admitFaults(device: device, operation: operation, db).map { .admitted(account: account, faults: $0) }
                ?? .refused(.networkUnavailable)
        }
    }

    /// The faults a request of `device` goes out with, or nil if the device is offline;
    /// for a client whose account is not this file's business (one of `ideabox serve`).
    func admitFaults(device: String, operation: CloudOperation) throws -> Faults? {
        try writer.write { db in try Self.admitFaults(device: device, operation: operation, db) }
    }

    private static func admitFaults(device: String, operation: CloudOperation, _ db: Database) throws -> Faults? {
        let row = try Row.fetchOne(
            db, sql: "SELECT isOffline, latencyMilliseconds FROM device WHERE name = ?", arguments: [device])
        if row?["isOffline"] == true { return nil }
        let scripted = try Row.fetchOne(
            db,
            sql: """
                SELECT id, operation, error, failsAfterApplying FROM scriptedError
                WHERE device = ? AND (operation IS NULL OR operation = ?) ORDER BY id LIMIT 1
                """,
            arguments: [device, operation.rawValue])
        if let scripted {
            try db.execute(sql: "DELETE FROM scriptedError WHERE id = ?", arguments: [scripted["id"] as Int64])
        }
        return Faults(
            latencyMilliseconds: row?["latencyMilliseconds"] ?? 0,
            scriptedError: try scripted.map(Self.scriptedError),
            errorRates: try Self.errorRates(of: device, operation: operation, db))
    }

    private func updateDevice(_ device: String, sql: String, _ value: some DatabaseValueConvertible & Sendable) throws {
        try writer.write { db in
            try Self.ensureDevice(device, db)
            try db.execute(sql: sql, arguments: [value, device])
        }
    }

    /// The rates of `device` that apply to `operation` (all of them for nil), oldest first.
    private static func errorRates(of device: String, operation: CloudOperation?, _ db: Database) throws -> [ErrorRate] {
        try Row.fetchAll(
            db,
            sql: "SELECT operation, probability, error FROM errorRate WHERE device = ? AND (? IS NULL OR operation IS NULL OR operation = ?) ORDER BY id",
            arguments: [device, operation?.rawValue, operation?.rawValue]
        ).map { row in
            ErrorRate(
                probability: row["probability"], error: try decodeError(row["error"]),
                operation: (row["operation"] as String?).flatMap(CloudOperation.init(rawValue:)))
        }
    }

    /// The scripted error stored in `row`.
    private static func scriptedError(_ row: Row) throws -> ScriptedError {
        ScriptedError(
            try decodeError(row["error"]),
            operation: (row["operation"] as String?).flatMap(CloudOperation.init(rawValue:)),
            failsAfterApplying: row["failsAfterApplying"])
    }

    private static func encode(_ error: CloudError) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(error), as: UTF8.self)
    }

    private static func decodeError(_ json: String) throws -> CloudError {
        try JSONDecoder().decode(CloudError.self, from: Data(json.utf8))
    }
}
