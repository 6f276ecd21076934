import Foundation

/// Record fields as a server stores them: JSON with sorted keys, readable with the sqlite3
/// shell or psql.
/// Written by `FieldValue.writeJSON` and read with `JSONValue`: `JSONEncoder` and
/// `JSONDecoder` each took longer than everything else the remote does for a record.
public enum StoredFields {
    /// The JSON text of `fields`.
    public static func encode(_ fields: [String: FieldValue]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, name) in fields.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.write(string: name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            fields[name]!.writeJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The fields in `json`, as `encode` wrote them.
    public static func decode(_ json: String) throws -> [String: FieldValue] {
        guard let object = try JSONValue(parsing: json).object else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "fields are a JSON object"))
        }
        return try object.mapValues(FieldValue.init(stored:))
    }
}
