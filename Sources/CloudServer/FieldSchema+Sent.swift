import CloudKitModel
import CloudWebServices
import IdeaBoxFoundation
import ServerStore

/// The schema rule (`FieldSchema`) applied to a save as the web services sent it.
extension FieldSchema {
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
                newTypes[name] = valueType ?? FieldType.string.listName
                continue
            }
            if let declared {
                // An empty list has no item to be of another type (a writer that cannot tell
                // its items' type, IdeaBox's among them, sends it as a STRING_LIST).
                let isEmptyList = value == .list([]) && FieldType.isList(expected)
                guard fits(declared, expected) || isEmptyList else {
                    throw WebServicesFormat.Invalid(
                        "\(path()).fields.\(name): field \(name) of record type \(record.recordType) is \(expected); the value is sent as \(declared)")
                }
            } else if valueType != expected, !(valueType == nil && FieldType.isList(expected)) {
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

    /// The type a field of a save was sent with, as the schema names it (`ASSETID` is
    /// `ASSET`; the `BOOLEAN` of IdeaBox's earlier clients is `INT64`), or nil if it was sent
    /// without one.
    public static func sentType(_ json: JSONValue?) -> String? {
        guard let type = json?.object?["type"]?.string else { return nil }
        let item = FieldType.itemName(ofList: type) ?? type
        let named = FieldType(rawValue: item).map(\.held.rawValue) ?? item
        return FieldType.isList(type) ? named + FieldType.listSuffix : named
    }
}
