import CloudKitModel
import Foundation
import IdeaBoxFoundation
import ProcessTestSupport
import RemoteTestSupport
@testable import SQLiteRecordStore
import ServerStore
import Synchronization
import Testing

/// `QueryableFills` (issue 60, item 4): the first queries of a field share one fill, which
/// runs in a task of its own a batch at a time; a query waits for it at most its deadline,
/// and a fill passes a store's gate one batch at a time, so that other accounts' calls go on
/// while it runs. SQLite and PostgreSQL alike.
@Suite("QueryableFills (issue 60, item 4)", .serialized, .timeLimit(.minutes(10)))
struct QueryableFillsTests {
    typealias Kind = QueryableFieldsTests.Kind
    typealias Fields = QueryableFieldsTests

    /// Alice's Ideas by rank, the query every test sends.
    static let byRank = StoredQuery(recordType: "Idea", zones: Fields.zones, sorts: [.init(field: .field("rank"), ascending: true)], limit: 400)

    @Test("Eight first queries of one field at once share one fill, and each is answered every record", arguments: Kind.tested)
    func firstQueriesShareOneFill(kind: Kind) async throws {
        let (store, expected) = try await Self.seeded(kind)
        let fills = store.queryableFills
        let (held, never) = (Latch(), Latch())
        defer {
            held.open()
            never.open()
        }
        fills.deadline = { _ in await never.opened() }
        fills.betweenBatches = { _ in await held.opened() }
        let answers = Task {
            try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<8 { group.addTask { try await Fields.all(Self.byRank, store) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await Poll.until("eight queries wait for one fill") { fills.counts == (running: 1, waiting: 8) }
        #expect(fills.started == 1)
        held.open()
        let pages = try await answers.valueUnlessCancelled
        #expect(pages.count == 8 && pages.allSatisfy { $0 == expected })
        #expect(fills.started == 1)
        #expect(fills.counts == (running: 0, waiting: 0))
    }

    @Test("A request that waits its deadline for a fill held between its batches is StillFilling; the fill goes on, a query meanwhile joins it, and is answered every record", arguments: Kind.tested)
    func deadlineThenJoin(kind: Kind) async throws {
        let (store, expected) = try await Self.seeded(kind)
        let fills = store.queryableFills
        let (held, due, never) = (Latch(), Latch(), Latch())
        defer {
            held.open()
            never.open()
        }
        fills.betweenBatches = { _ in await held.opened() }
        fills.deadline = { _ in await due.opened() }
        // A request's wait (the web services give `QueryableFills.waitLimit`); a store's own
        // query waits for the fill however long it takes.
        let first = Task {
            try await store.makeQueryable(["rank"], of: "Idea", account: Fields.account, waitingAtMost: QueryableFills.waitLimit)
        }
        try await Poll.until("the query waits for the fill, held after its first batch") { fills.counts.waiting == 1 && held.waiting == 1 }
        due.open()
        await #expect(throws: QueryableFills.StillFilling(recordType: "Idea", fieldNames: ["rank"])) { try await first.valueUnlessCancelled }
        #expect(fills.counts == (running: 1, waiting: 0))

        fills.deadline = { _ in await never.opened() }
        let again = Task { try await Fields.all(Self.byRank, store) }
        try await Poll.until("the query sent again joins the fill") { fills.counts == (running: 1, waiting: 1) }
        held.open()
        #expect(try await again.valueUnlessCancelled == expected)
        #expect(fills.started == 1)
    }

    @Test("A query naming some of the fields a running fill keys waits for that fill, not one of its own", arguments: Kind.tested)
    func queryOfFewerFieldsJoins(kind: Kind) async throws {
        let (store, expected) = try await Self.seeded(kind)
        let fills = store.queryableFills
        let (held, never) = (Latch(), Latch())
        defer {
            held.open()
            never.open()
        }
        fills.deadline = { _ in await never.opened() }
        fills.betweenBatches = { _ in await held.opened() }
        var byRankAndTitle = Self.byRank
        byRankAndTitle.sorts.append(.init(field: .field("title"), ascending: true))
        let both = Task { try await Fields.all(byRankAndTitle, store) }
        try await Poll.until("the query of rank and title waits for its fill") { fills.counts == (running: 1, waiting: 1) }
        let rank = Task { try await Fields.all(Self.byRank, store) }
        try await Poll.until("the query of rank waits for the same fill") { fills.counts == (running: 1, waiting: 2) }
        held.open()
        #expect(try await rank.valueUnlessCancelled == expected)
        #expect(try await both.valueUnlessCancelled.count == expected.count)
        #expect(fills.started == 1)
    }

    @Test("A query cancelled while it waits (its client gone) stops waiting; the fill goes on to its end, and the next query finds the field ready")
    func cancelledQueryLeavesTheFill() async throws {
        let (store, expected) = try await Self.seeded(.sqlite)
        let fills = store.queryableFills
        let (held, never) = (Latch(), Latch())
        defer {
            held.open()
            never.open()
        }
        fills.deadline = { _ in await never.opened() }
        fills.betweenBatches = { _ in await held.opened() }
        let waiting = Task { try await store.query(account: Fields.account, Self.byRank) }
        try await Poll.until("the query waits for the fill") { fills.counts.waiting == 1 && held.waiting == 1 }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.valueUnlessCancelled }
        #expect(fills.counts == (running: 1, waiting: 0))
        held.open()
        try await Poll.until("the fill has ended") { fills.counts.running == 0 }
        #expect(try await Fields.all(Self.byRank, store) == expected)
        #expect(fills.started == 1)
    }

    @Test("Through a gate of one place, a fill holds it for one batch at a time: while it is under way another account's calls pass", arguments: Kind.tested)
    func fillPassesTheGateABatchAtATime(kind: Kind) async throws {
        let (store, expected) = try await Self.seeded(kind)
        let gated = GatedRecordStore(store, limit: 1)
        let fills = gated.queryableFills
        let (held, never) = (Latch(), Latch())
        defer {
            held.open()
            never.open()
        }
        fills.deadline = { _ in await never.opened() }
        let batches = Mutex(0)
        fills.betweenBatches = { _ in
            if batches.withLock({ $0 += 1; return $0 }) == 2 { await held.opened() }
        }
        let query = Task { try await Fields.all(Self.byRank, gated) }
        try await Poll.until("the fill is held after its second batch") { held.waiting == 1 }
        // The query waits for the fill, the fill between two batches: neither holds the place.
        #expect(gated.gate.counts == (inside: 0, waiting: 0))
        #expect(try await gated.zones(account: "bob") == [Fields.zones[0]])
        #expect(try await gated.recordCount(account: "bob") == 0)
        held.open()
        #expect(try await query.valueUnlessCancelled == expected)
        #expect(batches.withLock { $0 } >= 3)
    }

    /// A store of `kind` holding 1,200 Ideas of alice in two zones, more than one batch of a
    /// fill on either store (SQLite's made 100 records), and an empty zone of bob's; and
    /// alice's Ideas as `Fields.all` lists them by rank.
    static func seeded(_ kind: Kind) async throws -> (store: any RecordStore, byRank: [String]) {
        var store = try await Fields.tested(kind, clock: ManualClock(start: CloudFixture.start).wallClock).store
        if var sqlite = store as? SQLiteRecordStore {
            sqlite.fillBatch = (records: 100, bytes: 1 << 20)
            store = sqlite
        }
        for zone in Fields.zones { try await store.createZone(zone, account: Fields.account) }
        try await store.createZone(Fields.zones[0], account: "bob")
        var saved: [RemoteRecord] = []
        for start in stride(from: 0, to: 1_200, by: 400) {
            saved += try await Fields.save((start..<start + 400).map { Fields.idea($0, zone: Fields.zones[$0 % 2]) }, store)
        }
        return (store, Fields.sorted(saved, by: "rank"))
    }
}
