import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import Testing

/// A record written straight to bytes (`WebServicesFormat.write`) says what its object says.
@Suite struct WebServicesFormatTests {
    /// Every kind of value a record can hold, lists of each and an empty list.
    static let record: RemoteRecord = {
        let asset = AssetReference(checksum: String(repeating: "ab", count: 32), size: 1_234)!
        let place = Location(latitude: 25.03, longitude: 121.56, horizontalAccuracy: 5, altitude: 10, timestamp: Timestamp(milliseconds: 7))!
        let fields: [String: FieldValue] = [
            "title": .string("靈感 \"quoted\" \\ 🌱\n"), "count": .int64(-42), "ratio": .double(0.5), "huge": .double(1e300),
            "notANumber": .double(.nan), "below": .double(-.infinity), "done": .timestamp(Timestamp(milliseconds: 1_700_000_000_123)),
            "blob": .bytes(Data([0, 1, 2, 250])), "file": .asset(asset),
            "parent": .reference(RecordReference(recordName: "p1", zoneName: "Ideas", action: .deleteSelf)),
            "elsewhere": .reference(RecordReference(recordName: "p2")), "place": .location(place),
            "tags": .list([.string("a"), .string("乙")]), "numbers": .list([.int64(1), .int64(2)]), "empty": .list([]),
            "files": .list([.asset(asset)]),
        ]
        return RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: "id-1", zoneID: RecordZoneID(zoneName: "Ideas")), fields: fields,
            changeTag: "tag-9", creationDate: Timestamp(milliseconds: 1), modificationDate: Timestamp(milliseconds: 2))
    }()

    static let answers: [WebServicesFormat.Answer] = [
        WebServicesFormat.Answer(),
        WebServicesFormat.Answer(numbersAsStrings: true),
        WebServicesFormat.Answer(downloadURL: { "https://127.0.0.1/assets/\($0.checksum)" }, userRecordName: "_alice"),
    ]

    static func parsed(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONValue(parsing: bytes)
    }

    @Test("A record of every kind of value, in each kind of answer, writes what its object does", arguments: 0..<3)
    func aRecordWritesWhatItsObjectDoes(answer index: Int) throws {
        let answer = Self.answers[index]
        var bytes: [UInt8] = []
        WebServicesFormat.write(Self.record, answer, to: &bytes)
        #expect(try Self.parsed(bytes) == Self.parsed(JSONValue.object(WebServicesFormat.object(Self.record, answer)).bytes))
    }

    @Test("A record with no change tag, no times and no fields writes what its object does")
    func aBareRecordWritesWhatItsObjectDoes() throws {
        let bare = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "n", zoneID: RecordZoneID(zoneName: "Ideas")))
        var bytes: [UInt8] = []
        WebServicesFormat.write(bare, to: &bytes)
        #expect(try Self.parsed(bytes) == Self.parsed(JSONValue.object(WebServicesFormat.object(bare)).bytes))
        #expect(try Self.parsed(bytes).object?["fields"] == .object([:]))
    }

    @Test("Desired keys write only the fields they name, and a name no field has writes nothing")
    func desiredKeysKeepTheirFields() throws {
        var bytes: [UInt8] = []
        WebServicesFormat.write(Self.record, desiredKeys: ["title", "tags", "nothing"], to: &bytes)
        var kept = Self.record
        kept.fields = kept.fields.filter { ["title", "tags"].contains($0.key) }
        #expect(try Self.parsed(bytes) == Self.parsed(JSONValue.object(WebServicesFormat.object(kept)).bytes))
    }

    @Test("Each value alone writes what its {value, type} does")
    func eachValueWritesWhatItsObjectDoes() throws {
        for answer in Self.answers {
            for (name, value) in Self.record.fields {
                var bytes: [UInt8] = []
                WebServicesFormat.write(value, answer, to: &bytes)
                #expect(try Self.parsed(bytes) == Self.parsed(WebServicesFormat.value(value, answer).bytes), "\(name)")
            }
        }
    }

    @Test("A mixed list, which only an earlier remote could have stored, goes out as a STRING_LIST of each item's {value, type}")
    func aMixedListIsAStringList() throws {
        let mixed = FieldValue.list([.string("x"), .int64(1), .list([.double(2)])])
        var bytes: [UInt8] = []
        WebServicesFormat.write(mixed, to: &bytes)
        let written = try #require(try Self.parsed(bytes).object)
        #expect(written["type"] == "STRING_LIST")
        // Each item's text is an object written in no particular order: compared as JSON.
        let items = try #require(written["value"]?.array).map { try JSONValue(parsing: #require($0.string)) }
        #expect(items == [WebServicesFormat.value(.string("x")), WebServicesFormat.value(.int64(1)), WebServicesFormat.value(.list([.double(2)]))])
    }
}
