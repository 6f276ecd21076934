import CloudKitModel
import Foundation
import IdeaBoxFoundation
import ServerStore
import Testing

/// Field values keep their type and exact value through JSON.
@Suite struct FieldValueTests {
    @Test("Every kind of value survives a JSON round trip unchanged", arguments: [
        FieldValue.string("靈感 💡 \"quoted\""),
        .int64(.max), .int64(.min), .int64(0),
        .double(0.1), .double(-1e300),
        .timestamp(Timestamp(milliseconds: 1_795_162_530_123)),
        .bytes(Data([0, 1, 2, 255])), .bytes(Data()),
        .list([.string("a"), .int64(1), .list([.int64(1)])]), .list([]),
        .reference(RecordReference(recordName: "目標 target", zoneName: "Ideas", action: .deleteSelf)),
        .reference(RecordReference(recordName: "t", action: .validate)),
        .location(Location(latitude: -33.856784, longitude: 151.215297)!),
        .location(Location(
            latitude: 25.033964, longitude: 121.564468, horizontalAccuracy: 5.5, verticalAccuracy: 0, altitude: -2.25, speed: 1e-3,
            course: 359.9, timestamp: Timestamp(milliseconds: 1_795_162_530_123))!),
        .list([.location(Location(latitude: 90, longitude: -180)!), .reference(RecordReference(recordName: "r"))]),
    ])
    func roundTrip(value: FieldValue) throws {
        let json = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(FieldValue.self, from: json) == value)
        #expect(try decode(json) == value)
        #expect(try decode(Data(value.jsonText.utf8)) == value, "\(value.jsonText)")
        #expect(try JSONDecoder().decode(FieldValue.self, from: Data(value.jsonText.utf8)) == value)
    }

    @Test("Text with quotes, backslashes, slashes and control characters is escaped", arguments: [
        "say \"hi\"", #"C:\path\"#, "a/b", "tab\tnew\nline\r\u{0}\u{1F}\u{7F}", "靈感 💡 e\u{301}", "",
    ])
    func escaping(text: String) throws {
        let value = FieldValue.string(text)
        #expect(try decode(Data(value.jsonText.utf8)) == value, "\(value.jsonText)")
        #expect(!value.jsonText.unicodeScalars.contains { $0.value < 0x20 }, "no raw control characters")
    }

    @Test("Values are written as compact JSON naming their type")
    func jsonText() {
        #expect(FieldValue.int64(-3).jsonText == #"{"int64":-3}"#)
        #expect(FieldValue.timestamp(Timestamp(milliseconds: 0)).jsonText == #"{"timestamp":"1970-01-01T00:00:00.000Z"}"#)
        #expect(FieldValue.list([.int64(1), .double(.infinity), .bytes(Data([255]))]).jsonText == #"{"list":[{"int64":1},{"double":"+inf"},{"bytes":"/w=="}]}"#)
        #expect(FieldValue.string("a\"\n").jsonText == #"{"string":"a\"\n"}"#)
    }

    @Test("Non-finite doubles survive as the strings +inf, -inf and nan")
    func nonFinite() throws {
        let encoder = JSONEncoder()
        let spelling = FieldValue.nonFiniteSpelling
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: spelling.positiveInfinity, negativeInfinity: spelling.negativeInfinity, nan: spelling.nan)
        let json = try encoder.encode([FieldValue.double(.infinity), .double(-.infinity), .double(.nan)])
        #expect(String(decoding: json, as: UTF8.self) == #"[{"double":"+inf"},{"double":"-inf"},{"double":"nan"}]"#)
        let decoded = try #require(try JSONValue(parsing: [UInt8](json)).array).map(FieldValue.init(stored:))
        #expect(decoded.count == 3)
        #expect(decoded[0] == .double(.infinity) && decoded[1] == .double(-.infinity))
        if case .double(let value) = decoded[2] { #expect(value.isNaN) } else { Issue.record("not a double: \(decoded[2])") }
    }

    @Test("A flag an earlier remote stored as bool reads as the INT64 CloudKit uses", arguments: [
        (#"{"bool":true}"#, FieldValue.int64(1)), (#"{"bool":false}"#, .int64(0)),
        (#"{"list":[{"bool":true},{"int64":7}]}"#, .list([.int64(1), .int64(7)])),
    ])
    func earlierBooleans(json: String, value: FieldValue) throws {
        #expect(try decode(Data(json.utf8)) == value)
        #expect(try JSONDecoder().decode(FieldValue.self, from: Data(json.utf8)) == value)
    }

    @Test("A value encodes as one key naming its type")
    func encoding() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode([FieldValue.int64(3), .timestamp(Timestamp(milliseconds: 0))]), as: UTF8.self)
        #expect(json == #"[{"int64":3},{"timestamp":"1970-01-01T00:00:00.000Z"}]"#)
    }

    @Test("Anything but one key naming its type with a value of that type is refused", arguments: [
        #"{}"#, #"{"int64":1,"bool":true}"#, #"{"text":"a"}"#, #"{"int64":1.5}"#, #"{"int64":true}"#, #"{"int64":"1"}"#,
        #"{"bool":1}"#, #"{"double":"infinity"}"#, #"{"double":false}"#, #"{"timestamp":"yesterday"}"#,
        #"{"bytes":"not base64!"}"#, #"{"list":[{"int64":1},{}]}"#, #"{"list":{"int64":1}}"#, #"{"string":null}"#, #"[]"#,
    ])
    func malformed(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FieldValue.self, from: Data(json.utf8)) }
        #expect(throws: DecodingError.self) { try decode(Data(json.utf8)) }
    }

    private func decode(_ json: Data) throws -> FieldValue {
        try FieldValue(stored: JSONValue(parsing: [UInt8](json)))
    }
}
