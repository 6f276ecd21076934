/// One save of a modify request, with the policy it is saved under: the Web Services
/// operations `create`, `update`, `replace` and their `force` forms each carry their own.
public struct RecordSave: Sendable {
    /// The record to save.
    public var record: RemoteRecord
    /// How the save treats a record that changed on the server.
    public var policy: SavePolicy
    /// Whether the fields of the server's copy that `record` does not name keep their values
    /// (`update`, `forceUpdate`) rather than being dropped (`create`, `replace`).
    public var mergesFields: Bool
    /// The fields a merge removes from the server's copy (sent as null).
    public var clearedFields: Set<String> = []

    /// A save of `record` under `policy`, merging into the server's fields if `mergesFields`.
    public init(_ record: RemoteRecord, policy: SavePolicy, mergesFields: Bool = false) {
        self.record = record
        self.policy = policy
        self.mergesFields = mergesFields
    }

    /// The record to store over `server` (the stored copy, nil if none): `record` with the
    /// server's fields it does not name when merging. A merge (`update`, which need not name
    /// the type) keeps the server's record type; a save of the whole record (`replace` and
    /// `forceReplace`, ours beyond Apple) stores the type it names, so that a record sealed
    /// for end-to-end encryption, or opened again, takes its new type in one operation.
    public func record(over server: RemoteRecord?) -> RemoteRecord {
        guard let server else { return record }
        var merged = record
        if mergesFields || record.recordType.isEmpty { merged.recordType = server.recordType }
        if mergesFields {
            merged.fields = server.fields.merging(record.fields) { _, sent in sent }.filter { !clearedFields.contains($0.key) }
        }
        return merged
    }
}

/// One delete of a modify request: Web Services' `delete`, which names the change tag the
/// client read (`ifServerRecordUnchanged`), or `forceDelete` (`allKeys`).
public struct RecordDeletion: Hashable, Sendable {
    /// The record to delete.
    public var recordID: RecordID
    /// The change tag the client read (for `ifServerRecordUnchanged`).
    public var changeTag: String?
    /// Whether the delete checks `changeTag`.
    public var policy: SavePolicy

    /// A delete of `recordID` under `policy`.
    public init(_ recordID: RecordID, changeTag: String? = nil, policy: SavePolicy = .allKeys) {
        self.recordID = recordID
        self.changeTag = changeTag
        self.policy = policy
    }

    /// Why the delete may not remove `server` (the stored copy, nil if none), or nil if it
    /// may: a checked delete of a missing record is `unknownItem`, of a changed one
    /// `serverRecordChanged`; a forced delete of a missing record deletes nothing and succeeds.
    public func refusal(over server: RemoteRecord?) -> CloudError? {
        switch (policy, server) {
        case (.allKeys, _): nil
        case (.ifServerRecordUnchanged, nil): .unknownItem
        case let (.ifServerRecordUnchanged, server?): server.changeTag == changeTag ? nil : .serverRecordChanged(serverRecord: server)
        }
    }
}
