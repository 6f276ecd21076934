/// What a modify request did: the records saved and deleted, and the items that failed.
public struct ModifyResult: Hashable, Sendable {
    /// The records saved, in request order, as the server now has them (new change tag,
    /// server times).
    public var saved: [RemoteRecord]
    /// The record ids deleted, in request order (including ids the server did not have).
    public var deleted: [RecordID]
    /// Why each failed item failed; the other items were applied.
    public var failures: [RecordID: CloudError]

    /// A modify result.
    public init(saved: [RemoteRecord] = [], deleted: [RecordID] = [], failures: [RecordID: CloudError] = [:]) {
        self.saved = saved
        self.deleted = deleted
        self.failures = failures
    }

    /// The failures as one `partialFailure` error, or nil if every item succeeded.
    public var partialFailure: CloudError? {
        failures.isEmpty ? nil : .partialFailure(failures)
    }
}
