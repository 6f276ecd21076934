/// The shapes TOML 1.0 gives numbers and date-times, checked on their bytes. No setting takes
/// one, so a checked value is only kept as written; the check is what tells `1_000` and
/// `1979-05-27T07:32:00Z` (TOML) from `1__0` or `yes` (not TOML).
enum TOMLScalar {
    /// `42`, `-1_000`, `0xDEAD_beef`, `0o755`, `0b1010`, `3.14`, `6.02e23`, `+inf`, `nan`.
    static func isNumber(_ text: ArraySlice<UInt8>) -> Bool {
        var cursor = Cursor(text)
        if cursor.take(UInt8(ascii: "0")), let base = cursor.peek, let radix = digits(after: base) {
            cursor.advance()
            return cursor.digits(radix) && cursor.isAtEnd
        }
        cursor = Cursor(text)
        _ = cursor.take(UInt8(ascii: "+")) || cursor.take(UInt8(ascii: "-"))
        if cursor.rest.elementsEqual("inf".utf8) || cursor.rest.elementsEqual("nan".utf8) { return true }
        // No leading zeros in the integer part.
        if cursor.peek == UInt8(ascii: "0"), let next = cursor.peek(1), isDecimal(next) || next == UInt8(ascii: "_") { return false }
        guard cursor.digits(isDecimal) else { return false }
        if cursor.take(UInt8(ascii: ".")) {
            guard cursor.digits(isDecimal) else { return false }
        }
        if cursor.take(UInt8(ascii: "e")) || cursor.take(UInt8(ascii: "E")) {
            _ = cursor.take(UInt8(ascii: "+")) || cursor.take(UInt8(ascii: "-"))
            guard cursor.digits(isDecimal) else { return false }
        }
        return cursor.isAtEnd
    }

    /// `1979-05-27`, `07:32:00`, `1979-05-27T07:32:00.999-07:00`, `1979-05-27 07:32:00Z`.
    static func isDateTime(_ text: ArraySlice<UInt8>) -> Bool {
        var cursor = Cursor(text)
        if cursor.time() { return cursor.isAtEnd }
        cursor = Cursor(text)
        guard cursor.date() else { return false }
        if cursor.isAtEnd { return true }
        guard let separator = cursor.peek, [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(separator) else { return false }
        cursor.advance()
        guard cursor.time() else { return false }
        if cursor.take(UInt8(ascii: "Z")) || cursor.take(UInt8(ascii: "z")) { return cursor.isAtEnd }
        if cursor.take(UInt8(ascii: "+")) || cursor.take(UInt8(ascii: "-")) {
            guard cursor.number(2, upTo: 23), cursor.take(UInt8(ascii: ":")), cursor.number(2, upTo: 59) else { return false }
        }
        return cursor.isAtEnd
    }

    /// Just `yyyy-mm-dd`: the part before a space that may join a time to it.
    static func isDate(_ text: ArraySlice<UInt8>) -> Bool {
        var cursor = Cursor(text)
        return cursor.date() && cursor.isAtEnd
    }

    /// The digits of `0x`, `0o` or `0b`, by the letter; nil for any other.
    private static func digits(after letter: UInt8) -> ((UInt8) -> Bool)? {
        switch letter {
        case UInt8(ascii: "x"): { isDecimal($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }
        case UInt8(ascii: "o"): { (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }
        case UInt8(ascii: "b"): { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "1") }
        default: nil
        }
    }

    private static func isDecimal(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private struct Cursor {
        private let text: ArraySlice<UInt8>
        private var at: Int

        init(_ text: ArraySlice<UInt8>) {
            self.text = text
            at = text.startIndex
        }

        var isAtEnd: Bool { at == text.endIndex }
        var peek: UInt8? { peek(0) }
        var rest: ArraySlice<UInt8> { text[at...] }

        func peek(_ ahead: Int) -> UInt8? {
            at + ahead < text.endIndex ? text[at + ahead] : nil
        }

        mutating func advance() { at += 1 }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            at += 1
            return true
        }

        /// Digits with single underscores between them: `1_000`, never `_1`, `1_` or `1__0`.
        mutating func digits(_ isDigit: (UInt8) -> Bool) -> Bool {
            guard let first = peek, isDigit(first) else { return false }
            at += 1
            while let byte = peek {
                if isDigit(byte) {
                    at += 1
                } else if byte == UInt8(ascii: "_"), let next = peek(1), isDigit(next) {
                    at += 2
                } else {
                    break
                }
            }
            return true
        }

        /// Exactly `count` decimal digits, at most `maximum`.
        mutating func number(_ count: Int, from minimum: Int = 0, upTo maximum: Int) -> Bool {
            var value = 0
            for _ in 0..<count {
                guard let byte = peek, isDecimal(byte) else { return false }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                at += 1
            }
            return (minimum...maximum).contains(value)
        }

        mutating func date() -> Bool {
            number(4, upTo: 9999) && take(UInt8(ascii: "-")) && number(2, from: 1, upTo: 12)
                && take(UInt8(ascii: "-")) && number(2, from: 1, upTo: 31)
        }

        /// `hh:mm:ss` with an optional fraction.
        mutating func time() -> Bool {
            guard number(2, upTo: 23), take(UInt8(ascii: ":")), number(2, upTo: 59), take(UInt8(ascii: ":")), number(2, upTo: 60) else {
                return false
            }
            if take(UInt8(ascii: ".")) {
                guard let byte = peek, isDecimal(byte) else { return false }
                while let byte = peek, isDecimal(byte) { at += 1 }
            }
            return true
        }
    }
}
