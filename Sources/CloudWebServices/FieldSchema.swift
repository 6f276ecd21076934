import CloudKitModel

/// CloudKit's schema rule for the fields of a record type: each field has one type, set by
/// the first save that names it (with the type it was sent with, or the one its value
/// suggests when sent without); a later value sent with a type must be of that type, and one
/// sent without is read as it (a base64 string as `BYTES`, milliseconds as `TIMESTAMP`).
///
/// Types are named as CloudKit names them: `STRING`, `INT64`, `DOUBLE`, `TIMESTAMP`, `BYTES`,
/// `ASSET` (which a save sends as `ASSETID`) and the `*_LIST` of each. **Ours**: `BYTES` and
/// `ASSET` take each other's typed values, as IdeaBox's own `RawLibraryFile.filedata` holds a
/// file inline up to 1 MB and as an asset above.
public enum FieldSchema {
    /// The type of `value` as the schema names it; nil for an empty list, whose items'
    /// type only the save's `type` (or the schema) tells.
    public static func typeName(of value: FieldValue) -> String? {
        switch value {
        case .string: "STRING"
        case .int64: "INT64"
        case .double: "DOUBLE"
        case .timestamp: "TIMESTAMP"
        case .bytes: "BYTES"
        case .asset: "ASSET"
        case .list(let items): items.first.flatMap(typeName(of:)).map { $0 + "_LIST" }
        }
    }

    /// The type a field of a save was sent with, as the schema names it (`ASSETID` is
    /// `ASSET`; the `BOOLEAN` of IdeaBox's earlier clients is `INT64`), or nil if it was sent
    /// without one.
    public static func sentType(_ json: JSONValue?) -> String? {
        guard let type = json?.object?["type"]?.string else { return nil }
        let isList = type.hasSuffix("_LIST")
        let item = isList ? String(type.dropLast("_LIST".count)) : type
        let named = switch item {
        case "ASSETID": "ASSET"
        case "BOOLEAN": "INT64"
        default: item
        }
        return isList ? named + "_LIST" : named
    }

    /// `record`'s fields checked against `schema` (field name → type) of its record type:
    /// each value sent without a type read as its field's, and the types of the fields the
    /// schema does not have yet (the first save's: sent, or suggested by the value). `sent`
    /// is the record's `fields` object as the save sent it. Throws `Invalid`, naming the
    /// field, its type and the value's, for a value that does not fit.
    public static func apply(
        _ schema: [String: String], to record: RemoteRecord, sent: JSONValue.Object, at path: @autoclosure () -> String
    ) throws -> (record: RemoteRecord, newTypes: [String: String]) {
        var record = record
        var newTypes: [String: String] = [:]
        for (name, value) in record.fields {
            let declared = sentType(sent[name])
            let valueType = declared ?? typeName(of: value)
            guard let expected = schema[name] else {
                newTypes[name] = valueType ?? "STRING_LIST"
                continue
            }
            if let declared {
                // An empty list has no item to be of another type (a writer that cannot tell
                // its items' type, IdeaBox's among them, sends it as a STRING_LIST).
                let isEmptyList = value == .list([]) && expected.hasSuffix("_LIST")
                guard fits(declared, expected) || isEmptyList else {
                    throw WebServicesFormat.Invalid(
                        "\(path()).fields.\(name): field \(name) of record type \(record.recordType) is \(expected); the value is sent as \(declared)")
                }
            } else if valueType != expected, !(valueType == nil && expected.hasSuffix("_LIST")) {
                guard let raw = sent[name]?.object?["value"],
                      let read = try? WebServicesFormat.fieldValue(["value": raw, "type": .string(expected)], at: "")
                else {
                    throw WebServicesFormat.Invalid(
                        "\(path()).fields.\(name): field \(name) of record type \(record.recordType) is \(expected); the value is not one")
                }
                record.fields[name] = read
            }
        }
        return (record, newTypes)
    }

    /// Whether a value sent as `type` fits a field of type `expected`.
    private static func fits(_ type: String, _ expected: String) -> Bool {
        type == expected || Set([type, expected]) == ["BYTES", "ASSET"]
    }
}
