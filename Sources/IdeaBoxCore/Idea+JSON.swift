/// An idea as the command line prints it in JSON, written directly: `export` of 100,000
/// ideas spent most of its time in `JSONEncoder`. The bytes are exactly those of a
/// `JSONEncoder` with `.prettyPrinted, .sortedKeys, .withoutEscapingSlashes` (a test holds
/// the two to it over random text), so `--json` output did not change.
extension Idea {
    /// The pretty-printed JSON object, keys sorted, each line after the first starting with `indent`.
    public func jsonText(indent: String = "") -> String {
        var text = "{\n"
        func field(_ key: String, _ value: String, last: Bool = false) {
            text += indent
            text += "  \""
            text += key
            text += "\" : "
            text += value
            text += last ? "\n" : ",\n"
        }
        field("createdAt", Self.jsonString(createdAt.iso8601))
        field("description", Self.jsonString(description))
        field("deviceId", Self.jsonString(deviceId))
        field("id", Self.jsonString(idString))
        field("isCompleted", isCompleted ? "true" : "false")
        field("lastSyncedAt", lastSyncedAt.map { Self.jsonString($0.iso8601) } ?? "null")
        field("title", Self.jsonString(title))
        field("updatedAt", Self.jsonString(updatedAt.iso8601))
        field("version", String(version), last: true)
        text += indent
        text += "}"
        return text
    }

    /// `text` as a JSON string the way `JSONEncoder` writes it: quotes, backslashes and
    /// control characters escaped, everything else (slashes and non-ASCII included) as is.
    static func jsonString(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return "\"" + text + "\""
        }
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(utf8.count + 16)
        let hex = Array("0123456789abcdef".utf8)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case ..<0x20: bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }
}
