import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation

/// What `ideabox serve` keeps its accounts' records and tokens in, each call on behalf of
/// one account. Every store keeps the semantics of `CloudDatabase`: change tags that change
/// on every save, one change order per zone, and a modify that commits all its successful
/// items together or none of them.
public protocol RecordStore: Sendable {
    /// The most saves plus deletes one modify may carry.
    var maximumRecordsPerRequest: Int { get }

    /// The account whose valid token hashes to `tokenHash`, or nil. Notes when the token was
    /// used, at most once a minute.
    func account(forAccessTokenHash tokenHash: String) async throws -> String?
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
    /// subscriptions, quota and tokens. Returns how many records went with it.
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
    /// Sets what `account` may hold. Saving a new record, making a zone or storing an asset
    /// beyond it fails with `quotaExceeded`; what is already stored stays, and updating a
    /// record still works.
    func setQuota(_ quota: AccountQuota, account: String) async throws
    /// What `account` may hold: the quota set for it, or `AccountQuota.defaults`.
    func quota(account: String) async throws -> AccountQuota
    /// What `account` holds now, as its quota counts it.
    func usage(account: String) async throws -> AccountUsage
    /// How many records `account` holds across its zones.
    func recordCount(account: String) async throws -> Int

    /// The zones of `account`, by name.
    func zones(account: String) async throws -> [RecordZoneID]
    /// The zones of `account`, each with the token of its latest change (which changes
    /// with every change in the zone).
    func zoneTokens(account: String) async throws -> [RecordZoneID: ChangeToken]
    /// Creates `zone` in `account` unless it exists; `quotaExceeded` if the account holds
    /// its quota of zones.
    func createZone(_ zone: RecordZoneID, account: String) async throws
    /// Deletes `zone` of `account` with its records and history, if it exists.
    func deleteZone(_ zone: RecordZoneID, account: String) async throws
    /// Forgets deletions made before `cutoff`, as CloudKit trims its change history; change
    /// tokens from before a forgotten deletion then expire. Returns how many were forgotten.
    func purgeDeletions(before cutoff: Timestamp) async throws -> Int
    /// Deletes, then saves, in one transaction (see `CloudDatabase.modify`), each under its
    /// own policy (`RecordDeletion.refusal`, `SavePolicy.refusal`, merging as
    /// `RecordSave.record(over:)` says); if `atomic`, a request with a failed item applies
    /// nothing and its result holds only the failures. A save that names an asset `account`
    /// has not stored (at the size named) fails with `unknownItem`.
    func modify(account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool) async throws -> ModifyResult
    /// One page of the changes of `zone` after `token` (see `CloudDatabase.fetchChanges`).
    func fetchChanges(account: String, in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges
    /// Stores `bytes`, which `reference` names (its checksum and size computed from them by
    /// the caller), as an asset of `account`, a chunk at a time; once, however often it
    /// comes. `limitExceeded` above `AssetReference.maximumSize`, `quotaExceeded` beyond the
    /// account's asset bytes.
    func storeAsset(_ reference: AssetReference, bytes: AssetBytes, account: String) async throws
    /// How many chunks the asset of `account` with `checksum` is stored in, or nil if it has none.
    func assetChunkCount(_ checksum: String, account: String) async throws -> Int?
    /// Chunk `index` (from 0) of the asset of `account` with `checksum`, or nil if there is none.
    func assetChunk(_ checksum: String, account: String, index: Int) async throws -> Data?
    /// Deletes the assets uploaded before `cutoff` that no record of their account names;
    /// returns how many. (The cutoff spares an asset uploaded for a save still to come.)
    func collectAssets(uploadedBefore cutoff: Timestamp) async throws -> Int
    /// The zone subscriptions of `account`, by id.
    func subscriptions(account: String) async throws -> [ZoneSubscription]
    /// Saves `subscription` for `account`, replacing one with its id.
    func saveSubscription(_ subscription: ZoneSubscription, account: String) async throws
    /// Deletes the subscription `id` of `account`; returns whether there was one.
    func deleteSubscription(id: String, account: String) async throws -> Bool
    /// Tells the other server processes over this store that `zones` of `account` changed
    /// (PostgreSQL's `NOTIFY`); a store that one process serves alone has no one to tell.
    func announceChanges(account: String, zones: Set<RecordZoneID>, from process: String) async throws
    /// Calls `handler` with every change another process announces, until the task is
    /// cancelled; returns at once for a store that one process serves alone.
    func listenForChanges(_ handler: @escaping @Sendable (_ process: String, _ account: String, _ zone: RecordZoneID) -> Void) async throws
    /// The records of `zone` named `names` that exist, in no particular order.
    func records(account: String, in zone: RecordZoneID, named names: [String]) async throws -> [RemoteRecord]
    /// At most `limit` records of type `recordType` in `zone` named after `after`, by name.
    func records(account: String, in zone: RecordZoneID, ofType recordType: String, after: String?, limit: Int) async throws -> [RemoteRecord]
}

extension RecordStore {
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

    /// Stores `data` as an asset of `account` and returns its reference (see `storeAsset(_:bytes:account:)`).
    public func storeAsset(_ data: Data, account: String) async throws -> AssetReference {
        guard data.count <= AssetReference.maximumSize else { throw CloudError.limitExceeded }
        let reference = AssetReference(of: data)
        try await storeAsset(reference, bytes: .data(data), account: account)
        return reference
    }

    /// The whole of the asset of `account` with `checksum`, or nil if it has none.
    public func asset(_ checksum: String, account: String) async throws -> Data? {
        guard let count = try await assetChunkCount(checksum, account: account) else { return nil }
        var data = Data()
        for index in 0..<count {
            guard let chunk = try await assetChunk(checksum, account: account, index: index) else { return nil }
            data.append(chunk)
        }
        return data
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
