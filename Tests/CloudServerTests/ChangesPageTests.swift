@testable import CloudServer
import CloudKitModel
import CloudWebServices
import IdeaBoxFoundation
import Testing

/// `records/changes`' page written straight from its records says what its object says.
@Suite struct ChangesPageTests {
    static let zone = RecordZoneID(zoneName: "Ideas")

    static func page(changed: Int, deleted: Int, desiredKeys: Set<String>? = nil, moreComing: Bool = false) -> ChangesPage {
        ChangesPage(
            syncToken: "dG9rZW4=", moreComing: moreComing,
            changed: (0..<changed).map { index in
                RemoteRecord(
                    recordType: "Idea", recordID: RecordID(recordName: "r\(index)", zoneID: zone),
                    fields: ["title": .string("想法 \(index)"), "done": .int64(Int64(index % 2))], changeTag: "t\(index)",
                    creationDate: Timestamp(milliseconds: 1), modificationDate: Timestamp(milliseconds: Int64(index)))
            },
            deleted: (0..<deleted).map { DeletedRecord(recordID: RecordID(recordName: "gone\($0)", zoneID: zone), recordType: "Idea") },
            desiredKeys: desiredKeys, answer: WebServicesFormat.Answer(userRecordName: "_alice"))
    }

    @Test("Pages of changes, of deletions, of both, and empty, write what their objects do", arguments: [(0, 0), (3, 0), (0, 2), (3, 2), (1, 1)])
    func pagesWriteWhatTheirObjectsDo(changed: Int, deleted: Int) throws {
        for (keys, more) in [(nil, false), (Set(["title"]), true)] as [(Set<String>?, Bool)] {
            let page = Self.page(changed: changed, deleted: deleted, desiredKeys: keys, moreComing: more)
            let written = try JSONValue(parsing: page.bytes)
            #expect(written == (try JSONValue(parsing: JSONValue.object(page.object).bytes)))
            #expect(written.object?["records"]?.array?.count == changed + deleted)
        }
    }
}
