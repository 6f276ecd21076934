import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ServerStore

/// The access tokens of `ideabox serve`'s accounts, by hash only.
extension PostgresRecordStore {
    public func account(forAccessTokenHash tokenHash: String) async throws -> String? {
        try await run { connection in
            var found: PostgresPollReads.ValidToken.Row?
            for try await row in try await connection.execute(PostgresPollReads.ValidToken(hash: tokenHash), logger: logger) {
                found = row
            }
            return await noteUse(of: tokenHash, found: found, on: connection)
        }
    }

    public func validAccessTokenHashes(among hashes: Set<String>) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        let all = Array(hashes)
        return try await run { connection in
            var valid: Set<String> = []
            let rows = try await connection.query(
                "SELECT hash FROM access_token WHERE revoked_at IS NULL AND hash = ANY(\(all))", logger: logger)
            for try await hash in rows.decode(String.self) { valid.insert(hash) }
            return valid
        }
    }

    /// The token's account, `owner`'s subscriptions and its zones' tokens in one statement,
    /// one round trip.
    public func pollSetUp(accessTokenHash tokenHash: String, subscriptionsOf owner: String) async throws -> PollSetUp {
        try await run { connection in
            var token: PostgresPollReads.ValidToken.Row?
            var subscriptions: [ZoneSubscription] = []
            var zoneTokens: [RecordZoneID: ChangeToken] = [:]
            let rows = try await connection.execute(PostgresPollReads.PollSetUp(hash: tokenHash, owner: owner), logger: logger)
            for try await (part, account, number, id, name, sequence) in rows {
                switch part {
                case 0:
                    if let account { token = (account, number) }
                case 1:
                    if let id, let name { subscriptions.append(ZoneSubscription(id: id, zone: RecordZoneID(zoneName: name))) }
                default:
                    if let number, let name, let sequence {
                        zoneTokens[RecordZoneID(zoneName: name)] = positions.token(ZonePosition(zoneRowID: number, sequence: sequence))
                    }
                }
            }
            let tokenAccount = await noteUse(of: tokenHash, found: token, on: connection)
            return PollSetUp(tokenAccount: tokenAccount, subscriptions: subscriptions, zoneTokens: zoneTokens)
        }
    }

    /// The account of the token `found` (nil for none), noting its use when the last one
    /// noted is a minute old.
    private func noteUse(of tokenHash: String, found: PostgresPollReads.ValidToken.Row?, on connection: PostgresConnection) async -> String? {
        guard let (account, lastUsed) = found else { return nil }
        let now = clock.now().milliseconds
        if AccessTokenUse.isNoted(lastUsed: lastUsed, now: now) {
            // Best effort: a database that cannot write still lets its accounts read.
            _ = try? await connection.query("UPDATE access_token SET last_used_at = \(now) WHERE hash = \(tokenHash)", logger: logger)
        }
        return account
    }

    public func accountName(matching name: String) async throws -> String? {
        try await run { connection in
            try await connection.query(
                """
                SELECT account FROM access_token WHERE lower(account) = lower(\(name))
                ORDER BY (account = \(name)) DESC, created_at LIMIT 1
                """, logger: logger
            ).collect().first?.decode(String.self)
        }
    }

    public func addAccessToken(hash tokenHash: String, account: String, label: String) async throws {
        let now = clock.now().milliseconds
        try await run { connection in
            try await connection.query(
                "INSERT INTO access_token (hash, account, label, created_at) VALUES (\(tokenHash), \(account), \(label), \(now))",
                logger: logger)
        }
    }

    public func accessTokens(account: String) async throws -> [AccessTokenEntry] {
        try await run { connection in
            var entries: [AccessTokenEntry] = []
            let rows = try await connection.query(
                """
                SELECT label, created_at, last_used_at, revoked_at FROM access_token WHERE account = \(account)
                ORDER BY created_at, label
                """, logger: logger)
            for try await (label, created, lastUsed, revoked) in rows.decode((String, Int64, Int64?, Int64?).self) {
                entries.append(AccessTokenEntry(
                    label: label, created: Timestamp(milliseconds: created), lastUsed: lastUsed.map(Timestamp.init(milliseconds:)),
                    revoked: revoked.map(Timestamp.init(milliseconds:))))
            }
            return entries
        }
    }

    public func revokeAccessToken(account: String, label: String) async throws -> Int {
        let now = clock.now().milliseconds
        return try await run { connection in
            try await Self.count(
                """
                WITH revoked AS (
                    UPDATE access_token SET revoked_at = \(now)
                    WHERE account = \(account) AND label = \(label) AND revoked_at IS NULL RETURNING 1)
                SELECT COUNT(*) FROM revoked
                """, connection, logger)
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

    /// Deletes `account` and its databases in the other containers (`account@container`, a
    /// name never holds `@`) with everything they hold, in one transaction.
    public func deleteAccount(_ account: String) async throws -> Int {
        let prefix = account + "@"
        return try await transaction { connection in
            let records = try await Self.count(
                """
                SELECT COUNT(*) FROM record JOIN zone ON zone.id = record.zone_id
                WHERE zone.account = \(account) OR left(zone.account, length(\(prefix))) = \(prefix)
                """, connection, logger)
            try await connection.query(
                "DELETE FROM zone WHERE account = \(account) OR left(account, length(\(prefix))) = \(prefix)", logger: logger)
            try await connection.query(
                "DELETE FROM asset WHERE account = \(account) OR left(account, length(\(prefix))) = \(prefix)", logger: logger)
            try await connection.query(
                "DELETE FROM subscription WHERE account = \(account) OR left(account, length(\(prefix))) = \(prefix)", logger: logger)
            try await connection.query(
                "DELETE FROM quota WHERE account = \(account) OR left(account, length(\(prefix))) = \(prefix)", logger: logger)
            try await connection.query(
                "DELETE FROM access_token WHERE account = \(account) OR left(account, length(\(prefix))) = \(prefix)", logger: logger)
            try await connection.query(
                "DELETE FROM field_type WHERE account = \(account) OR left(account, length(\(prefix))) = \(prefix)", logger: logger)
            try await connection.query(
                "DELETE FROM queryable_field WHERE account = \(account) OR left(account, length(\(prefix))) = \(prefix)", logger: logger)
            return records
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
        try await run { connection in try await Self.serverSecret(connection, logger: logger) }
    }

    /// The secret, read on `connection`: the first process to ask stores a candidate of its
    /// own; every process reads the stored one.
    static func serverSecret(_ connection: PostgresConnection, logger: Logger) async throws -> Data {
        var generator = SystemRandomNumberGenerator()
        let candidate = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        try await connection.query(
            "INSERT INTO server_secret (id, secret) VALUES (1, \(candidate)) ON CONFLICT (id) DO NOTHING", logger: logger)
        let rows = try await connection.query("SELECT secret FROM server_secret WHERE id = 1", logger: logger).collect()
        return Data(try rows.first!.decode(ByteBuffer.self).readableBytesView)
    }
}
