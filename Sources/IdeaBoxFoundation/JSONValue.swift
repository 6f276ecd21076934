/// A JSON value, read from and written to UTF-8 bytes directly.
///
/// The web service's bodies and the stored fields go through this type rather than
/// `JSONSerialization`, whose `[String: Any]` trees cost a bridging cast at every level:
/// writing 1,000 records' worth of dictionaries took 305 ms there, and `JSONEncoder` /
/// `JSONDecoder` 44 / 55 ms (BENCHMARKS.md, "`serve` under load"). Reading is strict RFC 8259, as a
/// server reading hostile input must be: one value and nothing after it, no trailing
/// commas, no comments, valid UTF-8, no lone surrogates, no duplicate keys, nesting at
/// most `maximumDepth` deep.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(Object)

    /// A JSON object.
    public typealias Object = [String: JSONValue]

    /// The deepest nesting of arrays and objects read.
    public static let maximumDepth = 64

    /// Why bytes are not one JSON value.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        /// What was wrong.
        public var reason: String
        /// The byte offset where it was found.
        public var offset: Int
        /// Which rule it broke: JSON's syntax, or one that I-JSON (RFC 7493) adds to it.
        public var kind: Kind

        /// The rules a text can break.
        public enum Kind: Sendable, Equatable {
            /// RFC 8259's grammar (a missing comma, an unknown escape, the end too early…).
            case syntax
            /// A member name appears twice in one object.
            case duplicateName
            /// A string's bytes are not UTF-8.
            case invalidUTF8
            /// A `\u` escape names half of a surrogate pair.
            case loneSurrogate
            /// Arrays and objects nested deeper than `maximumDepth`.
            case tooDeep
        }

        /// `reason`, found at byte `offset`.
        public init(reason: String, offset: Int, kind: Kind = .syntax) {
            self.reason = reason
            self.offset = offset
            self.kind = kind
        }

        public var description: String { "\(reason) at byte \(offset)" }
    }

    // MARK: Reading values

    /// The text, if this is a string.
    public var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// The members, if this is an object.
    public var object: Object? {
        if case .object(let members) = self { members } else { nil }
    }

    /// The items, if this is an array.
    public var array: [JSONValue]? {
        if case .array(let items) = self { items } else { nil }
    }

    /// The flag, if this is `true` or `false`.
    public var bool: Bool? {
        if case .bool(let flag) = self { flag } else { nil }
    }

    /// A whole number that fits in 64 bits: an integer, or a double without a fraction.
    public var wholeNumber: Int64? {
        switch self {
        case .integer(let number): number
        // Above −2^63: a literal below Int64's range rounds to −2^63 as a Double, and must
        // not be read as it (−2^63 itself is written as an integer, and read as one).
        case .double(let number): number > -0x1p63 ? Int64(exactly: number) : nil
        default: nil
        }
    }

    /// The number, if this is one.
    public var number: Double? {
        switch self {
        case .integer(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    // MARK: Parsing

    /// The one JSON value in `bytes`, surrounded by nothing but white space; throws `Invalid`.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(Invalid) {
        var parser = Parser(bytes.assumingMemoryBound(to: UInt8.self))
        self = try parser.document()
    }

    /// The one JSON value in `bytes`; throws `Invalid`.
    public init(parsing bytes: [UInt8]) throws(Invalid) {
        self = try bytes.withUnsafeBytes { bytes in Result { () throws(Invalid) in try JSONValue(parsing: bytes) } }.get()
    }

    /// The one JSON value in `text`; throws `Invalid`.
    public init(parsing text: String) throws(Invalid) {
        var text = text
        self = try text.withUTF8 { utf8 in Result { () throws(Invalid) in try JSONValue(parsing: UnsafeRawBufferPointer(utf8)) } }.get()
    }

    // MARK: Writing

    /// The value as compact JSON in UTF-8.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(to: &bytes)
        return bytes
    }

    /// Appends the value as compact JSON. Object members come in no particular order;
    /// non-finite doubles, which JSON can't hold, are written as `null`.
    public func write(to bytes: inout [UInt8]) {
        switch self {
        case .null:
            bytes.append(contentsOf: "null".utf8)
        case .bool(let flag):
            bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number):
            bytes.append(contentsOf: String(number).utf8)
        case .double(let number):
            bytes.append(contentsOf: (number.isFinite ? "\(number)" : "null").utf8)
        case .string(let text):
            Self.write(string: text, to: &bytes)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                item.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in members {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                Self.write(string: key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string (see `JSONString`, IdeaBox's one escaper).
    public static func write(string text: String, to bytes: inout [UInt8]) {
        JSONString.append(text, to: &bytes)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Object(elements, uniquingKeysWith: { $1 }))
    }
}
