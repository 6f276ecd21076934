import CloudRemote
import Foundation
import IdeaBoxCore
import Testing

/// Field values keep their type and exact value through JSON.
@Suite struct FieldValueTests {
    @Test("Every kind of value survives a JSON round trip unchanged", arguments: [
        FieldValue.string("靈感 💡 \"quoted\""),
        .int64(.max), .int64(.min), .int64(0),
        .double(0.1), .double(-1e300),
        .bool(true), .bool(false),
        .timestamp(Timestamp(milliseconds: 1_795_162_530_123)),
        .bytes(Data([0, 1, 2, 255])), .bytes(Data()),
        .list([.string("a"), .int64(1), .list([.bool(true)])]), .list([]),
    ])
    func roundTrip(value: FieldValue) throws {
        let decoded = try JSONDecoder().decode(FieldValue.self, from: JSONEncoder().encode(value))
        #expect(decoded == value)
    }

    @Test("A value encodes as one key naming its type")
    func encoding() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode([FieldValue.int64(3), .timestamp(Timestamp(milliseconds: 0))]), as: UTF8.self)
        #expect(json == #"[{"int64":3},{"timestamp":"1970-01-01T00:00:00.000Z"}]"#)
    }

    @Test("An object with no key or two keys is refused", arguments: [#"{}"#, #"{"int64":1,"bool":true}"#])
    func malformed(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FieldValue.self, from: Data(json.utf8)) }
    }
}
