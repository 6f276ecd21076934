import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
import ServerStore

/// The access tokens of `ideabox serve`'s accounts. Only a hash of each token is stored:
/// whoever reads the file learns no token.
extension SQLiteRecordStore {
    /// Gives `account` the token whose hash is `tokenHash`, named `label`; the account exists
    /// from then on.
    public func addAccessToken(hash tokenHash: String, account: String, label: String) throws {
        try writer.write { db in
            try db.execute(
                sql: "INSERT INTO accessToken (hash, account, label, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [tokenHash, account, label, clock.now().milliseconds])
        }
    }

    /// Gives `account` the token whose hash is `tokenHash`, named `token` (for callers that
    /// name none, such as tests and the embedded remote's).
    public func addAccessToken(hash tokenHash: String, account: String) throws {
        try addAccessToken(hash: tokenHash, account: account, label: "token")
    }

    /// The account whose unrevoked token hashes to `tokenHash`, or nil; notes the use when
    /// the last one noted is a minute old.
    public func account(forAccessTokenHash tokenHash: String) throws -> String? {
        // One statement, read from one snapshot: no transaction around it (every request asks).
        try noteUse(of: tokenHash, found: try writer.unsafeRead { db in try Self.token(hashing: tokenHash, db) })
    }

    /// Which of `hashes` are hashes of unrevoked tokens, 500 to a statement.
    public func validAccessTokenHashes(among hashes: Set<String>) throws -> Set<String> {
        let all = Array(hashes)
        return try writer.unsafeRead { db in
            var valid: Set<String> = []
            for start in stride(from: 0, to: all.count, by: 500) {
                let chunk = Array(all[start..<min(start + 500, all.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                valid.formUnion(try String.fetchAll(
                    db, sql: "SELECT hash FROM accessToken WHERE revokedAt IS NULL AND hash IN (\(marks))",
                    arguments: StatementArguments(chunk)))
            }
            return valid
        }
    }

    /// The token's account, `owner`'s subscriptions and its zones' tokens in one access to
    /// the pool of readers (each statement from its own snapshot, as the three calls alone
    /// would read them).
    public func pollSetUp(accessTokenHash tokenHash: String, subscriptionsOf owner: String) throws -> PollSetUp {
        let (token, subscriptions, zoneTokens) = try writer.unsafeRead { db -> (Row?, [ZoneSubscription], [RecordZoneID: ChangeToken]) in
            (try Self.token(hashing: tokenHash, db), try Self.subscriptions(of: owner, db), try self.zoneTokens(of: owner, db))
        }
        return PollSetUp(tokenAccount: try noteUse(of: tokenHash, found: token), subscriptions: subscriptions, zoneTokens: zoneTokens)
    }

    /// The unrevoked token whose hash is `tokenHash`: its account and when it was last used.
    private static func token(hashing tokenHash: String, _ db: Database) throws -> Row? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT account, lastUsedAt FROM accessToken WHERE hash = ? AND revokedAt IS NULL"),
            arguments: [tokenHash])
    }

    /// The account of the token `found` (nil for none), noting its use when the last one
    /// noted is a minute old.
    private func noteUse(of tokenHash: String, found: Row?) throws -> String? {
        guard let found else { return nil }
        let now = clock.now().milliseconds
        if AccessTokenUse.isNoted(lastUsed: found["lastUsedAt"], now: now) {
            // Best effort: a store that cannot write (a full disk) still lets its accounts read.
            try? writer.write { db in
                try db.execute(sql: "UPDATE accessToken SET lastUsedAt = ? WHERE hash = ?", arguments: [now, tokenHash])
            }
        }
        return found["account"]
    }

    /// The account named `name` in any case, as it was spelled, or nil: the very spelling
    /// first (a store from before names were one whatever their case may hold two), else
    /// the oldest.
    public func accountName(matching name: String) throws -> String? {
        try writer.read { db in
            try String.fetchOne(
                db,
                sql: "SELECT account FROM accessToken WHERE account = ? COLLATE NOCASE ORDER BY account = ? DESC, createdAt LIMIT 1",
                arguments: [name, name])
        }
    }

    /// Every token `account` was given, oldest first.
    public func accessTokens(account: String) throws -> [AccessTokenEntry] {
        try writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT label, createdAt, lastUsedAt, revokedAt FROM accessToken WHERE account = ? ORDER BY createdAt, label",
                arguments: [account]
            ).map {
                AccessTokenEntry(
                    label: $0["label"], created: Timestamp(milliseconds: $0["createdAt"]),
                    lastUsed: ($0["lastUsedAt"] as Int64?).map(Timestamp.init(milliseconds:)),
                    revoked: ($0["revokedAt"] as Int64?).map(Timestamp.init(milliseconds:)))
            }
        }
    }

    /// Revokes the valid tokens of `account` named `label`; returns how many there were.
    @discardableResult
    public func revokeAccessToken(account: String, label: String) throws -> Int {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE accessToken SET revokedAt = ? WHERE account = ? AND label = ? AND revokedAt IS NULL",
                arguments: [clock.now().milliseconds, account, label])
            return db.changesCount
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

    /// Deletes `account` and its databases in the other containers (`account@container`),
    /// with everything they hold, in one transaction; returns how many records went.
    @discardableResult
    public func deleteAccount(_ account: String) throws -> Int {
        try writer.write { db in
            // The account itself, and its databases in other containers: `name@container`
            // (a name never holds `@`, so no other account starts so).
            let mine = "(account = ? OR substr(account, 1, length(?)) = ?)"
            let arguments: StatementArguments = [account, account + "@", account + "@"]
            let records = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM record JOIN zone ON zone.id = record.zoneId WHERE \(mine.replacingOccurrences(of: "account", with: "zone.account"))",
                arguments: arguments) ?? 0
            for table in ["zone", "asset", "subscription", "quota", "accessToken", "fieldType", "queryableField"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE \(mine)", arguments: arguments)
            }
            return records
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
        try Self.serverSecret(writer)
    }

    /// The secret of the file `writer` writes, made on first use.
    static func serverSecret(_ writer: any DatabaseWriter) throws -> Data {
        try writer.write { db in
            if let secret = try Data.fetchOne(db, sql: "SELECT secret FROM serverSecret WHERE id = 1") { return secret }
            var generator = SystemRandomNumberGenerator()
            let secret = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            try db.execute(sql: "INSERT INTO serverSecret (id, secret) VALUES (1, ?)", arguments: [secret])
            return secret
        }
    }
}
