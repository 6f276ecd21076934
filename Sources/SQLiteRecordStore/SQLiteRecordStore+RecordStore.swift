import CloudKitModel
import Foundation
import IdeaBoxFoundation
import ServerStore

/// The store as `RecordStore` callers await it (`serve`, a `serve account` command, a test):
/// each call runs the synchronous method of the same name, which the embedded remote calls
/// directly, on `BlockingTaskExecutor`. A SQLite call blocks its thread (on the file's one
/// writer, a reader of the pool, the disk), so it never runs on the cooperative pool, whose
/// few threads every task of the process shares (`serve`'s requests run on that executor
/// already).
///
/// `query`, `markQueryable` and `fillQueryable` need nothing here: they read and write
/// through GRDB's async calls, which run on the database's own queues.
extension SQLiteRecordStore: RecordStore {
    /// The value of `call`, a synchronous call of this store, run on `BlockingTaskExecutor`.
    private func offThePool<Value: Sendable>(_ call: () throws -> Value) async throws -> Value {
        try await withTaskExecutorPreference(BlockingTaskExecutor.shared) { try call() }
    }

    // MARK: RecordZoneStore

    public func recordCount(account: String) async throws -> Int {
        try await offThePool { try recordCount(account: account) }
    }

    public func zones(account: String) async throws -> [RecordZoneID] {
        try await offThePool { try zones(account: account) }
    }

    public func zoneTokens(account: String) async throws -> [RecordZoneID: ChangeToken] {
        try await offThePool { try zoneTokens(account: account) }
    }

    public func createZone(_ zone: RecordZoneID, account: String) async throws {
        try await offThePool { try createZone(zone, account: account) }
    }

    public func deleteZone(_ zone: RecordZoneID, account: String) async throws {
        try await offThePool { try deleteZone(zone, account: account) }
    }

    public func purgeDeletions(before cutoff: Timestamp) async throws -> Int {
        try await offThePool { try purgeDeletions(before: cutoff) }
    }

    public func modify(
        account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool, device: String?
    ) async throws -> ModifyResult {
        try await offThePool { try modify(account: account, saves: saves, deletes: deletes, atomic: atomic, device: device) }
    }

    public func changeWriters(account: String, in zone: RecordZoneID, since token: ChangeToken?, limit: Int) async throws -> [String?] {
        try await offThePool { try changeWriters(account: account, in: zone, since: token, limit: limit) }
    }

    public func fetchChanges(account: String, in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await offThePool { try fetchChanges(account: account, in: zone, since: token, resultsLimit: resultsLimit) }
    }

    public func records(account: String, in zone: RecordZoneID, named names: [String], byteBudget: Int) async throws -> NamedRecords {
        try await offThePool { try records(account: account, in: zone, named: names, byteBudget: byteBudget) }
    }

    public func records(
        account: String, in zone: RecordZoneID, ofType recordType: String, after: String?, limit: Int
    ) async throws -> [RemoteRecord] {
        try await offThePool { try records(account: account, in: zone, ofType: recordType, after: after, limit: limit) }
    }

    // MARK: AccountStore

    public func account(forAccessTokenHash tokenHash: String) async throws -> String? {
        try await offThePool { try account(forAccessTokenHash: tokenHash) }
    }

    public func validAccessTokenHashes(among hashes: Set<String>) async throws -> Set<String> {
        try await offThePool { try validAccessTokenHashes(among: hashes) }
    }

    public func accountName(matching name: String) async throws -> String? {
        try await offThePool { try accountName(matching: name) }
    }

    public func addAccessToken(hash tokenHash: String, account: String, label: String) async throws {
        try await offThePool { try addAccessToken(hash: tokenHash, account: account, label: label) }
    }

    public func accessTokens(account: String) async throws -> [AccessTokenEntry] {
        try await offThePool { try accessTokens(account: account) }
    }

    public func revokeAccessToken(account: String, label: String) async throws -> Int {
        try await offThePool { try revokeAccessToken(account: account, label: label) }
    }

    public func revokeAccessTokens(account: String) async throws -> Int {
        try await offThePool { try revokeAccessTokens(account: account) }
    }

    public func deleteAccount(_ account: String) async throws -> Int {
        try await offThePool { try deleteAccount(account) }
    }

    public func accessTokenAccounts() async throws -> [(account: String, validTokens: Int)] {
        try await offThePool { try accessTokenAccounts() }
    }

    public func addAPIToken(hash tokenHash: String, label: String) async throws {
        try await offThePool { try addAPIToken(hash: tokenHash, label: label) }
    }

    public func isValidAPIToken(hash tokenHash: String) async throws -> Bool {
        try await offThePool { try isValidAPIToken(hash: tokenHash) }
    }

    public func revokeAPITokens(label: String) async throws -> Int {
        try await offThePool { try revokeAPITokens(label: label) }
    }

    public func apiTokens() async throws -> [APITokenEntry] {
        try await offThePool { try apiTokens() }
    }

    public func serverSecret() async throws -> Data {
        try await offThePool { try serverSecret() }
    }

    public func setQuota(_ quota: AccountQuota, account: String) async throws {
        try await offThePool { try setQuota(quota, account: account) }
    }

    public func quota(account: String) async throws -> AccountQuota {
        try await offThePool { try quota(account: account) }
    }

    public func usage(account: String) async throws -> AccountUsage {
        try await offThePool { try usage(account: account) }
    }

    // MARK: AssetStore

    public func storeAsset(_ reference: AssetReference, bytes: AssetBytes, account: String) async throws {
        try await offThePool { try storeAsset(reference, bytes: bytes, account: account) }
    }

    public func assetChunkCount(_ checksum: String, account: String) async throws -> Int? {
        try await offThePool { try assetChunkCount(checksum, account: account) }
    }

    public func assetChunk(_ checksum: String, account: String, index: Int) async throws -> Data? {
        try await offThePool { try assetChunk(checksum, account: account, index: index) }
    }

    public func collectAssets(uploadedBefore cutoff: Timestamp) async throws -> Int {
        try await offThePool { try collectAssets(uploadedBefore: cutoff) }
    }

    // MARK: SubscriptionStore, RecordSchemaStore, PollSetUpStore

    public func subscriptions(account: String) async throws -> [ZoneSubscription] {
        try await offThePool { try subscriptions(account: account) }
    }

    public func saveSubscription(_ subscription: ZoneSubscription, account: String) async throws {
        try await offThePool { try saveSubscription(subscription, account: account) }
    }

    public func deleteSubscription(id: String, account: String) async throws -> Bool {
        try await offThePool { try deleteSubscription(id: id, account: account) }
    }

    public func fieldTypes(account: String, recordTypes: Set<String>) async throws -> [String: [String: String]] {
        try await offThePool { try fieldTypes(account: account, recordTypes: recordTypes) }
    }

    public func claimFieldTypes(_ types: [String: [String: String]], account: String) async throws -> [String: [String: String]] {
        try await offThePool { try claimFieldTypes(types, account: account) }
    }

    public func schema(ofAccount account: String) async throws -> [FieldTypeEntry] {
        try await offThePool { try schema(ofAccount: account) }
    }

    public func pollSetUp(accessTokenHash tokenHash: String, subscriptionsOf owner: String) async throws -> PollSetUp {
        try await offThePool { try pollSetUp(accessTokenHash: tokenHash, subscriptionsOf: owner) }
    }
}
