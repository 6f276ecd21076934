import IdeaBoxFoundation

/// A generic record as the remote stores it: a type, an id and named fields, plus the
/// bookkeeping the server sets on every save.
public struct RemoteRecord: Hashable, Codable, Sendable {
    /// What kind of record this is (`Idea`, later others); the remote attaches no meaning to it.
    public var recordType: String
    /// Where the record lives and its name.
    public var recordID: RecordID
    /// The record's fields by name.
    public var fields: [String: FieldValue]
    /// The server's tag for the version this copy was read from; nil for a record the
    /// client has never seen on the server. Changes on every save.
    public var changeTag: String?
    /// When the server first stored the record; set by the server.
    public var creationDate: Timestamp?
    /// When the server last stored the record; set by the server.
    public var modificationDate: Timestamp?

    /// A record the server has not seen yet (no change tag, no server times).
    public init(recordType: String, recordID: RecordID, fields: [String: FieldValue] = [:]) {
        self.recordType = recordType
        self.recordID = recordID
        self.fields = fields
    }

    /// A record with every property given, as the server hands it out.
    public init(
        recordType: String, recordID: RecordID, fields: [String: FieldValue],
        changeTag: String?, creationDate: Timestamp?, modificationDate: Timestamp?
    ) {
        self.recordType = recordType
        self.recordID = recordID
        self.fields = fields
        self.changeTag = changeTag
        self.creationDate = creationDate
        self.modificationDate = modificationDate
    }

    /// The value of the field `name`, or nil if the record has no such field.
    public subscript(name: String) -> FieldValue? {
        get { fields[name] }
        set { fields[name] = newValue }
    }
}
