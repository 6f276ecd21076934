import ServerStore
import Synchronization

/// The field types this process has read or set, per database and record type, so that a
/// save whose fields all have their types known reads nothing more (`FieldSchema`). A type
/// never changes once set, so what is here is never wrong, only incomplete: a field missing
/// here is read from the store. Forgotten whole past `maximumEntries` record types.
///
/// What is known is kept per access token that learnt it: deleting an account deletes its
/// tokens, so a re-made account of the same name (new tokens) starts with nothing known,
/// as its store does, and no type of the old account refuses its saves or skips its claims.
final class FieldTypeCache: Sendable {
    /// The most record types (of all databases) kept at once.
    static let maximumEntries = 100_000

    private struct Key: Hashable {
        var token: String
        var owner: String
        var recordType: String
    }

    private let entries = Mutex<[Key: [String: String]]>([:])

    /// The known types of the fields of `recordType` in the database `owner`, as requests
    /// with the access token hashed `token` learnt them.
    func types(owner: String, recordType: String, token: String) -> [String: String] {
        entries.withLock { $0[Key(token: token, owner: owner, recordType: recordType)] ?? [:] }
    }

    /// Notes `types` of fields of `recordType` in the database `owner`, learnt by a request
    /// with the access token hashed `token`.
    func add(_ types: [String: String], owner: String, recordType: String, token: String) {
        guard !types.isEmpty else { return }
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries.removeAll() }
            entries[Key(token: token, owner: owner, recordType: recordType), default: [:]].merge(types) { _, new in new }
        }
    }
}
