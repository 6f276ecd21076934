import CloudKitModel
import IdeaBoxFoundation

/// Whether a modify takes each save, and what it stores: the one decision both stores make
/// (`SQLiteRecordStore`, `PostgresRecordStore`), over what they read inside the request's
/// transaction. A store reads the key zone's state (`SealingRule`), the account's quota and
/// record count, and for each save the stored record, whether its deletion is remembered and
/// which of the assets it names the account holds; this says which save fails and why, in
/// the order a client sees the reasons, and counts the records the saves it took add, so
/// that two saves in one request cannot both take the last place.
public struct ModifyRules: Sendable {
    /// What the database's key zone says of the saves it takes.
    public var sealing: SealingRule.State
    /// What the account may hold.
    public var quota: AccountQuota
    /// How many records the account holds, with the deletions still remembered and the saves
    /// taken so far; read only where the quota limits records (`countsRecords`).
    public private(set) var recordCount: Int

    /// The rules of a request over a database in `sealing`, for an account with `quota` that
    /// holds `recordCount` records (0 where the quota does not limit them).
    public init(sealing: SealingRule.State, quota: AccountQuota, recordCount: Int) {
        self.sealing = sealing
        self.quota = quota
        self.recordCount = recordCount
    }

    /// Why a request of `operations` saves and deletes is refused whole (`limitExceeded`
    /// above `maximum`), or nil if it is not.
    public static func refusal(operations: Int, maximum: Int) -> CloudError? {
        operations > maximum ? .limitExceeded : nil
    }

    /// Whether the quota limits records, so that a store reads the account's record count and
    /// the remembered deletions of the names it saves.
    public var countsRecords: Bool { quota.maxRecords != nil }

    /// Decides the save `save` over `existing` (the stored copy, nil if none), where
    /// `deletionRemembered` says the server remembers a deletion of its name (a save over it
    /// takes the deletion's row and adds none) and `heldAssets` holds the size of each asset
    /// the account holds, by checksum, among those the save names. Returns the record to
    /// store (merged as `RecordSave.record(over:)` says, before its tag and times) or why it
    /// fails: a change of encryption (`SealingRule`), the save's policy, the size of the
    /// record as stored (`RecordSizeLimit`), an asset not held at the size named
    /// (`unknownItem`), then the quota of records (`quotaExceeded`). A save taken that adds a
    /// record counts against the quota of the saves after it.
    public mutating func decide(
        _ save: RecordSave, over existing: RemoteRecord?, deletionRemembered: Bool, heldAssets: [String: Int64]
    ) -> Result<RemoteRecord, CloudError> {
        let record = save.record(over: existing)
        if let failure = SealingRule.refusal(saving: save.record, in: sealing) { return .failure(failure) }
        if let failure = save.policy.refusal(saving: save.record, over: existing) ?? RecordSizeLimit.refusal(storing: record) {
            return .failure(failure)
        }
        if !AssetRules.namesHeldAssets(save.record, held: heldAssets) { return .failure(.unknownItem) }
        let adds = existing == nil && countsRecords && !deletionRemembered
        if adds {
            guard quota.admits(records: recordCount + 1) else { return .failure(.quotaExceeded) }
            recordCount += 1
        }
        return .success(record)
    }

    /// `record` as a save stores it over `existing` (nil for a new record): with the change
    /// tag `changeTag`, created when `existing` was (or `now`), modified `now`.
    public static func stored(_ record: RemoteRecord, changeTag: String, over existing: RemoteRecord?, now: Timestamp) -> RemoteRecord {
        var stored = record
        stored.changeTag = changeTag
        stored.creationDate = existing?.creationDate ?? now
        stored.modificationDate = now
        return stored
    }

    /// The field types the saves of `records` (each a record type and its fields) keep in the
    /// schema (`FieldTypeLimits.types`): each field of each record type once, the first
    /// record's type where two differ, in the order of record type, then field name, as a
    /// claim inserts them, so that two transactions never wait for each other's rows in turn.
    public static func fieldTypes(
        of records: [(recordType: String, fields: [String: FieldValue])]
    ) -> [(recordType: String, fieldName: String, type: String)] {
        var typed: [String: [String: String]] = [:]
        for record in records {
            for (fieldName, type) in FieldTypeLimits.types(of: record.fields) where typed[record.recordType]?[fieldName] == nil {
                typed[record.recordType, default: [:]][fieldName] = type
            }
        }
        return typed.keys.sorted().flatMap { recordType in
            typed[recordType]!.sorted { $0.key < $1.key }.map { (recordType, $0.key, $0.value) }
        }
    }
}
