import CloudKitModel
import Foundation
import RemoteTestSupport
import Testing

/// Fetching a zone's changes page by page with change tokens.
@Suite struct ZoneChangesTests {
    /// Every page from `token` on, until no more are coming.
    static func allPages(_ database: any CloudDatabase, since token: ChangeToken?, limit: Int) throws -> [ZoneChanges] {
        var pages: [ZoneChanges] = []
        var token = token
        repeat {
            let page = try database.fetchChanges(in: CloudFixture.zone, since: token, resultsLimit: limit)
            pages.append(page)
            token = page.token
        } while pages.last!.moreComing
        return pages
    }

    /// A client-side mirror: the pages applied in order.
    static func apply(_ pages: [ZoneChanges], to mirror: inout [String: RemoteRecord]) {
        for page in pages {
            for record in page.changed { mirror[record.recordID.recordName] = record }
            for deleted in page.deleted { mirror[deleted.recordID.recordName] = nil }
        }
    }

    @Test("Changes come in server order with their deletions and record types", arguments: RemoteKind.tested)
    func basics(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: [note("a"), note("b")], deleting: [], savePolicy: .allKeys)
        _ = try database.modify(saving: [note("c")], deleting: [id("a")], savePolicy: .allKeys)
        let changes = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 100)
        #expect(changes.changed.map(\.recordID) == [id("b"), id("c")])
        #expect(changes.deleted == [DeletedRecord(recordID: id("a"), recordType: "Note")])
        #expect(!changes.moreComing)
        let nothing = try database.fetchChanges(in: CloudFixture.zone, since: changes.token, resultsLimit: 100)
        #expect(nothing.changed.isEmpty && nothing.deleted.isEmpty && !nothing.moreComing)
        #expect(nothing.token == changes.token)
    }

    @Test("Pages of a fixed size cover every change exactly once, deletions and re-saves included", arguments: RemoteKind.tested, [1, 2, 3, 7, 50])
    func paging(kind: RemoteKind, limit: Int) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: (0..<10).map { note("r\($0)") }, deleting: [], savePolicy: .allKeys)
        _ = try database.modify(saving: [note("r2", "again"), note("r5", "again")], deleting: [id("r3"), id("r7")], savePolicy: .allKeys)
        _ = try database.modify(saving: [note("r7", "back")], deleting: [id("r0")], savePolicy: .allKeys)

        let pages = try Self.allPages(database, since: nil, limit: limit)
        #expect(pages.dropLast().allSatisfy { $0.changed.count + $0.deleted.count == limit && $0.moreComing })
        let names = pages.flatMap { $0.changed.map(\.recordID.recordName) + $0.deleted.map(\.recordID.recordName) }
        #expect(names.count == 10 && Set(names).count == 10)
        #expect(Set(pages.flatMap(\.deleted).map(\.recordID.recordName)) == ["r0", "r3"])
        var mirror: [String: RemoteRecord] = [:]
        Self.apply(pages, to: &mirror)
        #expect(mirror.values.sorted { $0.recordID.recordName < $1.recordID.recordName }
            == (try database.records(in: CloudFixture.zone, ofType: "Note")))
    }

    @Test("Changes made between pages are picked up by the later pages; the mirror ends equal to the server", arguments: RemoteKind.tested)
    func changesBetweenPages(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: (0..<6).map { note("r\($0)") }, deleting: [], savePolicy: .allKeys)
        let first = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 2)
        #expect(first.changed.map(\.recordID.recordName) == ["r0", "r1"] && first.moreComing)

        // r0 was fetched and changes again; r3 was not fetched yet and is deleted; r4 is re-saved.
        _ = try database.modify(saving: [note("r0", "edited"), note("r4", "edited")], deleting: [id("r3")], savePolicy: .allKeys)
        let rest = try Self.allPages(database, since: first.token, limit: 2)
        let pages = rest.map { page in
            (page.changed.map(\.recordID.recordName) + page.deleted.map { "-" + $0.recordID.recordName }).joined(separator: " ")
        }
        // In server order: r2 and r5 kept their first saves; the request deleted r3 before
        // saving r0 and r4.
        #expect(pages == ["r2 r5", "r0 -r3", "r4"])
        var mirror: [String: RemoteRecord] = [:]
        Self.apply([first] + rest, to: &mirror)
        #expect(mirror.values.sorted { $0.recordID.recordName < $1.recordID.recordName }
            == (try database.records(in: CloudFixture.zone, ofType: "Note")))
    }

    @Test("A token resumes exactly where it left off", arguments: RemoteKind.tested)
    func resume(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
        let token = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).token
        let stored = ChangeToken(data: token.data)
        _ = try database.modify(saving: [note("b")], deleting: [], savePolicy: .allKeys)
        let next = try database.fetchChanges(in: CloudFixture.zone, since: stored, resultsLimit: 10)
        #expect(next.changed.map(\.recordID) == [id("b")])
    }

    @Test("A token of a deleted and recreated zone has expired; so has one of another zone or a made-up one", arguments: RemoteKind.tested)
    func expiredAfterRecreate(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: [note("a")], deleting: [], savePolicy: .allKeys)
        let token = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).token
        try database.deleteZone(CloudFixture.zone)
        try database.createZone(CloudFixture.zone)
        _ = try database.modify(saving: [note("b")], deleting: [], savePolicy: .allKeys)
        #expect(cloudError { try database.fetchChanges(in: CloudFixture.zone, since: token, resultsLimit: 10) } == .changeTokenExpired)

        let other = RecordZoneID(zoneName: "Other")
        try database.createZone(other)
        let fresh = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).token
        #expect(cloudError { try database.fetchChanges(in: other, since: fresh, resultsLimit: 10) } == .changeTokenExpired)
        let madeUp = ChangeToken(data: Data("nonsense".utf8))
        #expect(cloudError { try database.fetchChanges(in: CloudFixture.zone, since: madeUp, resultsLimit: 10) } == .changeTokenExpired)
    }

    @Test("Purging old deletions expires tokens from before them; later tokens and nil still work", arguments: RemoteKind.tested)
    func purge(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: [note("a"), note("b")], deleting: [], savePolicy: .allKeys)
        let beforeDelete = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10).token
        _ = try database.modify(saving: [], deleting: [id("a")], savePolicy: .allKeys)
        let afterDelete = try database.fetchChanges(in: CloudFixture.zone, since: beforeDelete, resultsLimit: 10).token
        fixture.clock.advance(by: 1000)
        #expect(try await fixture.purgeDeletions(before: CloudFixture.start) == 0)
        #expect(try await fixture.purgeDeletions(before: fixture.clock.now) == 1)

        #expect(cloudError { try database.fetchChanges(in: CloudFixture.zone, since: beforeDelete, resultsLimit: 10) } == .changeTokenExpired)
        #expect(try database.fetchChanges(in: CloudFixture.zone, since: afterDelete, resultsLimit: 10).changed.isEmpty)
        let all = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 10)
        #expect(all.changed.map(\.recordID) == [id("b")] && all.deleted.isEmpty)
    }

    @Test("A results limit below one is treated as one", arguments: RemoteKind.tested)
    func tinyLimit(kind: RemoteKind) async throws {
        let fixture = try await CloudFixture(kind: kind)
        let database = try fixture.client()
        _ = try database.modify(saving: [note("a"), note("b")], deleting: [], savePolicy: .allKeys)
        let page = try database.fetchChanges(in: CloudFixture.zone, since: nil, resultsLimit: 0)
        #expect(page.changed.count == 1 && page.moreComing)
    }
}
