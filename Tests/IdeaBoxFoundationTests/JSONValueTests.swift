import Foundation
import IdeaBoxFoundation
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    @Test("Documents read as Foundation reads them", arguments: [
        #"{"a":[1,-2,3.5,true,false,null],"b":{"c":"d"}}"#,
        #"  [ "x" , { } , [ ] , "" ]  "#,
        #""escapes: \" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u4e2d \ud83d\ude00""#,
        #""繁體中文 and emoji 😀 raw""#,
        #"[0, -0, 1e3, 1E-3, 2.5e+2, 9223372036854775807, -9223372036854775808]"#,
        #"{"title":{"value":"說明","type":"STRING"},"n":{"value":1700000000000,"type":"TIMESTAMP"}}"#,
    ])
    func agreesWithFoundation(document: String) throws {
        let ours = try JSONValue(parsing: document)
        let theirs = try JSONSerialization.jsonObject(with: Data(document.utf8), options: .fragmentsAllowed)
        #expect(Self.matches(ours, theirs), "\(ours) vs \(theirs)")
    }

    @Test("Written values read back the same, here and in Foundation")
    func roundTrip() throws {
        var random = SeededRandomNumberGenerator(seed: 11)
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, using: &random)
            let bytes = value.bytes
            #expect(try JSONValue(parsing: bytes) == value)
            let theirs = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
            #expect(Self.matches(value, theirs), "\(value)")
        }
    }

    @Test("Numbers without a fraction or exponent that fit 64 bits are integers")
    func numbers() throws {
        #expect(try JSONValue(parsing: "12") == .integer(12))
        #expect(try JSONValue(parsing: "-0") == .integer(0))
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .integer(.min))
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
        // Past Int64 either way, a number is no whole number (not rounded to the nearest end).
        #expect(try JSONValue(parsing: "9223372036854775808").wholeNumber == nil)
        #expect(try JSONValue(parsing: "-9223372036854775809").wholeNumber == nil)
        #expect(try JSONValue(parsing: "-9223372036854775808").wholeNumber == .min)
        #expect(try JSONValue(parsing: "1.0") == .double(1))
        #expect(try JSONValue(parsing: "1.0").wholeNumber == 1)
        #expect(try JSONValue(parsing: "1.5").wholeNumber == nil)
        #expect(try JSONValue(parsing: "true").wholeNumber == nil)
        #expect(try JSONValue(parsing: "true").number == nil)
    }

    @Test("Anything that is not exactly one JSON value is refused", arguments: [
        "", " ", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a:1}", "// c\n1", "01", "-", ".5", "1.", "1e", "+1", "NaN",
        "Infinity", "1e400", "tru", "nul", "\"open", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
        "\"\\ud800\\u0041\"", "\"tab\tinside\"", "[1] [2]", "{\"a\":1,\"a\":2}", "'single'", "[1]x",
    ])
    func refused(document: String) {
        #expect(throws: JSONValue.Invalid.self) { try JSONValue(parsing: document) }
    }

    @Test("Invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
            #expect(throws: JSONValue.Invalid.self) { try JSONValue(parsing: bytes) }
        }
    }

    @Test("Nesting is read to the maximum depth and refused past it, however deep the input")
    func depth() throws {
        let deepest = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        #expect(throws: Never.self) { try JSONValue(parsing: deepest) }
        let tooDeep = "{\"a\":" + deepest + "}"
        #expect(throws: JSONValue.Invalid.self) { try JSONValue(parsing: tooDeep) }
        // A hostile 8 MB body of brackets: one clear error, no stack overflow.
        #expect(throws: JSONValue.Invalid.self) { try JSONValue(parsing: [UInt8](repeating: UInt8(ascii: "["), count: 8 << 20)) }
    }

    @Test("Strings are written with quotes, backslashes and control characters escaped, everything else as it is")
    func writtenStrings() {
        #expect(String(decoding: JSONValue.string("a\"b\\c\nd\te\u{1}f/繁").bytes, as: UTF8.self) == #""a\"b\\c\nd\te\u0001f/繁""#)
        #expect(String(decoding: JSONValue.array([.integer(-3), .double(0.5), .bool(false), .null]).bytes, as: UTF8.self)
            == "[-3,0.5,false,null]")
        #expect(String(decoding: JSONValue.double(.infinity).bytes, as: UTF8.self) == "null")
    }

    @Test("An error says what was wrong and at which byte")
    func errorOffset() {
        #expect(throws: Self.invalid("expected ',' or ']'", at: 3)) { try JSONValue(parsing: "[1 2]") }
        #expect(throws: Self.invalid("duplicate member name", at: 8, .duplicateName)) { try JSONValue(parsing: #"{"a":1, "a":2}"#) }
        #expect(throws: Self.invalid("lone surrogate in a \\u escape", at: 8, .loneSurrogate)) { try JSONValue(parsing: #"["\ud800"]"#) }
        #expect(throws: Self.invalid("nested more than 64 deep", at: 64, .tooDeep)) {
            try JSONValue(parsing: String(repeating: "[", count: 65))
        }
    }

    @Test("Invalid UTF-8 is named at its first wrong byte, in a string with escapes too")
    func invalidUTF8Offset() {
        for (bytes, offset): ([UInt8], Int) in [
            ([0x22, 0x61, 0xFF, 0x22], 2), ([0x5B, 0x22, 0xE7, 0xB9, 0x81, 0xC3, 0x22, 0x5D], 5),
            ([0x22, 0x5C, 0x6E, 0x61, 0xED, 0xA0, 0x80, 0x22], 4),
        ] {
            #expect(throws: Self.invalid("invalid UTF-8 in a string", at: offset, .invalidUTF8)) { try JSONValue(parsing: bytes) }
        }
        #expect("\(Self.invalid("expected ',' or ']'", at: 3))" == "expected ',' or ']' at byte 3")
    }

    private static func invalid(_ reason: String, at offset: Int, _ kind: JSONValue.Invalid.Kind = .syntax) -> JSONValue.Invalid {
        JSONValue.Invalid(reason: reason, offset: offset, kind: kind)
    }

    // MARK: Helpers

    /// Whether Foundation's reading of a document is the same value as ours.
    private static func matches(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let flag): return (theirs as? NSNumber).map { $0.objCType.pointee == CChar(UInt8(ascii: "c")) && $0.boolValue == flag } ?? false
        case .integer(let number): return (theirs as? NSNumber).map { $0.int64Value == number && $0.doubleValue == Double(number) } ?? false
        case .double(let number):
            // Foundation on Linux reads some doubles one unit in the last place off; ours reads them exactly
            // (the round trip above compares bit for bit).
            return (theirs as? NSNumber).map { abs($0.doubleValue - number) <= abs(number).ulp * 2 } ?? false
        case .string(let text): return theirs as? String == text
        case .array(let items):
            guard let others = theirs as? [Any], others.count == items.count else { return false }
            return zip(items, others).allSatisfy { matches($0, $1) }
        case .object(let members):
            guard let others = theirs as? [String: Any], others.count == members.count else { return false }
            return members.allSatisfy { key, value in others[key].map { matches(value, $0) } ?? false }
        }
    }

    private static func randomValue(depth: Int, using random: inout SeededRandomNumberGenerator) -> JSONValue {
        let kind = depth >= 3 ? Int.random(in: 0..<5, using: &random) : Int.random(in: 0..<7, using: &random)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &random) >> Int64.random(in: 0..<63, using: &random))
        case 3: return .double(Double.random(in: -1e12...1e12, using: &random))
        case 4: return .string(randomText(using: &random))
        case 5: return .array((0..<Int.random(in: 0..<5, using: &random)).map { _ in randomValue(depth: depth + 1, using: &random) })
        default:
            var members: JSONValue.Object = [:]
            for _ in 0..<Int.random(in: 0..<5, using: &random) {
                members[randomText(using: &random)] = randomValue(depth: depth + 1, using: &random)
            }
            return .object(members)
        }
    }

    private static func randomText(using random: inout SeededRandomNumberGenerator) -> String {
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", "é", "繁", "體", "😀", "\u{2028}", "ab"]
        return (0..<Int.random(in: 0..<8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }
}
