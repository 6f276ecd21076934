/// Text as a JSON string, the way `JSONEncoder` writes it: quotes, backslashes and control
/// characters escaped (`\b \f \n \r \t`, the rest as `\u00XX`), everything else (slashes and
/// non-ASCII included) as is. The one escaper of IdeaBox: the command line's `--json`, the
/// export, the remote's wire format and its stored fields all write strings through it.
public enum JSONString {
    /// Appends `text` as a JSON string to `bytes`.
    public static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.append(addingCapacity: mostCount(utf8.count)) { span in
                span.withUnsafeMutableBufferPointer { room, count in
                    var output = ByteOutput(room)
                    write(utf8, to: &output)
                    count = output.count
                }
            }
        }
    }

    /// The most bytes a string of `count` UTF-8 bytes takes: its quotes, and at most 6
    /// (`\u001f`) for each byte.
    package static func mostCount(_ count: Int) -> Int {
        2 + 6 * count
    }

    /// Writes `utf8` as a JSON string. Eight bytes at a time are checked at once for one
    /// that needs escaping and, if none does, written out in the same step: the text is
    /// read once.
    @inlinable public static func write(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout ByteOutput) {
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
    @inlinable static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let below0x20 = (word &- ones &* 0x20) & ~word & highs != 0
        return below0x20 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }
}
