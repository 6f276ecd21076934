@testable import CloudServer
import CloudKitModel
import CloudWebServices
import IdeaBoxFoundation
import Testing

/// A page of changes, and `changes/zone`'s answer, written straight from their records say what
/// their objects say.
@Suite struct ChangesPageTests {
    static let ideas = RecordZoneID(zoneName: "Ideas")

    static func page(changed: Int, deleted: Int, desiredKeys: Set<String>? = nil, moreComing: Bool = false, zone: RecordZoneID? = nil) -> ChangesPage {
        ChangesPage(
            syncToken: "dG9rZW4=", moreComing: moreComing,
            changed: (0..<changed).map { index in
                RemoteRecord(
                    recordType: "Idea", recordID: RecordID(recordName: "r\(index)", zoneID: ideas),
                    fields: ["title": .string("想法 \(index)"), "done": .int64(Int64(index % 2))], changeTag: "t\(index)",
                    creationDate: Timestamp(milliseconds: 1), modificationDate: Timestamp(milliseconds: Int64(index)))
            },
            deleted: (0..<deleted).map { DeletedRecord(recordID: RecordID(recordName: "gone\($0)", zoneID: ideas), recordType: "Idea") },
            desiredKeys: desiredKeys, answer: WebServicesFormat.Answer(userRecordName: "_alice"), zone: zone)
    }

    @Test("Pages of changes, of deletions, of both, and empty, write what their objects do", arguments: [(0, 0), (3, 0), (0, 2), (3, 2), (1, 1)])
    func pagesWriteWhatTheirObjectsDo(changed: Int, deleted: Int) throws {
        for (keys, more, zone) in [(nil, false, nil), (Set(["title"]), true, nil), (nil, true, Self.ideas)] as [(Set<String>?, Bool, RecordZoneID?)] {
            let page = Self.page(changed: changed, deleted: deleted, desiredKeys: keys, moreComing: more, zone: zone)
            let written = try JSONValue(parsing: page.bytes)
            #expect(written == (try JSONValue(parsing: JSONValue.object(page.object).bytes)))
            #expect(written.object?["records"]?.array?.count == changed + deleted)
            // records/changes says reverse; changes/zone names its zone instead.
            #expect(written.object?["reverse"] == (zone == nil ? false : nil))
            #expect(written.object?["zoneID"] == zone.map(WebServicesFormat.object))
        }
    }

    @Test("changes/zone's answer, flat or of zones with one failed, writes what its object does")
    func zoneAnswersWriteWhatTheirObjectsDo() throws {
        let failed: JSONValue.Object = ["zoneID": ["zoneName": "Gone"], "serverErrorCode": "ZONE_NOT_FOUND", "reason": "no such zone"]
        let answers = [
            ZoneChangesAnswer(flat: true, zones: [.page(Self.page(changed: 2, deleted: 1, zone: Self.ideas))]),
            ZoneChangesAnswer(flat: false, zones: [.page(Self.page(changed: 2, deleted: 1, zone: Self.ideas)), .failed(failed)]),
            ZoneChangesAnswer(flat: false, zones: [.failed(failed)]),
        ]
        for answer in answers {
            let written = try JSONValue(parsing: answer.bytes)
            #expect(written == (try JSONValue(parsing: JSONValue.object(answer.object).bytes)))
            #expect((written.object?["zones"] != nil) == !answer.flat)
        }
    }
}
