import GRDB

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
