import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// The records and zones of each account's databases: what `records/*`, `zones/*` and
/// `changes/*` read and write. Every store keeps the semantics of `CloudDatabase`: change
/// tags that change on every save, one change order per zone, and a modify that commits all
/// its successful items together or none of them.
public protocol RecordZoneStore: Sendable {
    /// The most saves plus deletes one modify may carry.
    var maximumRecordsPerRequest: Int { get }
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
    /// Each change is recorded as written by `device` (the one the request named, nil if none),
    /// which `changeWriters` reads back.
    func modify(account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool, device: String?) async throws -> ModifyResult
    /// Who wrote the changes of `zone` after `token` (all of its changes if nil): each device
    /// that a modify named (`modify(account:saves:deletes:atomic:device:)`), nil for one that
    /// named none, each once, at most `limit` of them, in no particular order. Throws as
    /// `fetchChanges` does for a token it does not take. A long poll reads it to hold on a
    /// device's own changes (`PollNews`).
    func changeWriters(account: String, in zone: RecordZoneID, since token: ChangeToken?, limit: Int) async throws -> [String?]
    /// One page of the changes of `zone` after `token` (see `CloudDatabase.fetchChanges`): at
    /// most `resultsLimit` changes, and no more records once their fields hold
    /// `PageBudget.byteBudget` bytes (`moreComing` then says the rest follows).
    func fetchChanges(account: String, in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges
    /// The records of `zone` named by the first of `names` that exist, in the order of
    /// `names`, read one name after another until the records found hold `byteBudget` bytes of
    /// fields (`PageBudget.bytes(of:)`) or past it: at least one name is read (unless `names`
    /// is empty), and at most one record more than the budget is held.
    func records(account: String, in zone: RecordZoneID, named names: [String], byteBudget: Int) async throws -> NamedRecords
    /// At most `limit` records of type `recordType` in `zone` named after `after`, by name.
    func records(account: String, in zone: RecordZoneID, ofType recordType: String, after: String?, limit: Int) async throws -> [RemoteRecord]
    /// One page of `query` over the zones it names of `account`, filtered and sorted by the
    /// store and read from where the previous page ended (see `QueryPager`); throws
    /// `zoneNotFound` if a zone is missing. The fields it names are made queryable first
    /// (`makeQueryable`), so it throws what that throws.
    func query(account: String, _ query: StoredQuery) async throws -> StoredQueryPage
    /// Marks `fieldNames` of `recordType` queryable in `account` (`QueryableFields`), the
    /// marks committed not ready; returns the fill their keys still need, from its start, or
    /// nil if they are ready. Throws `QueryableFields.LimitReached` past the bound on marks.
    func markQueryable(_ fieldNames: Set<String>, of recordType: String, account: String) async throws -> QueryableFill?
    /// Stores the keys of `fill`'s next batch of records in a transaction of its own and
    /// returns the fill moved on past them; once no record is left, sets its marks ready and
    /// returns nil. Returns nil at once if they are ready (another fill, in this process or
    /// another, got there first).
    func fillQueryable(_ fill: QueryableFill) async throws -> QueryableFill?
    /// The fills running in this process, which the queries of their fields share.
    var queryableFills: QueryableFills { get }
}

extension RecordZoneStore {
    /// `modify(account:saves:deletes:atomic:device:)` for a request that names no device.
    public func modify(account: String, saves: [RecordSave], deletes: [RecordDeletion], atomic: Bool) async throws -> ModifyResult {
        try await modify(account: account, saves: saves, deletes: deletes, atomic: atomic, device: nil)
    }
}
