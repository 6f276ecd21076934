import CloudKitModel
import Foundation
import RemoteTestSupport
import ServerStore
import Testing

/// Issue 60: a page of a zone's changes is bounded by its records' bytes as well as their
/// count, on every store and through `serve`: asked for 100 changes of 20 records of 700 KB,
/// the first page stops past 8 MiB and says more come, and paging on gives every record once.
@Suite(.serialized) struct PageBudgetTests {
    @Test("A page stops at the first record that takes its fields to 8 MiB, and the pages together hold every record once", arguments: RemoteKind.tested)
    func aPageStopsAtItsBytes(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
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
        #expect(PageBudget.isFull(count: 0, bytes: PageBudget.byteBudget, limit: 10))
        #expect(!PageBudget.isFull(count: 9, bytes: PageBudget.byteBudget - 1, limit: 10))
    }

    @Test("A query's page stops at its records' bytes too, with a marker from its last record; the pages together hold every record once", arguments: [RemoteKind.embedded, .servedPostgres].filter(RemoteKind.tested.contains))
    func aQueryPageStopsAtItsBytes(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let (store, account) = (fixture.store, CloudFixture.account)
        try await store.createZone(CloudFixture.zone, account: account)
        let text = String(repeating: "q", count: 700_000)
        for index in 0..<20 {
            let record = RemoteRecord(
                recordType: "Note", recordID: RecordID(recordName: String(format: "n%02d", index), zoneID: CloudFixture.zone),
                fields: ["text": .string(text)])
            _ = try await store.modify(account: account, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: false)
        }
        var pages: [StoredQueryPage] = []
        var after: QueryPosition?
        repeat {
            let page = try await store.query(account: account, StoredQuery(recordType: "Note", zones: [CloudFixture.zone], limit: 100, after: after))
            pages.append(page)
            after = page.next
        } while after != nil && pages.count < 10
        #expect(pages.map(\.records.count) == [12, 8])
        #expect(pages.flatMap { $0.records.map(\.recordID.recordName) } == (0..<20).map { String(format: "n%02d", $0) })
        #expect(PageBudget.bytes(of: pages[0].records[0]) == 700_004)
    }

    @Test("A read of records by name stops at the first record that takes their fields to 8 MiB, in the order of the names", arguments: RemoteKind.tested)
    func aReadByNameStopsAtItsBytes(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let (store, account) = (fixture.store, CloudFixture.account)
        try await store.createZone(CloudFixture.zone, account: account)
        let text = String(repeating: "l", count: 700_000)
        for index in 0..<20 {
            let record = RemoteRecord(
                recordType: "Note", recordID: RecordID(recordName: "r\(index)", zoneID: CloudFixture.zone), fields: ["text": .string(text)])
            _ = try await store.modify(account: account, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: false)
        }
        let names = ["missing"] + (0..<20).reversed().map { "r\($0)" }
        let first = try await store.records(account: account, in: CloudFixture.zone, named: names, byteBudget: PageBudget.byteBudget)
        // The missing name, then the 12 records of 700,000 bytes that take it past 8 MiB.
        #expect(first.namesRead == 13)
        #expect(first.records.map(\.recordID.recordName) == (8..<20).reversed().map { "r\($0)" })
        let rest = try await store.records(account: account, in: CloudFixture.zone, named: Array(names[13...]), byteBudget: PageBudget.byteBudget)
        #expect(rest.namesRead == 8 && rest.records.map(\.recordID.recordName) == (0..<8).reversed().map { "r\($0)" })
        // A budget too small for one record still reads one name.
        let one = try await store.records(account: account, in: CloudFixture.zone, named: ["r3", "r4"], byteBudget: 1)
        #expect(one == NamedRecords(records: one.records, namesRead: 1) && one.records.map(\.recordID.recordName) == ["r3"])
    }
}
