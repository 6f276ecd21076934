/// A record that a fetch of zone changes reports as deleted.
public struct DeletedRecord: Hashable, Codable, Sendable {
    /// The deleted record's id.
    public var recordID: RecordID
    /// The type the record had when it was deleted.
    public var recordType: String

    /// A deleted record.
    public init(recordID: RecordID, recordType: String) {
        self.recordID = recordID
        self.recordType = recordType
    }
}
