/// The field types of each database's record types: CloudKit's schema, which keeps one type
/// per field of a record type (`FieldSchema`). CloudKit keeps it per container and
/// environment; a store keeps it per database key (`DatabaseOwner`), that is per account
/// within a container and environment too, so that no account learns from it what another
/// saved, nor blocks another's saves by giving a field a type first.
public protocol RecordSchemaStore: Sendable {
    /// The types of the fields of `recordTypes` in the database `account`, by record type,
    /// then by field name; a record type with no field typed yet is absent.
    func fieldTypes(account: String, recordTypes: Set<String>) async throws -> [String: [String: String]]
    /// Gives each field in `types` (by record type, then field name) the type it names there
    /// unless the field has one (the first save sets it), and returns the types all of them
    /// have now, by record type. Every field a stored record holds has its type already (a
    /// store keeps the types of what it saves, and took those of the records stored before
    /// the schema was kept), so a claim reads the schema alone, never the records. Throws
    /// `FieldTypeLimitExceeded`, storing nothing, where the new fields would pass
    /// `FieldTypeLimits` for their record type or database.
    func claimFieldTypes(_ types: [String: [String: String]], account: String) async throws -> [String: [String: String]]
    /// Every field type of every database of `account` (`DatabaseOwner`: its own name's and
    /// each `account@…`), ordered by database key, record type and field name.
    func schema(ofAccount account: String) async throws -> [FieldTypeEntry]
}

/// One field's type in one database, as `serve account schema` lists it.
public struct FieldTypeEntry: Hashable, Sendable {
    /// The database's key (`DatabaseOwner`).
    public var database: String
    /// The record type.
    public var recordType: String
    /// The field.
    public var fieldName: String
    /// Its type, as CloudKit names it (`FieldSchema`).
    public var type: String

    /// An entry.
    public init(database: String, recordType: String, fieldName: String, type: String) {
        self.database = database
        self.recordType = recordType
        self.fieldName = fieldName
        self.type = type
    }
}
