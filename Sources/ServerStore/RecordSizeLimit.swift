import CloudKitModel

/// The most one record may hold as stored: CloudKit's 1 MB of fields (larger data is an
/// asset). A save is checked as sent (`records/modify` refuses it whole), and again as it
/// would be stored: an update merges its fields into the stored record's, and without this
/// check merges of 1 MB each could grow one record without bound, and with it the one record
/// a page may hold past its budget (`PageBudget`).
public enum RecordSizeLimit {
    /// The most bytes of field data one record may hold.
    public static let maximumBytes = 1 << 20

    /// About how many bytes `fields` take: their names, text and bytes, 8 per number.
    public static func bytes(of fields: [String: FieldValue]) -> Int {
        fields.reduce(0) { $0 + $1.key.utf8.count + bytes(of: $1.value) }
    }

    /// Why `record`, as it would be stored, may not be (`limitExceeded`), or nil if it may.
    public static func refusal(storing record: RemoteRecord) -> CloudError? {
        bytes(of: record.fields) > maximumBytes ? .limitExceeded : nil
    }

    private static func bytes(of value: FieldValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .bytes(let data): data.count
        case .list(let items): items.reduce(0) { $0 + bytes(of: $1) }
        case .int64, .double, .timestamp: 8
        case .asset: 72
        case .reference(let reference): reference.recordName.utf8.count + (reference.zoneName?.utf8.count ?? 0) + 16
        case .location: 64
        }
    }
}
