/// One claim of field types (`RecordSchemaStore.claimFieldTypes`) as both stores decide it,
/// over what they read of the schema inside the claim's transaction: a field keeps the type
/// it has (the first save sets it); the fields without one take the type the claim names,
/// record type by record type in name order, unless they would pass `FieldTypeLimits` for
/// their record type or database, and then the whole claim is refused and stores nothing.
/// The database's count of fields is read once, at the first record type with new fields,
/// and counts the fields each record type adds after it.
public struct FieldTypeClaim: Sendable {
    /// The types named, by record type, then field name.
    public let named: [String: [String: String]]
    /// The types the named fields have now, by record type, then field name: those the
    /// schema holds (`keep`) and those this claim gave (`add`).
    public private(set) var claimed: [String: [String: String]] = [:]
    /// How many fields the database has, once read, with those this claim added.
    public private(set) var fieldsInDatabase: Int?

    /// A claim of `types`, by record type, then field name.
    public init(_ types: [String: [String: String]]) {
        named = types
    }

    /// The record types the claim names, in the order it claims them.
    public var recordTypes: [String] { named.keys.sorted() }

    /// The fields of `recordType` the claim names, by name.
    public func fieldNames(of recordType: String) -> [String] {
        (named[recordType] ?? [:]).keys.sorted()
    }

    /// Notes `stored`, the types some fields of `recordType` have in the schema.
    public mutating func keep(_ stored: [String: String], of recordType: String) {
        guard !stored.isEmpty else { return }
        claimed[recordType, default: [:]].merge(stored) { _, stored in stored }
    }

    /// The fields of `recordType` the claim names that have no type yet, by name.
    public func newFields(of recordType: String) -> [String] {
        fieldNames(of: recordType).filter { claimed[recordType]?[$0] == nil }
    }

    /// Gives `new` (fields of `recordType` without a type) the types the claim names, where
    /// the record type has `fieldsInType` fields and the database `fieldsInDatabase` (used
    /// only if the claim has not counted them yet); returns what to store, by field name.
    /// Throws `FieldTypeLimitExceeded` where they would pass `FieldTypeLimits`.
    public mutating func add(
        _ new: [String], to recordType: String, fieldsInType: Int, fieldsInDatabase: Int
    ) throws -> [(fieldName: String, type: String)] {
        let inDatabase = self.fieldsInDatabase ?? fieldsInDatabase
        if let reason = FieldTypeLimits.refusal(newFields: new.count, recordType: recordType, inType: fieldsInType, inDatabase: inDatabase) {
            throw FieldTypeLimitExceeded(reason: reason)
        }
        self.fieldsInDatabase = inDatabase + new.count
        return new.map { ($0, named[recordType]![$0]!) }
    }
}
