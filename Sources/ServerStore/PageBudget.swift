import CloudKitModel

/// What bounds one page of a zone's changes, or of a query, besides its count: the bytes of
/// its records' fields. A page stops at the first record that takes it to `byteBudget` or
/// past it (so it holds at least one record, and at most one record more than the budget),
/// and says more come: 300 records of 900 KB asked as one page are about nine pages of 8 MiB,
/// and the server's memory for one answer a small multiple of 8 MiB, not of the records
/// (issue 60).
public enum PageBudget {
    /// The most bytes of fields a page gathers before it stops.
    public static let byteBudget = 8 << 20

    /// Whether a page that holds `count` changes whose fields took `bytes` stops before the
    /// next, for a limit of `limit` changes.
    public static func isFull(count: Int, bytes: Int, limit: Int) -> Bool {
        count >= limit || bytes >= byteBudget
    }

    /// About how many bytes `record`'s fields hold: their texts, bytes and numbers, as a
    /// stored or sent record holds them give or take its JSON's punctuation.
    public static func bytes(of record: RemoteRecord) -> Int {
        record.fields.reduce(0) { $0 + $1.key.utf8.count + bytes(of: $1.value) }
    }

    private static func bytes(of value: FieldValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .bytes(let data): data.count * 4 / 3
        case .int64, .double, .timestamp: 8
        case .asset: 128
        case .reference(let reference): reference.recordName.utf8.count + (reference.zoneName?.utf8.count ?? 0) + 96
        case .location: 256
        case .list(let items): items.reduce(0) { $0 + bytes(of: $1) }
        }
    }
}
