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

/// The container's API tokens (`ckAPIToken`), by hash only.
extension PostgresRecordStore {
    public func addAPIToken(hash tokenHash: String, label: String) async throws {
        let now = clock.now().milliseconds
        try await run { connection in
            try await connection.query(
                "INSERT INTO api_token (hash, label, created_at) VALUES (\(tokenHash), \(label), \(now))", logger: logger)
        }
    }

    public func isValidAPIToken(hash tokenHash: String) async throws -> Bool {
        try await run { connection in
            try await !connection.query(
                "SELECT 1 FROM api_token WHERE hash = \(tokenHash) AND revoked_at IS NULL", logger: logger
            ).collect().isEmpty
        }
    }

    public func revokeAPITokens(label: String) async throws -> Int {
        let now = clock.now().milliseconds
        return try await run { connection in
            try await Self.count(
                """
                WITH revoked AS (
                    UPDATE api_token SET revoked_at = \(now) WHERE label = \(label) AND revoked_at IS NULL RETURNING 1)
                SELECT COUNT(*) FROM revoked
                """, connection, logger)
        }
    }

    public func apiTokens() async throws -> [APITokenEntry] {
        try await run { connection in
            var tokens: [APITokenEntry] = []
            let rows = try await connection.query(
                "SELECT label, created_at, revoked_at FROM api_token ORDER BY created_at, label", logger: logger)
            for try await (label, created, revoked) in rows.decode((String, Int64, Int64?).self) {
                tokens.append(APITokenEntry(
                    label: label, created: Timestamp(milliseconds: created), revoked: revoked.map(Timestamp.init(milliseconds:))))
            }
            return tokens
        }
    }
}

extension PostgresRecordStore {
    public func serverSecret() async throws -> Data {
        var generator = SystemRandomNumberGenerator()
        let candidate = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return try await run { connection in
            // The first process to ask stores its candidate; every process reads the stored one.
            try await connection.query(
                "INSERT INTO server_secret (id, secret) VALUES (1, \(candidate)) ON CONFLICT (id) DO NOTHING", logger: logger)
            let rows = try await connection.query("SELECT secret FROM server_secret WHERE id = 1", logger: logger).collect()
            return Data(try rows.first!.decode(ByteBuffer.self).readableBytesView)
        }
    }
}
