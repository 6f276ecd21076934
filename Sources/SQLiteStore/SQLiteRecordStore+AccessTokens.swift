import CloudStore
import Foundation
import GRDB
import IdeaBoxCore

/// The access tokens of `ideabox serve`'s accounts. Only a hash of each token is stored:
/// whoever reads the file learns no token.
extension SQLiteRecordStore {
    /// Gives `account` the token whose hash is `tokenHash`; the account exists from then on.
    public func addAccessToken(hash tokenHash: String, account: String) throws {
        try writer.write { db in
            try db.execute(
                sql: "INSERT INTO accessToken (hash, account, createdAt) VALUES (?, ?, ?)",
                arguments: [tokenHash, account, clock.now().milliseconds])
        }
    }

    /// The account whose unrevoked token hashes to `tokenHash`, or nil.
    public func account(forAccessTokenHash tokenHash: String) throws -> String? {
        try writer.read { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT account FROM accessToken WHERE hash = ? AND revokedAt IS NULL"),
                arguments: [tokenHash])
        }
    }

    /// Revokes every token of `account`; returns how many were still valid.
    @discardableResult
    public func revokeAccessTokens(account: String) throws -> Int {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE accessToken SET revokedAt = ? WHERE account = ? AND revokedAt IS NULL",
                arguments: [clock.now().milliseconds, account])
            return db.changesCount
        }
    }

    /// The accounts that were ever given a token, with how many of their tokens are valid.
    public func accessTokenAccounts() throws -> [(account: String, validTokens: Int)] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT account, SUM(revokedAt IS NULL) AS valid FROM accessToken GROUP BY account ORDER BY account
                    """
            ).map { ($0["account"], $0["valid"]) }
        }
    }
}

/// The container's API tokens (`ckAPIToken`), by hash only.
extension SQLiteRecordStore {
    /// Adds the API token whose hash is `tokenHash`, named `label`.
    public func addAPIToken(hash tokenHash: String, label: String) throws {
        try writer.write { db in
            try db.execute(
                sql: "INSERT INTO apiToken (hash, label, createdAt) VALUES (?, ?, ?)",
                arguments: [tokenHash, label, clock.now().milliseconds])
        }
    }

    /// Whether an unrevoked API token hashes to `tokenHash`.
    public func isValidAPIToken(hash tokenHash: String) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM apiToken WHERE hash = ? AND revokedAt IS NULL"), arguments: [tokenHash]) ?? false
        }
    }

    /// Revokes the API tokens named `label`; returns how many were still valid.
    @discardableResult
    public func revokeAPITokens(label: String) throws -> Int {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE apiToken SET revokedAt = ? WHERE label = ? AND revokedAt IS NULL",
                arguments: [clock.now().milliseconds, label])
            return db.changesCount
        }
    }

    /// Every API token ever added, oldest first.
    public func apiTokens() throws -> [APITokenEntry] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT label, createdAt, revokedAt FROM apiToken ORDER BY createdAt, label").map {
                APITokenEntry(
                    label: $0["label"], created: Timestamp(milliseconds: $0["createdAt"]),
                    revoked: ($0["revokedAt"] as Int64?).map(Timestamp.init(milliseconds:)))
            }
        }
    }
}

extension SQLiteRecordStore {
    /// The secret that signs asset URLs, made on first use.
    public func serverSecret() throws -> Data {
        try writer.write { db in
            if let secret = try Data.fetchOne(db, sql: "SELECT secret FROM serverSecret WHERE id = 1") { return secret }
            var generator = SystemRandomNumberGenerator()
            let secret = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            try db.execute(sql: "INSERT INTO serverSecret (id, secret) VALUES (1, ?)", arguments: [secret])
            return secret
        }
    }
}
