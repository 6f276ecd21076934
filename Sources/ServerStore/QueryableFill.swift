/// Where one backfill of queryable fields stands (`QueryableFields`): the fields whose keys it
/// stores, the zones it has still to read and its place in the first of them. A store makes
/// it when a query marks the fields (`RecordZoneStore.markQueryable`) and moves it on a batch
/// at a time, each batch a transaction of its own (`RecordZoneStore.fillQueryable`); the
/// process runs it once for every query that waits for it (`QueryableFills`).
public struct QueryableFill: Sendable, Equatable {
    /// The account whose records it keys.
    public var account: String
    /// The record type whose records it keys.
    public var recordType: String
    /// The fields it keys: those the query named that were not ready when it marked them.
    public var fieldNames: Set<String>
    /// The row ids of the zones still to be read, in id order; the first is being read.
    public var zones: [Int64]
    /// The name of the last record keyed in the first of `zones` ("" before any).
    public var after = ""
    /// How many records it has keyed so far.
    public var keyed = 0

    /// A fill of `fieldNames` of `recordType` over `zones` of `account`, from their start.
    public init(account: String, recordType: String, fieldNames: Set<String>, zones: [Int64]) {
        self.account = account
        self.recordType = recordType
        self.fieldNames = fieldNames
        self.zones = zones
    }

    /// What makes two fills the same one: the queries that would start either wait for one.
    struct Key: Hashable, Sendable {
        var account: String
        var recordType: String
        var fieldNames: Set<String>

        /// Whether the fill of `other` keys all this one would: a query waiting for this one
        /// may wait for it instead.
        func isPart(of other: Key) -> Bool {
            account == other.account && recordType == other.recordType && fieldNames.isSubset(of: other.fieldNames)
        }
    }

    var key: Key { Key(account: account, recordType: recordType, fieldNames: fieldNames) }

    /// The marks it fills, as a save reads them.
    public var queryable: QueryableFields { QueryableFields(fieldNames.map { (recordType: recordType, fieldName: $0) }) }

    /// Moves on past the first of `zones`, to the start of the next.
    public mutating func finishZone() {
        if !zones.isEmpty { zones.removeFirst() }
        after = ""
    }
}
