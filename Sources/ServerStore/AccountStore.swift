import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// The accounts and what admits their requests: account and API tokens, the secret that
/// signs the server's URLs, and each account's quota and usage.
public protocol AccountStore: Sendable {
    /// The account whose valid token hashes to `tokenHash`, or nil. Notes when the token was
    /// used, at most once a minute.
    func account(forAccessTokenHash tokenHash: String) async throws -> String?
    /// Which of `hashes` are hashes of valid tokens (not revoked, their account not deleted),
    /// read in one go and noting no use: what the server asks once a second of the tokens its
    /// long polls are held for, to end the polls of those revoked.
    func validAccessTokenHashes(among hashes: Set<String>) async throws -> Set<String>
    /// The account named `name` in any case, spelled as it was made, or nil if there is none
    /// (an account exists from its first token until it is deleted).
    func accountName(matching name: String) async throws -> String?
    /// Gives `account` a token, by its hash, named `label`.
    func addAccessToken(hash tokenHash: String, account: String, label: String) async throws
    /// Every token `account` was given, oldest first.
    func accessTokens(account: String) async throws -> [AccessTokenEntry]
    /// Revokes the valid tokens of `account` named `label`; returns how many there were.
    func revokeAccessToken(account: String, label: String) async throws -> Int
    /// Revokes every token of `account`; returns how many were valid.
    func revokeAccessTokens(account: String) async throws -> Int
    /// Deletes `account`, in every container, with all it holds: zones, records, assets,
    /// subscriptions, quota, tokens, field types and queryable marks: an account made again
    /// under its name starts with none of them. Returns how many records went with it.
    func deleteAccount(_ account: String) async throws -> Int
    /// The accounts that were ever given a token, with how many of their tokens are valid.
    func accessTokenAccounts() async throws -> [(account: String, validTokens: Int)]
    /// Adds a container API token (`ckAPIToken`), by its hash, named `label`.
    func addAPIToken(hash tokenHash: String, label: String) async throws
    /// Whether an unrevoked API token hashes to `tokenHash`.
    func isValidAPIToken(hash tokenHash: String) async throws -> Bool
    /// Revokes the API tokens named `label`; returns how many were valid.
    func revokeAPITokens(label: String) async throws -> Int
    /// Every API token ever added, oldest first.
    func apiTokens() async throws -> [APITokenEntry]
    /// The secret that signs the server's asset URLs: made (32 random bytes) on first use and
    /// the same for every server process over this store from then on.
    func serverSecret() async throws -> Data
    /// Sets what `account` may hold, across all its databases (a database's key names its
    /// account: `DatabaseOwner.account(of:)`). Saving a new record, making a zone or storing
    /// an asset beyond it fails with `quotaExceeded`; what is already stored stays, and
    /// updating a record still works.
    func setQuota(_ quota: AccountQuota, account: String) async throws
    /// What `account` may hold: the quota set for its name, or `AccountQuota.defaults`.
    func quota(account: String) async throws -> AccountQuota
    /// What `account` holds now in all its databases, as its quota counts it.
    func usage(account: String) async throws -> AccountUsage
}

extension AccountStore {
    /// One lookup a token, for a store without a read of its own (they note their use).
    public func validAccessTokenHashes(among hashes: Set<String>) async throws -> Set<String> {
        var valid: Set<String> = []
        for hash in hashes where try await account(forAccessTokenHash: hash) != nil { valid.insert(hash) }
        return valid
    }
}

extension AccountStore {
    /// Gives `account` a token, by its hash, named `token`.
    public func addAccessToken(hash tokenHash: String, account: String) async throws {
        try await addAccessToken(hash: tokenHash, account: account, label: "token")
    }

    /// Limits `account` to `maxRecords` records (nil: no limit), its other limits as they were.
    public func setQuota(maxRecords: Int?, account: String) async throws {
        var quota = try await quota(account: account)
        quota.maxRecords = maxRecords
        try await setQuota(quota, account: account)
    }
}

/// One of an account's tokens, as `serve account token list` shows it.
public struct AccessTokenEntry: Hashable, Sendable {
    /// The name given when it was added (one per device).
    public var label: String
    /// When it was added.
    public var created: Timestamp
    /// When a request last carried it (to the minute), if one did.
    public var lastUsed: Timestamp?
    /// When it was revoked, if it was.
    public var revoked: Timestamp?

    /// An entry.
    public init(label: String, created: Timestamp, lastUsed: Timestamp?, revoked: Timestamp?) {
        self.label = label
        self.created = created
        self.lastUsed = lastUsed
        self.revoked = revoked
    }
}

/// An API token as `serve api-token list` shows it (the token itself is never stored).
public struct APITokenEntry: Hashable, Sendable {
    /// The name given when it was added.
    public var label: String
    /// When it was added.
    public var created: Timestamp
    /// When it was revoked, if it was.
    public var revoked: Timestamp?

    /// An entry.
    public init(label: String, created: Timestamp, revoked: Timestamp?) {
        self.label = label
        self.created = created
        self.revoked = revoked
    }
}
