/// Reads config.toml's text as TOML 1.0 into a `TOMLTable`, or says at which line and why it
/// is not TOML. Written here rather than taken from a library: the one TOML package within
/// reach (TOMLKit, over toml++) aborted the process on inputs `.ci/fuzz` found in seconds
/// (`Fuzz/findings/config`), and a settings file must never stop the app from starting.
///
/// Everything of TOML 1.0's syntax is read: bare, quoted and dotted keys; basic, literal and
/// multi-line strings with every escape; booleans; integers, floats and date-times (checked,
/// then kept as written); arrays; inline tables; `[table]` and `[[array of tables]]` headers,
/// with the rules on defining a table once. Nesting is bounded so no input can exhaust the stack.
struct TOMLParser {
    /// Arrays and inline tables nest at most this deep.
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var at = 0
    private var line = 1
    private var root = TOMLTable(origin: .header, line: 0)
    /// The path of the table the last header named (empty: the top).
    private var current: [String] = []

    private init(_ text: String) {
        bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }
    }

    /// The file's top table, or why `text` is not TOML.
    static func parse(_ text: String) throws(TOMLSyntaxError) -> TOMLTable {
        var parser = TOMLParser(text)
        try parser.document()
        return parser.root
    }

    // MARK: Lines

    private mutating func document() throws(TOMLSyntaxError) {
        while true {
            skipSpaces()
            guard let byte = peek() else { return }
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try endOfLine()
            case UInt8(ascii: "["):
                try header()
                try endOfLine()
            default:
                let key = try dottedKey()
                skipSpaces()
                try expect(UInt8(ascii: "="), "a key is followed by = and its value")
                skipSpaces()
                let keyLine = line
                let value = try value(depth: 0)
                try root.withHeaderTable(current[...], line: keyLine) { (table: inout TOMLTable) throws(TOMLSyntaxError) in
                    try table.setDotted(key[...], to: value, line: keyLine, inline: false)
                }
                try endOfLine()
            }
        }
    }

    /// `[a.b]` or `[[a.b]]`.
    private mutating func header() throws(TOMLSyntaxError) {
        let headerLine = line
        at += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { at += 1 }
        skipSpaces()
        let path = try dottedKey()
        skipSpaces()
        try expect(UInt8(ascii: "]"), "a table's name ends with ]")
        if isArray { try expect(UInt8(ascii: "]"), "an array of tables' name ends with ]]") }
        if isArray {
            try root.appendTable(path, line: headerLine)
        } else {
            try root.defineTable(path, line: headerLine)
        }
        current = path
    }

    /// Spaces, then a comment or nothing, then the line's end (or the file's).
    private mutating func endOfLine() throws(TOMLSyntaxError) {
        skipSpaces()
        if peek() == UInt8(ascii: "#") { try comment() }
        switch peek() {
        case nil: return
        case UInt8(ascii: "\n"): at += 1; line += 1
        case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"): at += 2; line += 1
        default: throw error("only a comment may follow on the line")
        }
    }

    private mutating func comment() throws(TOMLSyntaxError) {
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") { return }
            if Self.isControl(byte) { throw error("a comment holds a control character") }
            at += 1
        }
    }

    /// Spaces, tabs, comments and line ends, as between an array's values.
    private mutating func skipBlank() throws(TOMLSyntaxError) {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): at += 1
            case UInt8(ascii: "#"): try comment()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try endOfLine()
            default: return
            }
        }
    }

    // MARK: Keys

    private mutating func dottedKey() throws(TOMLSyntaxError) -> [String] {
        var parts = [try simpleKey()]
        while true {
            let mark = at
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else { at = mark; return parts }
            at += 1
            skipSpaces()
            parts.append(try simpleKey())
        }
    }

    private mutating func simpleKey() throws(TOMLSyntaxError) -> String {
        switch peek() {
        case UInt8(ascii: "\""): return try basicString()
        case UInt8(ascii: "'"): return try literalString()
        default:
            let start = at
            while let byte = peek(), Self.isBareKey(byte) { at += 1 }
            guard at > start else { throw error("a key is letters, digits, _ and -, or quoted") }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }
    }

    // MARK: Values

    private mutating func value(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        guard depth < Self.maximumDepth else { throw error("arrays and tables nest more than \(Self.maximumDepth) deep") }
        switch peek() {
        case UInt8(ascii: "\""):
            return .string(peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"") ? try multilineString(literal: false) : try basicString())
        case UInt8(ascii: "'"):
            return .string(peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'") ? try multilineString(literal: true) : try literalString())
        case UInt8(ascii: "["):
            return try array(depth: depth)
        case UInt8(ascii: "{"):
            return try inlineTable(depth: depth)
        default:
            return try scalar()
        }
    }

    private mutating func array(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        at += 1
        var values: [TOMLValue] = []
        while true {
            try skipBlank()
            if peek() == UInt8(ascii: "]") { at += 1; return .array(values) }
            values.append(try value(depth: depth + 1))
            try skipBlank()
            switch peek() {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "]"): at += 1; return .array(values)
            default: throw error("an array's values are separated by commas and end with ]")
            }
        }
    }

    /// `{ a = 1, b.c = "x" }`: on one line, no comma after the last, complete as written.
    private mutating func inlineTable(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        let tableLine = line
        at += 1
        var table = TOMLTable(origin: .inline, line: tableLine)
        skipSpaces()
        if peek() == UInt8(ascii: "}") { at += 1; return .table(table) }
        while true {
            skipSpaces()
            let key = try dottedKey()
            skipSpaces()
            try expect(UInt8(ascii: "="), "a key is followed by = and its value")
            skipSpaces()
            try table.setDotted(key[...], to: try value(depth: depth + 1), line: tableLine, inline: true)
            skipSpaces()
            switch peek() {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "}"): at += 1; return .table(table)
            default: throw error("an inline table's pairs are separated by commas and end with } on the same line")
            }
        }
    }

    /// `true`, `false`, a number or a date-time: the run of characters they are made of
    /// (with the one space TOML allows between a date and its time), checked by its shape.
    private mutating func scalar() throws(TOMLSyntaxError) -> TOMLValue {
        let start = at
        while let byte = peek(), Self.isScalar(byte) { at += 1 }
        if at - start == 10, peek() == UInt8(ascii: " "), let next = peek(1), Self.isDigit(next),
           TOMLScalar.isDate(bytes[start..<at]) {
            at += 1
            while let byte = peek(), Self.isScalar(byte) { at += 1 }
        }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        switch text {
        case "": throw error("a value is missing")
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        default:
            guard TOMLScalar.isNumber(bytes[start..<at]) || TOMLScalar.isDateTime(bytes[start..<at]) else {
                throw error("“\(text)” is no value: strings are quoted")
            }
            return .other(text)
        }
    }

    // MARK: Strings

    private mutating func basicString() throws(TOMLSyntaxError) -> String {
        at += 1
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else { throw error("a string is not closed") }
            switch byte {
            case UInt8(ascii: "\""):
                at += 1
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &text)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("a string ends on its line (\"\"\" starts one of many lines)")
            default:
                if Self.isControl(byte) { throw error("a string holds a control character: write it as an escape") }
                text.append(byte)
                at += 1
            }
        }
    }

    private mutating func literalString() throws(TOMLSyntaxError) -> String {
        at += 1
        let start = at
        while true {
            guard let byte = peek() else { throw error("a string is not closed") }
            if byte == UInt8(ascii: "'") { break }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { throw error("a string ends on its line (''' starts one of many lines)") }
            if Self.isControl(byte) { throw error("a string holds a control character") }
            at += 1
        }
        defer { at += 1 }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    /// `"""…"""` or `'''…'''`: a line end right after the opening is dropped; up to two
    /// quotes may stand before the closing three.
    private mutating func multilineString(literal: Bool) throws(TOMLSyntaxError) -> String {
        let quote = literal ? UInt8(ascii: "'") : UInt8(ascii: "\"")
        at += 3
        if peek() == UInt8(ascii: "\n") {
            at += 1; line += 1
        } else if peek() == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
            at += 2; line += 1
        }
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else { throw error("a string of many lines is not closed") }
            switch byte {
            case quote:
                var run = 0
                while peek(run) == quote { run += 1 }
                guard run >= 3 else {
                    text.append(contentsOf: repeatElement(quote, count: run))
                    at += run
                    continue
                }
                guard run <= 5 else { throw error("a string of many lines closes with three quotes, after at most two more") }
                text.append(contentsOf: repeatElement(quote, count: run - 3))
                at += run
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\n"):
                text.append(byte)
                at += 1; line += 1
            case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"):
                text.append(UInt8(ascii: "\n"))
                at += 2; line += 1
            case UInt8(ascii: "\\") where !literal:
                if lineEndingBackslash() { continue }
                try escape(into: &text)
            default:
                if Self.isControl(byte) { throw error("a string holds a control character") }
                text.append(byte)
                at += 1
            }
        }
    }

    /// A `\` that ends its line (spaces may follow it): it, the line end, and the blanks and
    /// line ends after are skipped. False, and nothing read, for any other `\`.
    private mutating func lineEndingBackslash() -> Bool {
        var ahead = 1
        while peek(ahead) == UInt8(ascii: " ") || peek(ahead) == UInt8(ascii: "\t") { ahead += 1 }
        guard peek(ahead) == UInt8(ascii: "\n") || (peek(ahead) == UInt8(ascii: "\r") && peek(ahead + 1) == UInt8(ascii: "\n")) else { return false }
        at += ahead
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): at += 1
            case UInt8(ascii: "\n"): at += 1; line += 1
            case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"): at += 2; line += 1
            default: return true
            }
        }
        return true
    }

    private mutating func escape(into text: inout [UInt8]) throws(TOMLSyntaxError) {
        guard let letter = peek(1) else { throw error("a string is not closed") }
        at += 2
        switch letter {
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "\""): text.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): text.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = letter == UInt8(ascii: "u") ? 4 : 8
            guard at + count <= bytes.count,
                  let code = UInt32(String(decoding: bytes[at..<at + count], as: UTF8.self), radix: 16),
                  bytes[at..<at + count].allSatisfy(Self.isHexDigit),
                  let scalar = Unicode.Scalar(code)
            else { throw error("\\\(Character(Unicode.Scalar(letter))) is followed by \(count) hex digits of a Unicode scalar") }
            text.append(contentsOf: String(Character(scalar)).utf8)
            at += count
        default:
            throw error("a string's \\ starts one of \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX")
        }
    }

    // MARK: Bytes

    private func peek(_ ahead: Int = 0) -> UInt8? {
        at + ahead < bytes.count ? bytes[at + ahead] : nil
    }

    private mutating func skipSpaces() {
        while peek() == UInt8(ascii: " ") || peek() == UInt8(ascii: "\t") { at += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ reason: String) throws(TOMLSyntaxError) {
        guard peek() == byte else { throw error(reason) }
        at += 1
    }

    private func error(_ reason: String) -> TOMLSyntaxError {
        TOMLSyntaxError(line: line, reason)
    }

    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    private static func isBareKey(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// What numbers, booleans and date-times are written with.
    private static func isScalar(_ byte: UInt8) -> Bool {
        isBareKey(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }
}
