import Synchronization

/// The field types this process has read or set, per database and record type, so that a
/// save whose fields all have their types known reads nothing more (`FieldSchema`). A type
/// never changes once set, so what is here is never wrong, only incomplete: a field missing
/// here is read from the store. Forgotten whole past `maximumEntries` record types.
final class FieldTypeCache: Sendable {
    /// The most record types (of all databases) kept at once.
    static let maximumEntries = 100_000

    private struct Key: Hashable {
        var owner: String
        var recordType: String
    }

    private let entries = Mutex<[Key: [String: String]]>([:])

    /// The known types of the fields of `recordType` in the database `owner`.
    func types(owner: String, recordType: String) -> [String: String] {
        entries.withLock { $0[Key(owner: owner, recordType: recordType)] ?? [:] }
    }

    /// Notes `types` of fields of `recordType` in the database `owner`.
    func add(_ types: [String: String], owner: String, recordType: String) {
        guard !types.isEmpty else { return }
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries.removeAll() }
            entries[Key(owner: owner, recordType: recordType), default: [:]].merge(types) { _, new in new }
        }
    }
}
