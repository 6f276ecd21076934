extension JSONValue {
    /// Reads JSON text byte by byte, strictly (RFC 8259, I-JSON's names, UTF-8 and surrogate
    /// pairs): whole values (`value()`, `document()`), or an object's members and an array's
    /// elements one at a time for `Reader`.
    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var depth = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func document() throws(Invalid) -> JSONValue {
            let value = try value()
            skipSpace()
            guard index == bytes.count else { throw invalid("unexpected data after the value") }
            return value
        }

        func invalid(_ reason: String, _ kind: Invalid.Kind = .syntax) -> Invalid {
            Invalid(reason: reason, offset: index, kind: kind)
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func value() throws(Invalid) -> JSONValue {
            skipSpace()
            guard index < bytes.count else { throw invalid("unexpected end of the data") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw invalid("unexpected character")
            }
        }

        private mutating func literal(_ word: StaticString) throws(Invalid) {
            for offset in 0..<word.utf8CodeUnitCount {
                guard index < bytes.count, bytes[index] == word.utf8Start[offset] else { throw invalid("unexpected character") }
                index += 1
            }
        }

        private mutating func enter() throws(Invalid) {
            depth += 1
            guard depth <= JSONValue.maximumDepth else { throw invalid("nested more than \(JSONValue.maximumDepth) deep", .tooDeep) }
            index += 1
        }

        private mutating func object() throws(Invalid) -> JSONValue {
            try enter()
            var members: Object = [:]
            if endsEmpty(closingWith: UInt8(ascii: "}")) { return .object(members) }
            while true {
                let (key, keyOffset) = try memberName()
                guard members.updateValue(try value(), forKey: key) == nil else {
                    throw Invalid(reason: "duplicate member name", offset: keyOffset, kind: .duplicateName)
                }
                if try ends(closingWith: UInt8(ascii: "}")) { return .object(members) }
            }
        }

        /// Reads an object from its `{` as `object()` does, but hands each member's name to
        /// `body` with the parser at the member's value, which `body` reads whole, instead of
        /// building the object. Names are handed over as they come: a name written twice
        /// comes twice.
        ///
        /// With `refusingRepeatedNames` a name written twice is refused where it is written the
        /// second time, as `object()` refuses it.
        mutating func members(refusingRepeatedNames: Bool = false, _ body: (String, inout Parser) throws -> Void) throws {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw invalid("expected an object") }
            try enter()
            if endsEmpty(closingWith: UInt8(ascii: "}")) { return }
            var names = Set<String>()
            while true {
                let (name, offset) = try memberName()
                if refusingRepeatedNames, !names.insert(name).inserted {
                    throw Invalid(reason: "duplicate member name", offset: offset, kind: .duplicateName)
                }
                try body(name, &self)
                if try ends(closingWith: UInt8(ascii: "}")) { return }
            }
        }

        /// A member's name, where it starts, and the `:` after it read.
        private mutating func memberName() throws(Invalid) -> (name: String, offset: Int) {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw invalid("expected a member name") }
            let offset = index
            let name = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw invalid("expected ':'") }
            index += 1
            return (name, offset)
        }

        private mutating func array() throws(Invalid) -> JSONValue {
            try enter()
            var items: [JSONValue] = []
            if endsEmpty(closingWith: UInt8(ascii: "]")) { return .array(items) }
            while true {
                items.append(try value())
                if try ends(closingWith: UInt8(ascii: "]")) { return .array(items) }
            }
        }

        /// Reads an array from its `[` as `array()` does, but hands `body` the parser at each
        /// element, which `body` reads whole, instead of building the array.
        mutating func elements(_ body: (inout Parser) throws -> Void) throws {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw invalid("expected an array") }
            try enter()
            if endsEmpty(closingWith: UInt8(ascii: "]")) { return }
            while true {
                try body(&self)
                if try ends(closingWith: UInt8(ascii: "]")) { return }
            }
        }

        /// Past an object's `{` or an array's `[`: whether it is empty (its `close`, `}` or
        /// `]`, read and the container left).
        private mutating func endsEmpty(closingWith close: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == close else { return false }
            index += 1
            depth -= 1
            return true
        }

        /// Past a member's value or an element: whether the container ends there (its `close`,
        /// `}` or `]`, read and the container left) or another follows (its `,` read).
        private mutating func ends(closingWith close: UInt8) throws(Invalid) -> Bool {
            skipSpace()
            guard index < bytes.count else { throw invalid("unexpected end of the data") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                return false
            case close:
                index += 1
                depth -= 1
                return true
            default: throw invalid("expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
        }

        /// The first byte of the next value, past white space; nil at the end of the data.
        mutating func nextByte() -> UInt8? {
            skipSpace()
            return index < bytes.count ? bytes[index] : nil
        }

        /// A string from its opening quote; `index` ends past the closing one.
        private mutating func string() throws(Invalid) -> String {
            index += 1
            let start = index
            // The common case: no escapes, so the bytes are the text.
            // Every byte of the string OR-ed: below 0x80, it is ASCII and needs no validating.
            var bits: UInt8 = 0
            while index < bytes.count {
                let byte = bytes[index]
                bits |= byte
                if byte == UInt8(ascii: "\"") {
                    let utf8 = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    let text = bits < 0x80 ? String(decoding: utf8, as: UTF8.self) : try Self.text(utf8, at: start)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw invalid("control character in a string") }
                index += 1
            }
            var unescaped = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: unescaped, as: UTF8.self) else {
                        // An escape writes whole characters: the first byte that is not UTF-8 is
                        // one of the document's own.
                        throw Self.invalidUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index]), at: start)
                    }
                    index += 1
                    return text
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { break }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escaped)
                    case UInt8(ascii: "b"): unescaped.append(0x08)
                    case UInt8(ascii: "f"): unescaped.append(0x0C)
                    case UInt8(ascii: "n"): unescaped.append(0x0A)
                    case UInt8(ascii: "r"): unescaped.append(0x0D)
                    case UInt8(ascii: "t"): unescaped.append(0x09)
                    case UInt8(ascii: "u"): unescaped.append(contentsOf: try unicodeEscape())
                    default:
                        index -= 1
                        throw invalid("unknown escape")
                    }
                case ..<0x20:
                    throw invalid("control character in a string")
                default:
                    unescaped.append(byte)
                    index += 1
                }
            }
            throw invalid("unterminated string")
        }

        /// The UTF-8 of a `\uXXXX` escape (two of them for a surrogate pair), from past the `u`.
        private mutating func unicodeEscape() throws(Invalid) -> String.UTF8View {
            let first = try hexQuad()
            var scalar: Unicode.Scalar?
            switch first {
            case 0xD800...0xDBFF:
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw invalid("lone surrogate in a \\u escape", .loneSurrogate)
                }
                index += 2
                let second = try hexQuad()
                guard (0xDC00...0xDFFF).contains(second) else { throw invalid("lone surrogate in a \\u escape", .loneSurrogate) }
                scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            default:
                scalar = Unicode.Scalar(first)
            }
            guard let scalar else { throw invalid("lone surrogate in a \\u escape", .loneSurrogate) }
            return String(Character(scalar)).utf8
        }

        private mutating func hexQuad() throws(Invalid) -> UInt32 {
            guard bytes.count - index >= 4 else { throw invalid("unterminated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8 = switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
                default: throw invalid("bad hex digit in a \\u escape")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// The text of the document's bytes `utf8`, which start at byte `offset`. (Swift's
        /// validating initializer is generic and not specialized here: it looks its types up
        /// at run time, so ASCII, the most of what a server reads, goes around it.)
        private static func text(_ utf8: UnsafeBufferPointer<UInt8>, at offset: Int) throws(Invalid) -> String {
            guard let text = String(validating: utf8, as: UTF8.self) else { throw invalidUTF8(utf8, at: offset) }
            return text
        }

        /// The error of the document's bytes `utf8`, which start at byte `offset` and are not
        /// UTF-8: it names the first byte that is not.
        private static func invalidUTF8(_ utf8: UnsafeBufferPointer<UInt8>, at offset: Int) -> Invalid {
            var parser = Unicode.UTF8.ForwardParser()
            var bytes = utf8.makeIterator()
            var valid = 0
            while case .valid(let scalar) = parser.parseScalar(from: &bytes) { valid += scalar.count }
            return Invalid(reason: "invalid UTF-8 in a string", offset: offset + valid, kind: .invalidUTF8)
        }

        private mutating func number() throws(Invalid) -> JSONValue {
            let start = index
            let isNegative = bytes[index] == UInt8(ascii: "-")
            if isNegative { index += 1 }
            func digits(_ parser: inout Parser) -> Int {
                let first = parser.index
                while parser.index < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index]) {
                    parser.index += 1
                }
                return parser.index - first
            }
            let integerStart = index
            let integerDigits = digits(&self)
            guard integerDigits > 0 else { throw invalid("expected a digit") }
            guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
                throw Invalid(reason: "leading zero in a number", offset: integerStart)
            }
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard digits(&self) > 0 else { throw invalid("expected a digit") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw invalid("expected a digit") }
            }
            if isInteger, integerDigits <= 18 {
                var magnitude: Int64 = 0
                for byte in bytes[integerStart..<index] {
                    magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0"))
                }
                return .integer(isNegative ? -magnitude : magnitude)
            }
            let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger, let number = Int64(literal) { return .integer(number) }
            guard let number = Double(literal), number.isFinite else {
                throw Invalid(reason: "number out of range", offset: start)
            }
            return .double(number)
        }
    }
}
