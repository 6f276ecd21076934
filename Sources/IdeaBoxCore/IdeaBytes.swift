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
        guard bytes.count == 36, let start = bytes.baseAddress else { return false }
        for index in 0..<36 {
            let byte = start[index]
            switch index {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
            default: guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }

    /// Appends the idea as `Idea.jsonText(indent:)` writes it: pretty-printed, keys sorted,
    /// each line after the first starting with `indent`. `export` writes ten keys and eight
    /// values for each idea: all go through a pointer into room reserved once.
    public func writeJSON(to bytes: inout [UInt8], indent: String = "") {
        var indent = indent
        indent.withUTF8 { indent in
            // The keys, punctuation and version take under 200 bytes; a string at most 6 for
            // each of its bytes (`\u001f`) and its quotes.
            let strings = id.count + title.count + description.count + deviceId.count
            let most = 400 + 11 * indent.count + 3 * Timestamp.mostISO8601Count + 6 * strings + 8
            bytes.append(addingCapacity: most) { span in
                span.withUnsafeMutableBufferPointer { room, count in
                    var output = RawOutput(room.baseAddress!)
                    write(to: &output, indent: indent)
                    count = output.count(from: room.baseAddress!)
                    precondition(count <= most, "IdeaBytes.writeJSON wrote past the room it reserved")
                }
            }
        }
    }

    private func write(to output: inout RawOutput, indent: UnsafeBufferPointer<UInt8>) {
        func key(_ name: StaticString) {
            output.put(indent)
            output.put(#"  ""#)
            output.put(name)
            output.put(#"" : "#)
        }
        func string(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
            key(name)
            Self.writeJSONString(value, to: &output)
            output.put(",\n")
        }
        func time(_ name: StaticString, _ value: Timestamp) {
            key(name)
            output.put(UInt8(ascii: "\""))
            output.advance(by: value.writeISO8601(into: output.next))
            output.put("\",\n")
        }
        output.put("{\n")
        time("createdAt", createdAt)
        string("description", description)
        string("deviceId", deviceId)
        string("id", id)
        key("isCompleted")
        output.put(isCompleted ? "true,\n" : "false,\n")
        if let lastSyncedAt {
            time("lastSyncedAt", lastSyncedAt)
        } else {
            key("lastSyncedAt")
            output.put("null,\n")
        }
        string("title", title)
        time("updatedAt", updatedAt)
        key("version")
        output.putDecimal(version)
        output.put(UInt8(ascii: "\n"))
        output.put(indent)
        output.put(UInt8(ascii: "}"))
    }

    /// `utf8` as a JSON string the way `JSONEncoder` writes it: quotes, backslashes and
    /// control characters escaped, everything else (slashes and non-ASCII included) as is.
    /// Eight bytes at a time are checked at once for one that needs escaping and, if none
    /// does, written out in the same step: the text is read once. `output` has room for
    /// 2 + 6 × `utf8.count` bytes.
    private static func writeJSONString(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout RawOutput) {
        output.put(UInt8(ascii: "\""))
        var index = 0
        while index < utf8.count {
            if utf8.count - index >= 8 {
                let word = UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self)
                if !needsEscape(word) {
                    output.put(eightBytes: word)
                    index += 8
                    continue
                }
            }
            let byte = utf8[index]
            index += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                output.put(byte)
                continue
            }
            output.put(UInt8(ascii: "\\"))
            switch byte {
            case 0x08: output.put(UInt8(ascii: "b"))
            case 0x0C: output.put(UInt8(ascii: "f"))
            case 0x0A: output.put(UInt8(ascii: "n"))
            case 0x0D: output.put(UInt8(ascii: "r"))
            case 0x09: output.put(UInt8(ascii: "t"))
            case ..<0x20:
                let hex: StaticString = "0123456789abcdef"
                output.put("u00")
                output.put(hex.utf8Start[Int(byte >> 4)])
                output.put(hex.utf8Start[Int(byte & 0x0F)])
            default: output.put(byte)  // the quote or backslash itself
            }
        }
        output.put(UInt8(ascii: "\""))
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

/// Writes bytes one after another into memory reserved beforehand, with no check of room:
/// whoever makes one reserves enough for everything written through it.
private struct RawOutput {
    private(set) var next: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        next = start
    }

    /// How many bytes were written from `start`, where this output began.
    func count(from start: UnsafeMutablePointer<UInt8>) -> Int {
        next - start
    }

    /// Moves past `count` bytes written at `next` by someone else.
    mutating func advance(by count: Int) {
        next += count
    }

    mutating func put(_ byte: UInt8) {
        next.initialize(to: byte)
        next += 1
    }

    /// Writes the eight bytes of `word` in memory order, as they were loaded.
    mutating func put(eightBytes word: UInt64) {
        UnsafeMutableRawPointer(next).storeBytes(of: word, as: UInt64.self)
        next += 8
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        next.initialize(from: base, count: bytes.count)
        next += bytes.count
    }

    mutating func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes `value` in decimal, as `String(value)` spells it: at most 20 bytes.
    mutating func putDecimal(_ value: Int) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude, digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude > 0
        magnitude = value.magnitude
        for offset in stride(from: digits - 1, through: 0, by: -1) {
            next[offset] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
        next += digits
    }
}
