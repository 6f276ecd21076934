import CloudKitModel
import CloudStore
import CloudWebServices
import Foundation
import IdeaBoxCore
import Logging
import PostgresNIO

/// How many records each account may hold.
extension PostgresRecordStore {
    public func setQuota(maxRecords: Int?, account: String) async throws {
        try await run { connection in
            if let maxRecords {
                try await connection.query(
                    """
                    INSERT INTO quota (account, max_records) VALUES (\(account), \(Int64(maxRecords)))
                    ON CONFLICT (account) DO UPDATE SET max_records = excluded.max_records
                    """, logger: logger)
            } else {
                try await connection.query("DELETE FROM quota WHERE account = \(account)", logger: logger)
            }
        }
    }

    public func recordCount(account: String) async throws -> Int {
        try await run { connection in try await Self.recordCount(account, connection, logger) }
    }

    static func recordCount(_ account: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        try await count(
            "SELECT COUNT(*) FROM record JOIN zone ON zone.id = record.zone_id WHERE zone.account = \(account)", connection, logger)
    }

    static func count(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        Int(try await connection.query(query, logger: logger).collect().first?.decode(Int64.self) ?? 0)
    }
}
