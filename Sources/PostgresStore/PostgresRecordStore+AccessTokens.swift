import CloudKitModel
import CloudStore
import CloudWebServices
import Foundation
import IdeaBoxCore
import Logging
import PostgresNIO

/// The access tokens of `ideabox serve`'s accounts, by hash only.
extension PostgresRecordStore {
    public func account(forAccessTokenHash tokenHash: String) async throws -> String? {
        try await run { connection in
            try await connection.query(
                "SELECT account FROM access_token WHERE hash = \(tokenHash) AND revoked_at IS NULL", logger: logger
            ).collect().first?.decode(String.self)
        }
    }

    public func addAccessToken(hash tokenHash: String, account: String) async throws {
        let now = clock.now().milliseconds
        try await run { connection in
            try await connection.query(
                "INSERT INTO access_token (hash, account, created_at) VALUES (\(tokenHash), \(account), \(now))", logger: logger)
        }
    }

    public func revokeAccessTokens(account: String) async throws -> Int {
        let now = clock.now().milliseconds
        return try await run { connection in
            try await Self.count(
                """
                WITH revoked AS (
                    UPDATE access_token SET revoked_at = \(now) WHERE account = \(account) AND revoked_at IS NULL RETURNING 1)
                SELECT COUNT(*) FROM revoked
                """, connection, logger)
        }
    }

    public func accessTokenAccounts() async throws -> [(account: String, validTokens: Int)] {
        try await run { connection in
            var accounts: [(account: String, validTokens: Int)] = []
            let rows = try await connection.query(
                """
                SELECT account, COUNT(*) FILTER (WHERE revoked_at IS NULL) FROM access_token GROUP BY account ORDER BY account
                """, logger: logger)
            for try await (account, valid) in rows.decode((String, Int64).self) { accounts.append((account, Int(valid))) }
            return accounts
        }
    }
}
