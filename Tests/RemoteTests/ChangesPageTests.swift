import CloudKitModel
import Foundation
import RemoteTestSupport
import ServerStore
import Testing

/// Issue 60: a page of a zone's changes is bounded by its records' bytes as well as their
/// count, on every store and through `serve`: asked for 100 changes of 20 records of 700 KB,
/// the first page stops past 8 MiB and says more come, and paging on gives every record once.
@Suite(.serialized) struct ChangesPageTests {
    @Test("A page stops at the first record that takes its fields to 8 MiB, and the pages together hold every record once", arguments: RemoteKind.tested)
    func aPageStopsAtItsBytes(kind: RemoteKind) throws {
        let fixture = try CloudFixture(kind: kind)
        let database = try fixture.client()
        let text = String(repeating: "x", count: 700_000)
        for index in 0..<20 {
            let record = RemoteRecord(
                recordType: "Note", recordID: RecordID(recordName: "r\(index)", zoneID: CloudFixture.zone), fields: ["text": .string(text)])
            _ = try database.modify(saving: [record], deleting: [], savePolicy: .allKeys)
        }
        let pages = try ZoneChangesTests.allPages(database, since: nil, limit: 100)
        let counts = pages.map(\.changed.count)
        // 12 records of 700,000 bytes (and their JSON) are the first past 8 MiB.
        #expect(counts == [12, 8], "\(counts)")
        #expect(pages.first?.moreComing == true && pages.last?.moreComing == false)
        let names = pages.flatMap { $0.changed.map(\.recordID.recordName) }
        #expect(names == (0..<20).map { "r\($0)" })
        // A count below the budget's still stops the page first.
        #expect(try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 5).changed.count == 5)
        #expect(ChangesPage.isFull(count: 0, bytes: ChangesPage.byteBudget, limit: 10))
        #expect(!ChangesPage.isFull(count: 9, bytes: ChangesPage.byteBudget - 1, limit: 10))
    }
}
