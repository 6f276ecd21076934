import Foundation
import GRDB

/// The schema of a simulated network's file, built only through named migrations that are
/// never edited.
enum NetworkSchema {
    /// The migration names, oldest first.
    enum Migration: String, CaseIterable {
        case devices = "v1-devices-and-faults"
    }

    /// The migrator that brings a network file up to date; its first migration copies the
    /// devices and faults of `earlier` (a file of an earlier version that kept them among
    /// the remote's tables), if that file holds them.
    static func migrator(movingFrom earlier: URL?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(Migration.devices.rawValue) { db in
            try db.execute(sql: createTables)
            if let earlier { try moveRows(from: earlier, into: db) }
        }
        return migrator
    }

    private static let createTables = """
        CREATE TABLE device (
            name TEXT PRIMARY KEY NOT NULL,
            account TEXT,
            isOffline INTEGER NOT NULL DEFAULT 0,
            latencyMilliseconds INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE TABLE scriptedError (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            device TEXT NOT NULL,
            operation TEXT,
            error TEXT NOT NULL,
            failsAfterApplying INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX scriptedError_by_device ON scriptedError(device, id);
        CREATE TABLE errorRate (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            device TEXT NOT NULL,
            operation TEXT,
            probability REAL NOT NULL,
            error TEXT NOT NULL
        );
        CREATE INDEX errorRate_by_device ON errorRate(device, id);
        """

    /// The tables an earlier file kept, their columns here, and what to read for each there.
    private static let earlierTables: [(table: String, columns: [String])] = [
        ("device", ["name", "account", "isOffline", "latencyMilliseconds"]),
        ("scriptedError", ["id", "device", "operation", "error", "failsAfterApplying"]),
        ("errorRate", ["id", "device", "operation", "probability", "error"]),
    ]

    /// Copies the devices and faults of the file at `earlier` into `db`, read through a
    /// connection of its own (the file's own migrations, which drop them, run after this).
    /// A column the earlier file did not have yet is read as its default.
    private static func moveRows(from earlier: URL, into db: Database) throws {
        guard FileManager.default.fileExists(atPath: earlier.path) else { return }
        var configuration = Configuration()
        configuration.busyMode = .timeout(15)
        let source = try DatabaseQueue(path: earlier.path, configuration: configuration)
        let tables = try source.read { source -> [(String, [String], [Row])] in
            try earlierTables.compactMap { table, columns in
                guard try source.tableExists(table) else { return nil }
                let present = Set(try source.columns(in: table).map(\.name))
                let read = columns.map { present.contains($0) ? $0 : "0" }.joined(separator: ", ")
                return (table, columns, try Row.fetchAll(source, sql: "SELECT \(read) FROM \(table)"))
            }
        }
        for (table, columns, rows) in tables {
            let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            let insert = try db.makeStatement(sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))")
            for row in rows {
                try insert.execute(arguments: StatementArguments(row.databaseValues))
            }
        }
    }
}
