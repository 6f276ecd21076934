import CloudKitModel
import Foundation
import IdeaBoxFoundation
import RemoteTestSupport
import SQLiteRecordStore
import ServerStore
import Testing

/// `RecordZoneStore.query` filters and sorts in SQL exactly as the rules of
/// `StoredQuery.admits` and `StoredQuery.compare` say (the rules `records/query` applied in
/// memory before the store did), SQLite and PostgreSQL alike, and its pages, each starting
/// where the last ended, make the whole answer.
///
/// The records hold what is hard to compare in SQL: integers, doubles and timestamps that
/// compare as numbers, -0 and +0, NaN (equal to every number), strings that are equal only
/// canonically (é and e + U+0301) and strings longer than a key holds, bytes, lists, values of
/// the wrong type, and fields some records lack.
@Suite("RecordZoneStore.query", .serialized)
struct StoredQueryTests {
    /// The stores this run can test.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres

        static var tested: [Kind] { TestPostgres.url == nil ? [.sqlite] : allCases }

        var testDescription: String { rawValue }

        func makeStore(clock: WallClock) async throws -> any RecordStore {
            switch self {
            case .sqlite: try SQLiteRecordStore.inMemory(clock: clock)
            case .postgres: try await TestPostgres.store(clock: clock, maximumRecordsPerRequest: 400)
            }
        }
    }

    static let account = "alice"
    static let zones = [RecordZoneID(zoneName: "Ideas"), RecordZoneID(zoneName: "Other")]
    /// A string longer than a key holds; the records' `long` values begin with it.
    static let longPrefix = String(repeating: "長い", count: 200)

    @Test("Every filter admits exactly the records the rules admit, in every segment and page", arguments: Kind.tested)
    func filters(kind: Kind) async throws {
        let (store, records) = try await Self.seeded(kind)
        let number = { (value: Any) -> FieldValue in
            switch value {
            case let value as Int: .int64(Int64(value))
            case let value as Double: .double(value)
            default: .timestamp(Timestamp(milliseconds: value as! Int64))
            }
        }
        let filters: [StoredQuery.Filter] = [
            .init(field: .field("n"), comparator: .equals, value: number(3)),
            .init(field: .field("n"), comparator: .equals, value: number(3.0)),
            .init(field: .field("n"), comparator: .equals, value: number(Int64(5))),
            .init(field: .field("n"), comparator: .equals, value: .double(-0.0)),
            .init(field: .field("n"), comparator: .notEquals, value: number(3)),
            .init(field: .field("n"), comparator: .lessThan, value: number(2.5)),
            .init(field: .field("n"), comparator: .lessThanOrEquals, value: number(3)),
            .init(field: .field("n"), comparator: .greaterThan, value: number(-1)),
            .init(field: .field("n"), comparator: .greaterThanOrEquals, value: number(0)),
            .init(field: .field("n"), comparator: .in, value: .list([number(1), number(3), number(5.5)])),
            .init(field: .field("n"), comparator: .notIn, value: .list([number(1), number(3)])),
            .init(field: .field("n"), comparator: .equals, value: .string("3")),
            .init(field: .field("n"), comparator: .notEquals, value: .string("x")),
            .init(field: .field("x"), comparator: .equals, value: number(1)),
            .init(field: .field("x"), comparator: .lessThan, value: number(1)),
            .init(field: .field("x"), comparator: .lessThanOrEquals, value: number(1)),
            .init(field: .field("x"), comparator: .greaterThan, value: number(1)),
            .init(field: .field("x"), comparator: .greaterThanOrEquals, value: number(2)),
            .init(field: .field("x"), comparator: .notEquals, value: number(1)),
            .init(field: .field("x"), comparator: .equals, value: .double(.nan)),
            .init(field: .field("x"), comparator: .lessThan, value: .double(.nan)),
            .init(field: .field("x"), comparator: .in, value: .list([.double(.nan)])),
            .init(field: .field("x"), comparator: .notIn, value: .list([number(2)])),
            .init(field: .field("s"), comparator: .equals, value: .string("é")),
            .init(field: .field("s"), comparator: .equals, value: .string("e\u{301}")),
            .init(field: .field("s"), comparator: .lessThan, value: .string("b")),
            .init(field: .field("s"), comparator: .greaterThan, value: .string("Z")),
            .init(field: .field("s"), comparator: .beginsWith, value: .string("e")),
            .init(field: .field("s"), comparator: .beginsWith, value: .string("é")),
            .init(field: .field("s"), comparator: .beginsWith, value: .string("靈")),
            .init(field: .field("s"), comparator: .notBeginsWith, value: .string("a")),
            .init(field: .field("s"), comparator: .in, value: .list([.string("apple"), .string("é")])),
            .init(field: .field("s"), comparator: .notIn, value: .list([.string("apple"), .string("é")])),
            .init(field: .field("s"), comparator: .equals, value: number(5)),
            .init(field: .field("long"), comparator: .equals, value: .string(Self.longPrefix + "b")),
            .init(field: .field("long"), comparator: .lessThan, value: .string(Self.longPrefix + "b")),
            .init(field: .field("long"), comparator: .greaterThanOrEquals, value: .string(Self.longPrefix + "b")),
            .init(field: .field("long"), comparator: .notEquals, value: .string(Self.longPrefix + "b")),
            .init(field: .field("long"), comparator: .beginsWith, value: .string(Self.longPrefix + "c")),
            .init(field: .field("b"), comparator: .equals, value: .bytes(Data([1, 2, 3]))),
            .init(field: .field("b"), comparator: .notEquals, value: .bytes(Data([1, 2, 3]))),
            .init(field: .field("b"), comparator: .lessThan, value: .bytes(Data([1, 2, 3]))),
            .init(field: .field("tags"), comparator: .listContains, value: .string("a")),
            .init(field: .field("tags"), comparator: .notListContains, value: .string("a")),
            .init(field: .field("tags"), comparator: .equals, value: .string("a")),
            .init(field: .field("tags"), comparator: .notEquals, value: .string("a")),
            .init(field: .recordName, comparator: .equals, value: .string("r05")),
            .init(field: .recordName, comparator: .lessThan, value: .string("r10")),
            .init(field: .recordName, comparator: .in, value: .list([.string("r03"), .string("r30"), number(3)])),
            .init(field: .recordName, comparator: .beginsWith, value: .string("r1")),
            .init(field: .createdTimestamp, comparator: .greaterThan, value: number(Int64(CloudFixture.start.milliseconds + 20_000))),
            .init(field: .modifiedTimestamp, comparator: .lessThanOrEquals, value: number(Int64(CloudFixture.start.milliseconds + 10_000))),
            .init(field: .createdTimestamp, comparator: .equals, value: .string("soon")),
            .init(field: .createdTimestamp, comparator: .notEquals, value: .string("soon")),
        ]
        let sortings: [[StoredQuery.Sort]] = [[], [.init(field: .field("n"), ascending: true)], [.init(field: .createdTimestamp, ascending: false)]]
        for filter in filters {
            for sorts in sortings {
                try await Self.expectPages(store, records: records, filters: [filter], sorts: sorts)
            }
        }
        try await Self.expectPages(
            store, records: records,
            filters: [.init(field: .field("n"), comparator: .greaterThan, value: number(0)), .init(field: .field("s"), comparator: .lessThan, value: .string("z"))],
            sorts: [.init(field: .field("s"), ascending: false)])
    }

    @Test("Every sort orders as the rules do, records without the field last, then by name and zone, page after page", arguments: Kind.tested)
    func sorts(kind: Kind) async throws {
        let (store, records) = try await Self.seeded(kind)
        let sortings: [[StoredQuery.Sort]] = [
            [.init(field: .field("n"), ascending: true)], [.init(field: .field("n"), ascending: false)],
            [.init(field: .field("s"), ascending: true)], [.init(field: .field("s"), ascending: false)],
            [.init(field: .field("b"), ascending: true)], [.init(field: .field("tags"), ascending: false)],
            [.init(field: .field("absent"), ascending: true)],
            [.init(field: .createdTimestamp, ascending: true)], [.init(field: .modifiedTimestamp, ascending: false)],
            [.init(field: .recordName, ascending: false)],
            [.init(field: .field("n"), ascending: true), .init(field: .field("s"), ascending: false)],
            [.init(field: .field("s"), ascending: true), .init(field: .field("n"), ascending: true)],
            [.init(field: .field("tier"), ascending: true), .init(field: .field("n"), ascending: false), .init(field: .recordName, ascending: true)],
            [.init(field: .modifiedTimestamp, ascending: true), .init(field: .field("n"), ascending: false)],
        ]
        for sorts in sortings {
            try await Self.expectPages(store, records: records, filters: [], sorts: sorts)
        }
    }

    @Test("A zone that does not exist is ZONE_NOT_FOUND; another account's records and other types never appear", arguments: Kind.tested)
    func zonesAndAccounts(kind: Kind) async throws {
        let (store, _) = try await Self.seeded(kind)
        await #expect(throws: CloudError.zoneNotFound) {
            try await store.query(account: Self.account, StoredQuery(recordType: "Idea", zones: [RecordZoneID(zoneName: "Nope")], limit: 10))
        }
        let bobs = try await store.query(account: "bob", StoredQuery(recordType: "Idea", zones: [Self.zones[0]], limit: 100))
        #expect(bobs.records.map(\.recordID.recordName) == ["b1"])
    }

    @Test("A filter its SQL cannot decide checks at most QueryPager.checkedPerZone records a page: a page that finds too few ends early, with a marker from where it stopped", arguments: Kind.tested)
    func checkingIsBoundedPerPage(kind: Kind) async throws {
        let store = try await kind.makeStore(clock: ManualClock(start: CloudFixture.start).wallClock)
        let zone = Self.zones[0]
        try await store.createZone(zone, account: Self.account)
        // 700 records the filter refuses, then (by name) two it admits.
        let names = (0..<700).map { String(format: "r%04d", $0) } + ["z1", "z2"]
        for batch in stride(from: 0, to: names.count, by: 200) {
            let saves = names[batch..<min(batch + 200, names.count)].map { name in
                RecordSave(RemoteRecord(
                    recordType: "Idea", recordID: RecordID(recordName: name, zoneID: zone),
                    fields: ["tags": .list([.string(name.hasPrefix("z") ? "match" : "other")])]), policy: .allKeys)
            }
            _ = try await store.modify(account: Self.account, saves: saves, deletes: [], atomic: false)
        }
        var query = StoredQuery(
            recordType: "Idea", zones: [zone], filters: [.init(field: .field("tags"), comparator: .listContains, value: .string("match"))], limit: 3)
        var pages: [[String]] = []
        while pages.count <= names.count {
            let page = try await store.query(account: Self.account, query)
            pages.append(page.records.map(\.recordID.recordName))
            guard let next = page.next else { break }
            query.after = next
        }
        #expect(Array(pages.joined()) == ["z1", "z2"], "\(pages)")
        // 702 records checked at most 256 a page: two empty pages, then the two found.
        let checks = (names.count + QueryPager.checkedPerZone - 1) / QueryPager.checkedPerZone
        #expect(pages.count == checks, "\(pages)")
        #expect(pages.dropLast().allSatisfy { $0.isEmpty }, "\(pages)")
    }

    /// Pages through the query of `filters` and `sorts` over both zones, three records at a
    /// time, and expects the pages to make what the rules give.
    static func expectPages(
        _ store: any RecordStore, records: [RemoteRecord], filters: [StoredQuery.Filter], sorts: [StoredQuery.Sort],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var query = StoredQuery(recordType: "Idea", zones: zones, filters: filters, sorts: sorts, limit: 3)
        let expected = records.filter(query.admits).sorted { expectedOrder($0, $1, sorts: sorts) }.map(\.recordID)
        var found: [RecordID] = []
        for _ in 0...expected.count {
            let page = try await store.query(account: account, query)
            #expect(page.records.count <= 3, sourceLocation: sourceLocation)
            found += page.records.map(\.recordID)
            guard let next = page.next else { break }
            query.after = next
        }
        #expect(found == expected, "\(filters) \(sorts)", sourceLocation: sourceLocation)
    }

    /// The order `records/query` gave before the store sorted: by each sort (records without
    /// the field after those with it, values that do not compare as equals), then by name,
    /// then by zone name.
    static func expectedOrder(_ left: RemoteRecord, _ right: RemoteRecord, sorts: [StoredQuery.Sort]) -> Bool {
        for sort in sorts {
            switch (sort.field.value(of: left), sort.field.value(of: right)) {
            case (nil, nil): continue
            case (nil, _): return false
            case (_, nil): return true
            case let (a?, b?):
                guard let order = StoredQuery.compare(a, b), order != 0 else { continue }
                return sort.ascending ? order < 0 : order > 0
            }
        }
        if left.recordID.recordName != right.recordID.recordName { return left.recordID.recordName < right.recordID.recordName }
        return left.recordID.zoneID.zoneName < right.recordID.zoneID.zoneName
    }

    /// A store with Ideas over two zones (some of the same name in both, some saved twice), a
    /// Note, and bob's Idea; each save a second after the one before. Returns alice's Ideas
    /// as stored.
    static func seeded(_ kind: Kind) async throws -> (any RecordStore, [RemoteRecord]) {
        let clock = ManualClock(start: CloudFixture.start)
        let store = try await kind.makeStore(clock: clock.wallClock)
        for zone in zones { try await store.createZone(zone, account: account) }
        try await store.createZone(zones[0], account: "bob")
        let numbers: [FieldValue?] = [
            .int64(3), .double(3.0), .timestamp(Timestamp(milliseconds: 5)), .double(-0.0), .int64(0), .int64(-7), .double(2.5),
            .double(5.5), .int64(1), nil, .double(-.infinity), .double(.infinity), .int64(1 << 60), .double(0.1), .int64(2),
        ]
        let strings: [FieldValue?] = [
            .string("apple"), .string("é"), .string("e\u{301}"), .string("e"), .string("Zebra"), .string("靈感"), .string("靈魂"), nil,
            .string(""), .string("a\u{20DD}"), .string("🦄 unicorn"), .string("banana"), .string(String(repeating: "x", count: 1500)),
            .string(String(repeating: "y", count: 1500) + "1"),
        ]
        let others: [FieldValue?] = [.double(.nan), .int64(1), .int64(2), .string("1"), nil, .double(0.5)]
        var saved: [RecordID: RemoteRecord] = [:]
        for index in 0..<48 {
            let zone = zones[index % 3 == 2 ? 1 : 0]
            var fields: [String: FieldValue] = [:]
            fields["n"] = numbers[index % numbers.count]
            fields["s"] = strings[(index * 5) % strings.count]
            fields["x"] = others[index % others.count]
            fields["tier"] = .int64(Int64(index % 4))
            if index % 4 == 0 { fields["b"] = .bytes(Data([1, 2, UInt8(index % 8 == 0 ? 3 : 4)])) }
            if index % 5 == 1 { fields["tags"] = .list([.string(index % 2 == 0 ? "a" : "b"), .string("c")]) }
            if index % 6 == 3 { fields["long"] = .string(longPrefix + ["a", "b", "c", "cd"][index % 4]) }
            let name = String(format: "r%02d", index % 40)
            let record = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: name, zoneID: zone), fields: fields)
            for record in try await store.modify(account: account, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: false).saved {
                saved[record.recordID] = record
            }
            clock.advance(by: 1000)
        }
        let note = RemoteRecord(recordType: "Note", recordID: RecordID(recordName: "n1", zoneID: zones[0]), fields: ["n": .int64(3)])
        let bobs = RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: "b1", zoneID: zones[0]), fields: ["n": .int64(3)])
        _ = try await store.modify(account: account, saves: [RecordSave(note, policy: .allKeys)], deletes: [], atomic: false)
        _ = try await store.modify(account: "bob", saves: [RecordSave(bobs, policy: .allKeys)], deletes: [], atomic: false)
        // An update after the fact moves a record's modification only.
        var touched = try #require(saved[RecordID(recordName: "r04", zoneID: zones[0])])
        touched.fields["n"] = .int64(4)
        let updated = try await store.modify(account: account, saves: [RecordSave(touched, policy: .allKeys)], deletes: [], atomic: false).saved
        saved[touched.recordID] = try #require(updated.first)
        return (store, Array(saved.values))
    }
}
