import CloudKitModel

/// How many fields a save may give a type and a database's schema may hold (**ours**:
/// CloudKit documents no such number, only 200 operations a request and 1 MB a record, and
/// keeps a schema that a developer deploys). Each new field is a row of the schema, claimed
/// inside a write, so a request or an account naming fields without end would make every
/// other account's writes wait; these bound the claim, whatever the account holds.
public enum FieldTypeLimits {
    /// The most fields one request may give a type, as many as it may hold operations.
    public static let newFieldsPerRequest = 200
    /// The most fields one record type of a database may have.
    public static let fieldsPerRecordType = 1_000
    /// The most fields all record types of one database may have together.
    public static let fieldsPerDatabase = 10_000

    /// Why a request that would give `count` fields a type at once is refused, or nil if it is not.
    public static func refusal(newFieldsInRequest count: Int) -> String? {
        guard count > newFieldsPerRequest else { return nil }
        return "this request names \(count) fields that have no type yet; one request may add at most "
            + "\(newFieldsPerRequest). Save the records over several requests."
    }

    /// Why giving `count` more fields of `recordType` a type is refused, where the record type
    /// has `inType` fields and its database `inDatabase` already, or nil if it is not.
    public static func refusal(newFields count: Int, recordType: String, inType: Int, inDatabase: Int) -> String? {
        if inType + count > fieldsPerRecordType {
            return "Record type \(recordType) has \(inType) fields and this request adds \(count); a record type may have at most "
                + "\(fieldsPerRecordType) fields."
        }
        if inDatabase + count > fieldsPerDatabase {
            return "This database's record types have \(inDatabase) fields and this request adds \(count) to \(recordType); "
                + "a database may have at most \(fieldsPerDatabase) fields."
        }
        return nil
    }

    /// The types of `fields` as a stored record's values have them (`FieldSchema.typeName`):
    /// what a store keeps in its schema for a record it saves, so that the schema names every
    /// field any stored record holds. An empty list has no type and is left out.
    public static func types(of fields: [String: FieldValue]) -> [(name: String, type: String)] {
        fields.keys.sorted().compactMap { name in FieldSchema.typeName(of: fields[name]!).map { (name, $0) } }
    }
}

/// A claim of field types past `FieldTypeLimits`: nothing of it is stored; `reason` says which limit.
public struct FieldTypeLimitExceeded: Error, Equatable, Sendable {
    /// What was refused and what is allowed.
    public var reason: String

    /// A refusal saying `reason`.
    public init(reason: String) {
        self.reason = reason
    }
}
