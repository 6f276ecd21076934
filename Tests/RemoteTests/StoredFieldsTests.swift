import CloudKitModel
import Foundation
import IdeaBoxFoundation
import ServerStore
import Testing

/// A record's fields as the server stores them read back as they were written, member by
/// member, and damaged text is refused whole.
@Suite struct StoredFieldsTests {
    private static let fields: [String: FieldValue] = [
        "title": .string("靈感 💡 \"quoted\" \\ slash/"), "rank": .int64(-7), "weight": .double(0.25),
        "createdAt": .timestamp(Timestamp(milliseconds: 1_795_162_530_123)), "stamps": .bytes(Data([0, 255, 7])),
        "tags": .list([.string("a"), .string("茶")]), "empty": .list([]),
        "parent": .reference(RecordReference(recordName: "目標", zoneName: "Ideas", action: .deleteSelf)),
        "place": .location(Location(latitude: 25.033964, longitude: 121.564468)!), "flag": .int64(1),
    ]

    @Test("What encode writes, decode reads back the same, and as the whole parser reads it")
    func roundTrip() throws {
        let text = StoredFields.encode(Self.fields)
        #expect(try StoredFields.decode(text) == Self.fields)
        let tree = try #require(try JSONValue(parsing: text).object)
        #expect(try tree.mapValues(FieldValue.init(stored:)) == Self.fields)
        #expect(try StoredFields.decode("{}").isEmpty)
        #expect(try StoredFields.decode(" {\n\"a\" : {\"int64\" : 1} } ") == ["a": .int64(1)])
    }

    @Test("Damaged fields are refused, never read in part", arguments: [
        #"{"a":{"int64":1},"a":{"int64":2}}"#, #"{"a":{"int64":1,"string":"x"}}"#, #"{"a":{}}"#, #"{"a":{"text":"x"}}"#,
        #"{"a":{"int64":"1"}}"#, #"{"a":1}"#, #"{"a":{"int64":1}} {}"#, #"{"a":{"int64":1}"#, #"[{"int64":1}]"#, "",
        #"{"a":{"list":[{"int64":1},{}]}}"#, #"{"a":{"timestamp":"yesterday"}}"#, #"{"a":{"int64":1},}"#,
    ])
    func damaged(text: String) {
        #expect(throws: (any Error).self) { try StoredFields.decode(text) }
    }
}
