/// An idea's fields as UTF-8 bytes and numbers, borrowed from wherever they are kept: a
/// store's row, or an `Idea`'s strings. `export` writes ideas as JSON from these without
/// making a `String`, a `UUID` or an `Idea` of each.
public struct IdeaBytes {
    /// The id as `Idea.idString` spells it: lower-case, with dashes.
    public var id: UnsafeBufferPointer<UInt8>
    public var title: UnsafeBufferPointer<UInt8>
    public var description: UnsafeBufferPointer<UInt8>
    public var isCompleted: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    public var deviceId: UnsafeBufferPointer<UInt8>
    public var version: Int
    public var lastSyncedAt: Timestamp?

    public init(
        id: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>, description: UnsafeBufferPointer<UInt8>,
        isCompleted: Bool, createdAt: Timestamp, updatedAt: Timestamp, deviceId: UnsafeBufferPointer<UInt8>, version: Int,
        lastSyncedAt: Timestamp?
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.isCompleted = isCompleted
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deviceId = deviceId
        self.version = version
        self.lastSyncedAt = lastSyncedAt
    }

    /// Whether `bytes` spell an id as `Idea.idString` does: 36 characters, lower-case
    /// hexadecimal digits in groups of 8, 4, 4, 4 and 12, joined by dashes.
    public static func isIdText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            let isDash = index == 8 || index == 13 || index == 18 || index == 23
            let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            guard isDash ? byte == UInt8(ascii: "-") : isDigit else { return false }
        }
        return true
    }

    /// Appends the idea as `Idea.jsonText(indent:)` writes it: pretty-printed, keys sorted,
    /// each line after the first starting with `indent`.
    public func writeJSON(to bytes: inout [UInt8], indent: String = "") {
        bytes.reserveCapacity(bytes.count + 320 + title.count + description.count + deviceId.count + 6 * indent.utf8.count)
        func key(_ name: StaticString) {
            bytes.append(contentsOf: indent.utf8)
            bytes.append(contentsOf: #"  ""#.utf8)
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(contentsOf: #"" : "#.utf8)
        }
        func string(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
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
        string("id", id)
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

    /// `utf8` as a JSON string the way `JSONEncoder` writes it: quotes, backslashes and
    /// control characters escaped, everything else (slashes and non-ASCII included) as is.
    /// Eight bytes at a time are checked at once for one that needs escaping.
    static func writeJSONString(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0, index = 0
        while index < utf8.count {
            if utf8.count - index >= 8 {
                let word = UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self)
                if !needsEscape(word) {
                    index += 8
                    continue
                }
            }
            let byte = utf8[index]
            index += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index - 1]))
            start = index
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case ..<0x20:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: "u00".utf8)
                bytes.append(hex.utf8Start[Int(byte >> 4)])
                bytes.append(hex.utf8Start[Int(byte & 0x0F)])
            default: bytes.append(byte)  // the quote or backslash itself
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is below 0x20, a quote or a backslash (the
    /// classic "has a zero byte" tests: exact for whether one is there, not for which).
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let below0x20 = (word &- ones &* 0x20) & ~word & highs != 0
        return below0x20 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }
}
