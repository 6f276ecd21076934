/// An idea as the command line prints it in JSON, written directly into bytes: `export` of
/// 100,000 ideas spent most of its time in `JSONEncoder`. The bytes are exactly those of a
/// `JSONEncoder` with `.prettyPrinted, .sortedKeys, .withoutEscapingSlashes` (a test holds
/// the two to it over random text), so `--json` output did not change.
extension Idea {
    /// The pretty-printed JSON object, keys sorted, each line after the first starting with `indent`.
    public func jsonText(indent: String = "") -> String {
        var bytes: [UInt8] = []
        writeJSON(to: &bytes, indent: indent)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `jsonText(indent:)` to `bytes`.
    public func writeJSON(to bytes: inout [UInt8], indent: String = "") {
        func key(_ name: StaticString) {
            bytes.append(contentsOf: indent.utf8)
            bytes.append(contentsOf: #"  ""#.utf8)
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(contentsOf: #"" : "#.utf8)
        }
        func string(_ name: StaticString, _ value: String) {
            key(name)
            Self.writeJSONString(value, to: &bytes)
            bytes.append(contentsOf: ",\n".utf8)
        }
        func time(_ name: StaticString, _ value: Timestamp) {
            key(name)
            bytes.append(UInt8(ascii: "\""))
            value.writeISO8601(to: &bytes)
            bytes.append(contentsOf: "\",\n".utf8)
        }
        bytes.append(contentsOf: "{\n".utf8)
        time("createdAt", createdAt)
        string("description", description)
        string("deviceId", deviceId)
        string("id", idString)
        key("isCompleted")
        bytes.append(contentsOf: (isCompleted ? "true,\n" : "false,\n").utf8)
        if let lastSyncedAt {
            time("lastSyncedAt", lastSyncedAt)
        } else {
            key("lastSyncedAt")
            bytes.append(contentsOf: "null,\n".utf8)
        }
        string("title", title)
        time("updatedAt", updatedAt)
        key("version")
        bytes.append(contentsOf: String(version).utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: indent.utf8)
        bytes.append(UInt8(ascii: "}"))
    }

    /// `text` as a JSON string the way `JSONEncoder` writes it: quotes, backslashes and
    /// control characters escaped, everything else (slashes and non-ASCII included) as is.
    static func writeJSONString(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case ..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0F)])
                default: bytes.append(byte)  // the quote or backslash itself
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
