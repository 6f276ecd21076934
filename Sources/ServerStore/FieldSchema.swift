import CloudKitModel

/// CloudKit's schema rule for the fields of a record type: each field has one type, set by
/// the first save that names it (with the type it was sent with, or the one its value
/// suggests when sent without); a later value sent with a type must be of that type, and one
/// sent without is read as it (a base64 string as `BYTES`, milliseconds as `TIMESTAMP`).
///
/// Types are named as CloudKit names them (`FieldType`): `STRING`, `INT64`, `DOUBLE`,
/// `TIMESTAMP`, `BYTES`, `ASSET` (which a save sends as `ASSETID`) and the `*_LIST` of each.
/// **Ours**: `BYTES` and `ASSET` take each other's typed values, as IdeaBox's own
/// `RawLibraryFile.filedata` holds a file inline up to 1 MB and as an asset above.
public enum FieldSchema {
    /// The type of `value` as the schema names it; nil for an empty list, whose items'
    /// type only the save's `type` (or the schema) tells.
    public static func typeName(of value: FieldValue) -> String? {
        if let type = FieldType(of: value) { return type.rawValue }
        guard case .list(let items) = value else { return nil }
        return items.first.flatMap(typeName(of:)).map { $0 + FieldType.listSuffix }
    }

    /// Whether a value sent as `type` fits a field of type `expected`.
    package static func fits(_ type: String, _ expected: String) -> Bool {
        type == expected || Set([type, expected]) == [FieldType.bytes.rawValue, FieldType.asset.rawValue]
    }
}
