/// Where a text stops being JSON: `JSONDecoder` only says that it isn't, so `import` finds
/// the place itself to name its line and column.
enum JSONSyntax {
    /// A place in a text, both counted from 1; the column counts characters as a person sees them.
    struct Position: Equatable {
        var line: Int
        var column: Int
    }

    /// The position of the first byte of `bytes` that can't continue a JSON text (the end, if
    /// the text stops early), or nil if `bytes` is one JSON value.
    static func firstError(in bytes: [UInt8]) -> Position? {
        var scanner = Scanner(bytes: bytes)
        guard let offset = scanner.errorOffset() else { return nil }
        let lineStart = bytes[..<offset].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        return Position(
            line: bytes[..<offset].count { $0 == UInt8(ascii: "\n") } + 1,
            column: String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1)
    }

    /// A recursive-descent reader of RFC 8259 JSON that only checks.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// As deep as `JSONDecoder` reads.
        private static let maximumDepth = 512

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// The offset of the first wrong byte, or nil.
        mutating func errorOffset() -> Int? {
            guard value(depth: 0) else { return index }
            skipSpace()
            return index == bytes.count ? nil : index
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        private mutating func value(depth: Int) -> Bool {
            skipSpace()
            guard let byte = current, depth < Self.maximumDepth else { return false }
            switch byte {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true, depth: depth)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false, depth: depth)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        private mutating func container(close: UInt8, keyed: Bool, depth: Int) -> Bool {
            index += 1
            skipSpace()
            if current == close {
                index += 1
                return true
            }
            while true {
                if keyed {
                    skipSpace()
                    guard current == UInt8(ascii: "\""), string() else { return false }
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    index += 1
                }
                guard value(depth: depth + 1) else { return false }
                skipSpace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case close:
                    index += 1
                    return true
                default: return false
                }
            }
        }

        private mutating func string() -> Bool {
            index += 1
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escaped = current else { return false }
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            index += 1
                            guard let digit = current, Self.isHexDigit(digit) else { return false }
                        }
                    } else if !Array("\"\\/bfnrt".utf8).contains(escaped) {
                        return false
                    }
                    index += 1
                case 0..<0x20:
                    return false
                default:
                    index += 1
                }
            }
            return false
        }

        private mutating func literal(_ word: String) -> Bool {
            for expected in word.utf8 {
                guard current == expected else { return false }
                index += 1
            }
            return true
        }

        private mutating func number() -> Bool {
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else {
                guard digits() else { return false }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() else { return false }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() else { return false }
            }
            return true
        }

        /// One or more decimal digits.
        private mutating func digits() -> Bool {
            let start = index
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            return index > start
        }

        private static func isHexDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}
