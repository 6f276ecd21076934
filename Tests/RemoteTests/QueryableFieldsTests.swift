import CloudKitModel
import Foundation
import GRDB
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ProcessTestSupport
@testable import PostgresRecordStore
import RemoteTestSupport
@testable import SQLiteRecordStore
import ServerStore
import Synchronization
import Testing

/// `QueryableFields`: a store keeps the key rows of a field only once a query has named it.
/// A store never queried writes none; the first query that names a field finds every record
/// saved before it, and saves after it keep the keys (SQLite and PostgreSQL alike); on
/// PostgreSQL a save that races the first query, from another server process, is found too.
@Suite("QueryableFields", .serialized)
struct QueryableFieldsTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres

        static var tested: [Kind] { TestPostgres.url == nil ? [.sqlite] : allCases }

        var testDescription: String { rawValue }
    }

    static let account = "alice"
    static let zones = [RecordZoneID(zoneName: "Ideas"), RecordZoneID(zoneName: "Other")]

    /// A store of `kind` and a way to count its key rows and marks.
    struct Tested {
        var store: any RecordStore
        var keyRows: @Sendable () async throws -> Int
        var marks: @Sendable () async throws -> Int
    }

    static func tested(_ kind: Kind, clock: WallClock) async throws -> Tested {
        switch kind {
        case .sqlite:
            let store = try SQLiteRecordStore.inMemory(clock: clock)
            return Tested(
                store: store,
                keyRows: { try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recordField") ?? -1 } },
                marks: { try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM queryableField") ?? -1 } })
        case .postgres:
            let store = try await TestPostgres.store(clock: clock, maximumRecordsPerRequest: 1000)
            let count = { @Sendable (table: String) async throws -> Int in
                try await store.run { connection in
                    try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: Logger(label: "test"))
                        .collect().first!.decode(Int.self)
                }
            }
            return Tested(store: store, keyRows: { try await count("record_field") }, marks: { try await count("queryable_field") })
        }
    }

    @Test("A store never queried writes no key rows: saves, updates, deletes and change fetches leave the key table empty", arguments: Kind.tested)
    func neverQueriedWritesNoKeys(kind: Kind) async throws {
        let tested = try await Self.tested(kind, clock: ManualClock(start: CloudFixture.start).wallClock)
        let store = tested.store
        for zone in Self.zones { try await store.createZone(zone, account: Self.account) }
        let saved = try await Self.save((0..<30).map { Self.idea($0, zone: Self.zones[$0 % 2]) }, store)
        var changed = saved[3]
        changed.fields["title"] = .string("changed")
        _ = try await Self.save([changed], store)
        _ = try await store.modify(
            account: Self.account, saves: [], deletes: [RecordDeletion(saved[4].recordID)], atomic: false)
        _ = try await store.fetchChanges(account: Self.account, in: Self.zones[0], since: nil, resultsLimit: 100)
        #expect(try await tested.keyRows() == 0)
        #expect(try await tested.marks() == 0)

        // A query by name alone names no field, and marks none.
        let page = try await store.query(account: Self.account, StoredQuery(recordType: "Idea", zones: Self.zones, limit: 100))
        #expect(page.records.count == 29)
        #expect(try await tested.keyRows() == 0)

        // The first query naming `rank` fills one key a record that has it, and no other.
        _ = try await store.query(account: Self.account, StoredQuery(
            recordType: "Idea", zones: Self.zones, sorts: [.init(field: .field("rank"), ascending: true)], limit: 1))
        #expect(try await tested.keyRows() == 29)
        #expect(try await tested.marks() == 1)
    }

    @Test("A query over a field never named before finds every record saved before it, across zones and batches, and saves after it keep the keys", arguments: Kind.tested)
    func firstQueryFindsEveryRecord(kind: Kind) async throws {
        let clock = ManualClock(start: CloudFixture.start)
        let tested = try await Self.tested(kind, clock: clock.wallClock)
        let store = tested.store
        for zone in Self.zones { try await store.createZone(zone, account: Self.account) }
        try await store.createZone(Self.zones[0], account: "bob")
        // More than a PostgreSQL backfill reads at once, in two zones, with other types,
        // updates and deletions among them.
        var expected: [RecordID: RemoteRecord] = [:]
        for start in stride(from: 0, to: 1_300, by: 325) {
            for record in try await Self.save((start..<start + 325).map { Self.idea($0, zone: Self.zones[$0 % 2]) }, store) {
                expected[record.recordID] = record
            }
            clock.advance(by: 1000)
        }
        _ = try await Self.save([RemoteRecord(recordType: "Note", recordID: RecordID(recordName: "note", zoneID: Self.zones[0]), fields: ["rank": .int64(1)])], store)
        _ = try await store.modify(
            account: "bob", saves: [RecordSave(Self.idea(1, zone: Self.zones[0]), policy: .allKeys)], deletes: [], atomic: false)
        var renamed = try #require(expected[Self.idea(10, zone: Self.zones[0]).recordID])
        renamed.fields["rank"] = .int64(-5)
        for record in try await Self.save([renamed], store) { expected[record.recordID] = record }
        let doomed = Self.idea(11, zone: Self.zones[1]).recordID
        _ = try await store.modify(account: Self.account, saves: [], deletes: [RecordDeletion(doomed)], atomic: false)
        expected[doomed] = nil

        let byRank = StoredQuery(recordType: "Idea", zones: Self.zones, sorts: [.init(field: .field("rank"), ascending: true)], limit: 400)
        #expect(try await Self.all(byRank, store) == Self.sorted(expected.values, by: "rank"))

        // Saves after the first query keep the keys: new records, a changed value, a field
        // removed, a record of another type taking an Idea's name, a deletion.
        for record in try await Self.save((2_000..<2_040).map { Self.idea($0, zone: Self.zones[$0 % 2]) }, store) {
            expected[record.recordID] = record
        }
        var moved = try #require(expected[Self.idea(20, zone: Self.zones[0]).recordID])
        moved.fields["rank"] = .int64(1_000_000)
        var bare = try #require(expected[Self.idea(22, zone: Self.zones[0]).recordID])
        bare.fields["rank"] = nil
        var retyped = try #require(expected[Self.idea(24, zone: Self.zones[0]).recordID])
        retyped.recordType = "Note"
        for record in try await Self.save([moved, bare, retyped], store) { expected[record.recordID] = record }
        let gone = Self.idea(26, zone: Self.zones[0]).recordID
        _ = try await store.modify(account: Self.account, saves: [], deletes: [RecordDeletion(gone)], atomic: false)
        expected[gone] = nil
        let ideas = expected.values.filter { $0.recordType == "Idea" }
        #expect(try await Self.all(byRank, store) == Self.sorted(ideas, by: "rank"))
        let filtered = StoredQuery(
            recordType: "Idea", zones: Self.zones,
            filters: [.init(field: .field("rank"), comparator: .greaterThanOrEquals, value: .int64(1_000))], limit: 400)
        #expect(try await Self.all(filtered, store).count == ideas.filter { ($0.fields["rank"]?.int64Value ?? 0) >= 1_000 }.count)

        // A second field, named later, is found on every record too.
        let byTitle = StoredQuery(recordType: "Idea", zones: Self.zones, sorts: [.init(field: .field("title"), ascending: false)], limit: 400)
        #expect(try await Self.all(byTitle, store) == Self.sorted(ideas, by: "title").reversed())
        #expect(try await tested.marks() == 2)
    }

    @Test("On PostgreSQL a save from another server that read the marks before the first query committed them is found by that query",
          .enabled(if: TestPostgres.url != nil, "needs IDEABOX_TEST_POSTGRES_URL"))
    func raceWithFirstQuery() async throws {
        let stores = try await TestPostgres.stores(count: 2, clock: ManualClock(start: CloudFixture.start).wallClock)
        let (querying, saving) = (stores[0], stores[1])
        try await querying.createZone(Self.zones[0], account: Self.account)
        _ = try await Self.save((0..<5).map { Self.idea($0, zone: Self.zones[0]) }, querying)
        let logger = Logger(label: "test")
        // The other server's save, halfway: its zone locked and the marks read (none), its
        // record written without a key, not yet committed. Its name sorts before the others,
        // so a backfill that read on without waiting for it would miss it. (The key rows'
        // reference to the zone waits for the lock too, but only after the first batch's read.)
        let query = StoredQuery(
            recordType: "Idea", zones: Self.zones.prefix(1).map { $0 },
            filters: [.init(field: .field("rank"), comparator: .greaterThanOrEquals, value: .int64(0))], limit: 100)
        let found = try await saving.run { connection in
            try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
            let xid = try await connection.query("SELECT pg_current_xact_id()::text", logger: logger).collect().first!.decode(String.self)
            let zone = try await connection.query(
                "SELECT id FROM zone WHERE account = \(Self.account) ORDER BY id FOR UPDATE", logger: logger).collect().first!.decode(Int64.self)
            let marks = try await connection.query("SELECT count(*) FROM queryable_field", logger: logger).collect().first!.decode(Int.self)
            #expect(marks == 0)
            try await connection.query(
                """
                INSERT INTO record (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields)
                VALUES (\(zone), 'a0racing', 100, 'Idea', 'tag', 0, 0, '{"rank":{"int64":7}}')
                """, logger: logger)
            let answer = Task { try await querying.query(account: Self.account, query) }
            // The query's backfill waits for this save's lock before it reads the records.
            do {
                try await Poll.until("the backfill waits for the racing save's lock", timeout: .seconds(30)) {
                    try await connection.query(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted AND transactionid::text = \(xid)",
                        logger: logger
                    ).collect().first!.decode(Int.self) > 0
                }
            } catch {
                try await connection.query("ROLLBACK", logger: logger)
                throw error
            }
            try await connection.query("COMMIT", logger: logger)
            return try await answer.value
        }
        #expect(Set(found.records.map(\.recordID.recordName)) == Set((0..<5).map { Self.idea($0, zone: Self.zones[0]).recordID.recordName } + ["a0racing"]))
    }

    @Test("On SQLite a backfill keys a batch per write transaction: another account's save commits between batches, and saves, updates and deletes on either side of its position leave every key right")
    func sqliteBackfillInBatches() async throws {
        var store = try SQLiteRecordStore.inMemory(clock: ManualClock(start: CloudFixture.start).wallClock)
        store.fillBatch = (records: 40, bytes: 1 << 20)
        for zone in Self.zones { try await store.createZone(zone, account: Self.account) }
        try await store.createZone(Self.zones[0], account: "bob")
        var saved: [RecordID: RemoteRecord] = [:]
        for record in try await Self.save((100..<400).map { Self.idea($0, zone: Self.zones[$0 % 2]) }, store) {
            saved[record.recordID] = record
        }
        let expected = Mutex(saved)
        let batches = Mutex<[String]>([])
        let writing = store
        store.queryableFills.betweenBatches = { fill in
            let (zone, after) = (fill.zones[0], fill.after)
            let count = batches.withLock { $0.append(after); return $0.count }
            // The mark is committed, not ready, while the backfill is under way.
            let marks = try await writing.writer.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM queryableField WHERE account = ? AND NOT ready", arguments: [Self.account])
            }
            #expect(marks == 1)
            guard count == 2 else { return }
            // Bob's save takes the write lock and commits while alice's backfill is halfway.
            let bobs = try await writing.modify(
                account: "bob", saves: [RecordSave(Self.idea(7, zone: Self.zones[0]), policy: .allKeys)], deletes: [], atomic: false)
            #expect(bobs.saved.count == 1)
            // Alice's writes behind the backfill's position (names before `after` in its zone,
            // and the whole of a zone it has not reached) and ahead of it.
            let zoneName = try #require(Self.zones.first { zoneRowID in
                (try? writing.writer.read { db in
                    try Int64.fetchOne(db, sql: "SELECT id FROM zone WHERE account = ? AND name = ?", arguments: [Self.account, zoneRowID.zoneName])
                }) == zone
            })
            var changes: [RemoteRecord] = []
            var deletions: [RecordID] = []
            expected.withLock { records in
                let here = records.values.filter { $0.recordID.zoneID == zoneName && $0.recordType == "Idea" }
                let behind = here.filter { $0.recordID.recordName < after }.sorted { $0.recordID.recordName < $1.recordID.recordName }
                let ahead = here.filter { $0.recordID.recordName > after }.sorted { $0.recordID.recordName < $1.recordID.recordName }
                var movedBehind = behind[1], movedAhead = ahead[1], sameRankAhead = ahead[3], retypedAhead = ahead[5], bareBehind = behind[3]
                movedBehind.fields["rank"] = .int64(-7)
                movedAhead.fields["rank"] = .int64(-8)
                sameRankAhead.fields["title"] = .string("retitled")
                retypedAhead.recordType = "Note"
                bareBehind.fields["rank"] = nil
                changes = [movedBehind, movedAhead, sameRankAhead, retypedAhead, bareBehind,
                           Self.idea(5, zone: zoneName), Self.idea(900, zone: zoneName)]
                deletions = [behind[2].recordID, ahead[2].recordID]
            }
            let result = try await writing.modify(
                account: Self.account, saves: changes.map { RecordSave($0, policy: .allKeys) },
                deletes: deletions.map { RecordDeletion($0) }, atomic: true, device: nil)
            #expect(result.failures.isEmpty)
            expected.withLock { records in
                for record in result.saved { records[record.recordID] = record }
                for recordID in deletions { records[recordID] = nil }
            }
        }

        let byRank = StoredQuery(recordType: "Idea", zones: Self.zones, sorts: [.init(field: .field("rank"), ascending: true)], limit: 400)
        let found = try await Self.all(byRank, store)
        let ideas = expected.withLock { $0.values.filter { $0.recordType == "Idea" } }
        #expect(found == Self.sorted(ideas, by: "rank"))
        // 300 records, 40 a batch: 8 batches, 4 in each zone.
        #expect(batches.withLock { $0.count } == 8)
        let keyRows = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recordField") }
        #expect(keyRows == ideas.filter { $0.fields["rank"] != nil }.count)
        let notReady = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM queryableField WHERE NOT ready") }
        #expect(notReady == 0)
        // Bob's record had no mark of his own: no key.
        let bobsKeys = try await store.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM recordField f JOIN zone z ON z.id = f.zoneId WHERE z.account = 'bob'")
        }
        #expect(bobsKeys == 0)
    }

    @Test("On SQLite a backfill that fails halfway leaves its mark not ready, saves keep the keys meanwhile, and the next query naming the field does it again and answers every record")
    func sqliteFailedBackfillIsRedone() async throws {
        var store = try SQLiteRecordStore.inMemory(clock: ManualClock(start: CloudFixture.start).wallClock)
        store.fillBatch = (records: 25, bytes: 1 << 20)
        for zone in Self.zones { try await store.createZone(zone, account: Self.account) }
        var expected: [RecordID: RemoteRecord] = [:]
        for record in try await Self.save((0..<200).map { Self.idea($0, zone: Self.zones[$0 % 2]) }, store) {
            expected[record.recordID] = record
        }
        struct Interrupted: Error {}
        store.queryableFills.betweenBatches = { _ in throw Interrupted() }
        let byRank = StoredQuery(recordType: "Idea", zones: Self.zones, sorts: [.init(field: .field("rank"), ascending: true)], limit: 400)
        await #expect(throws: Interrupted.self) { try await store.query(account: Self.account, byRank) }
        store.queryableFills.betweenBatches = nil
        let ready = try await store.writer.read { db in try Bool.fetchOne(db, sql: "SELECT ready FROM queryableField WHERE fieldName = 'rank'") }
        #expect(ready == false)
        let partial = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recordField") }
        #expect(partial == 25)
        // A save while the mark is not ready keeps its keys; the next query fills the rest.
        for record in try await Self.save([Self.idea(1_000, zone: Self.zones[0]), Self.idea(1_001, zone: Self.zones[1])], store) {
            expected[record.recordID] = record
        }
        #expect(try await Self.all(byRank, store) == Self.sorted(expected.values, by: "rank"))
        let keyRows = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recordField") }
        #expect(keyRows == 202)
        let readyNow = try await store.writer.read { db in try Bool.fetchOne(db, sql: "SELECT ready FROM queryableField WHERE fieldName = 'rank'") }
        #expect(readyNow == true)
    }

    @Test("A store key holds at most 64 marks, whether their record type has records or not: a query naming a new field beyond them is LimitReached and marks nothing; fields marked before still answer", arguments: Kind.tested)
    func marksAreBounded(kind: Kind) async throws {
        let tested = try await Self.tested(kind, clock: ManualClock(start: CloudFixture.start).wallClock)
        let store = tested.store
        for zone in Self.zones { try await store.createZone(zone, account: Self.account) }
        try await store.createZone(Self.zones[0], account: "bob")
        _ = try await Self.save((0..<20).map { Self.idea($0, zone: Self.zones[$0 % 2]) }, store)
        func query(_ type: String, _ fields: some Sequence<String>, account: String = Self.account) async throws -> StoredQueryPage {
            try await store.query(account: account, StoredQuery(
                recordType: type, zones: [Self.zones[0]],
                filters: fields.map { .init(field: .field($0), comparator: .greaterThanOrEquals, value: .int64(0)) }, limit: 100))
        }
        _ = try await query("Idea", ["rank", "title"])
        for block in 0..<4 { _ = try await query("Ghost", (0..<16).map { "g\(block * 16 + $0)" }.prefix(block == 3 ? 14 : 16)) }
        #expect(try await tested.marks() == 64)
        for (type, field) in [("Idea", "other"), ("Ghost", "g99"), ("Unknown", "rank")] {
            await #expect(throws: QueryableFields.LimitReached(maximum: 64, unmarked: [field])) { try await query(type, [field]) }
        }
        // One new name among marked ones is refused whole.
        await #expect(throws: QueryableFields.LimitReached(maximum: 64, unmarked: ["extra"])) { try await query("Idea", ["rank", "extra"]) }
        #expect(try await tested.marks() == 64)
        #expect(try await query("Idea", ["rank"]).records.count == 10)
        #expect(try await query("Ghost", ["g0", "g61"]).records.isEmpty)
        // The bound is the store key's own: bob's first query marks his.
        #expect(try await query("Idea", ["rank"], account: "bob").records.isEmpty)
        #expect(try await tested.marks() == 65)
    }

    @Test("Issue 60: an account deleted takes its marks with it: its namesake made again starts with none, and its first query is not refused for the old one's 64", arguments: Kind.tested)
    func anAccountsMarksGoWithIt(kind: Kind) async throws {
        let tested = try await Self.tested(kind, clock: ManualClock(start: CloudFixture.start).wallClock)
        let store = tested.store
        func query(_ type: String, _ fields: some Sequence<String>) async throws -> StoredQueryPage {
            try await store.query(account: Self.account, StoredQuery(
                recordType: type, zones: [Self.zones[0]],
                filters: fields.map { .init(field: .field($0), comparator: .greaterThanOrEquals, value: .int64(0)) }, limit: 100))
        }
        for zone in Self.zones { try await store.createZone(zone, account: Self.account) }
        for block in 0..<4 { _ = try await query("Ghost", (0..<16).map { "g\(block * 16 + $0)" }) }
        #expect(try await tested.marks() == 64)

        _ = try await store.deleteAccount(Self.account)
        #expect(try await tested.marks() == 0)
        for zone in Self.zones { try await store.createZone(zone, account: Self.account) }
        _ = try await Self.save((0..<20).map { Self.idea($0, zone: Self.zones[$0 % 2]) }, store)
        #expect(try await query("Idea", ["rank"]).records.count == 10)
        #expect(try await tested.marks() == 1)
    }

    // MARK: Helpers

    static func idea(_ index: Int, zone: RecordZoneID) -> RemoteRecord {
        RemoteRecord(
            recordType: "Idea", recordID: RecordID(recordName: String(format: "i%05d", index), zoneID: zone),
            fields: ["rank": .int64(Int64((index * 7) % 1_500)), "title": .string("idea \(index)")])
    }

    static func save(_ records: [RemoteRecord], _ store: any RecordStore) async throws -> [RemoteRecord] {
        let result = try await store.modify(account: account, saves: records.map { RecordSave($0, policy: .allKeys) }, deletes: [], atomic: true)
        try #require(result.failures.isEmpty)
        return result.saved
    }

    /// Every page of `query`, as record names with their zones.
    static func all(_ query: StoredQuery, _ store: any RecordStore) async throws -> [String] {
        var query = query
        var names: [String] = []
        while true {
            let page = try await store.query(account: account, query)
            names += page.records.map { "\($0.recordID.zoneID.zoneName)/\($0.recordID.recordName)" }
            guard let next = page.next else { return names }
            query.after = next
        }
    }

    /// `records` as `all` lists them for an ascending sort by `field` (those without it last).
    static func sorted(_ records: some Sequence<RemoteRecord>, by field: String) -> [String] {
        records.sorted { left, right in
            switch (left.fields[field], right.fields[field]) {
            case let (l?, r?) where StoredQuery.compare(l, r) != 0: StoredQuery.compare(l, r)! < 0
            case (_?, nil): true
            case (nil, _?): false
            default: (left.recordID.recordName, left.recordID.zoneID.zoneName) < (right.recordID.recordName, right.recordID.zoneID.zoneName)
            }
        }.map { "\($0.recordID.zoneID.zoneName)/\($0.recordID.recordName)" }
    }
}

private extension FieldValue {
    var int64Value: Int64? { if case .int64(let number) = self { number } else { nil } }
}
