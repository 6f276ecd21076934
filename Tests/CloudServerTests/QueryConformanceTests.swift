import Foundation
import IdeaBoxFoundation
import ProcessTestSupport
import RemoteTestSupport
import ServerStore
import Testing

/// Cases 38-45 of the conformance list: records/query's filters, sorts, system fields and
/// pages, and records/lookup.
///
/// Every test seeds alice's zone Ideas with five Ideas, one at a time so that each is
/// created and modified later than the one before: q1 "Apple" rank 1 tags [a, b]; q2
/// "Banana" 2 [b]; q3 "靈感筆記" 3 [c]; q4 "靈魂" 4 (no tags); q5 "Cherry" (no rank, no tags).
/// Beside them a Note titled "Apple" in Ideas, an Idea d1 in alice's _defaultZone, and bob's
/// own Idea "Apple" in his Ideas.
@Suite("Conformance: records/query and records/lookup (cases 38-45)", .serialized)
struct QueryConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    @Test(
        "Each supported comparator returns exactly the records it admits; a record without the field matches none of them; filters combine with AND",
        arguments: ConformanceStore.tested)
    func comparators(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        let table: [(filters: [[String: Any]], expected: Set<String>)] = [
            ([Self.filter("title", "EQUALS", "Banana")], ["q2"]),
            ([Self.filter("title", "EQUALS", "Apple")], ["q1"]),
            ([Self.filter("rank", "EQUALS", 2)], ["q2"]),
            ([Self.filter("rank", "NOT_EQUALS", 2)], ["q1", "q3", "q4"]),
            ([Self.filter("rank", "LESS_THAN", 3)], ["q1", "q2"]),
            ([Self.filter("rank", "LESS_THAN_OR_EQUALS", 3)], ["q1", "q2", "q3"]),
            ([Self.filter("rank", "GREATER_THAN", 2)], ["q3", "q4"]),
            ([Self.filter("rank", "GREATER_THAN_OR_EQUALS", 2)], ["q2", "q3", "q4"]),
            ([Self.filter("rank", "IN", [1, 3], type: "INT64_LIST")], ["q1", "q3"]),
            ([Self.filter("rank", "NOT_IN", [1, 3], type: "INT64_LIST")], ["q2", "q4"]),
            ([Self.filter("title", "BEGINS_WITH", "靈")], ["q3", "q4"]),
            ([Self.filter("title", "BEGINS_WITH", "靈感")], ["q3"]),
            ([Self.filter("title", "BEGINS_WITH", "Ba")], ["q2"]),
            ([Self.filter("title", "NOT_BEGINS_WITH", "靈")], ["q1", "q2", "q5"]),
            ([Self.filter("tags", "LIST_CONTAINS", "b")], ["q1", "q2"]),
            ([Self.filter("tags", "NOT_LIST_CONTAINS", "b")], ["q3"]),
            ([Self.filter("rank", "GREATER_THAN", 1), Self.filter("title", "BEGINS_WITH", "靈")], ["q3", "q4"]),
        ]
        for (filters, expected) in table {
            let answer = try await Self.query(server, filters: filters)
            #expect(answer.status == 200, "\(filters): \(answer)")
            #expect(Set(answer.recordNames) == expected && answer.recordNames.count == expected.count, "\(filters): \(answer.recordNames)")
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "sortBy orders by a field, descending when asked and ascending when ascending is omitted; records without the field come last",
        arguments: ConformanceStore.tested)
    func sorting(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        let descending = try await Self.query(server, sorts: [["fieldName": "rank", "ascending": false]])
        #expect(descending.recordNames == ["q4", "q3", "q2", "q1", "q5"], "\(descending)")
        let ascending = try await Self.query(server, sorts: [["fieldName": "rank"]])
        #expect(ascending.recordNames == ["q1", "q2", "q3", "q4", "q5"], "\(ascending)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "systemFieldName recordName filters, createdTimestamp and modifiedTimestamp sort; a later update moves a record up by modification only",
        arguments: ConformanceStore.tested)
    func systemFields(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        let named = try await Self.query(server, filters: [["systemFieldName": "recordName", "comparator": "EQUALS", "fieldValue": ["value": "q3"]]])
        #expect(named.recordNames == ["q3"], "\(named)")
        let modified: [[String: Any]] = [["systemFieldName": "modifiedTimestamp", "ascending": false]]
        let created: [[String: Any]] = [["systemFieldName": "createdTimestamp", "ascending": true]]
        #expect(try await Self.query(server, sorts: modified).recordNames == ["q5", "q4", "q3", "q2", "q1"])
        let touched = try await server.modify([Server.operation("forceUpdate", "q2", fields: Server.ideaFields(title: "Banana split"))])
        #expect(touched.records.first?.isRecord("q2") == true, "\(touched)")
        #expect(try await Self.query(server, sorts: modified).recordNames == ["q2", "q5", "q4", "q3", "q1"])
        #expect(try await Self.query(server, sorts: created).recordNames == ["q1", "q2", "q3", "q4", "q5"])
        #expect(server.sweepFindings == [])
    }

    @Test(
        "What the server does not implement is a 400 BAD_REQUEST, never an unfiltered answer: NEAR without a distance, the token comparators, an unknown comparator or systemFieldName, an unknown key, a filter without fieldValue",
        arguments: ConformanceStore.tested)
    func unsupportedQueries(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        let place: [String: Any] = ["value": ["latitude": 25.0330, "longitude": 121.5654], "type": "LOCATION"]
        let refused: [(label: String, filters: [[String: Any]], sorts: [[String: Any]])] = [
            ("NEAR without a distance", [["fieldName": "place", "comparator": "NEAR", "fieldValue": place]], []),
            ("CONTAINS_ALL_TOKENS", [Self.filter("title", "CONTAINS_ALL_TOKENS", "apple banana")], []),
            ("CONTAINS_ANY_TOKENS", [Self.filter("title", "CONTAINS_ANY_TOKENS", "apple banana")], []),
            ("LIST_MEMBER_BEGINS_WITH", [Self.filter("tags", "LIST_MEMBER_BEGINS_WITH", "a")], []),
            ("an unknown comparator", [Self.filter("title", "SOUNDS_LIKE", "Apple")], []),
            ("createdUserRecordName", [["systemFieldName": "createdUserRecordName", "comparator": "EQUALS", "fieldValue": ["value": "_x"]]], []),
            ("an unknown systemFieldName", [["systemFieldName": "colour", "comparator": "EQUALS", "fieldValue": ["value": "red"]]], []),
            ("an unknown key in a filter", [["fieldName": "title", "comparator": "EQUALS", "fieldValue": ["value": "Apple"], "caseInsensitive": true]], []),
            ("a filter without fieldValue", [["fieldName": "title", "comparator": "EQUALS"]], []),
            ("a sort on an unknown systemFieldName", [], [["systemFieldName": "colour"]]),
            ("an unknown key in a sort", [], [["fieldName": "rank", "descending": true]]),
        ]
        for (label, filters, sorts) in refused {
            let answer = try await Self.query(server, filters: filters, sorts: sorts)
            #expect(answer.isError("BAD_REQUEST", status: 400) && answer.json["records"] == .null, "\(label): \(answer)")
        }
        let untyped = try await server.post("records/query", ["zoneID": Server.zoneID(Server.ideas), "query": ["filterBy": [Self.filter("rank", "EQUALS", 1)]]])
        #expect(untyped.isError("BAD_REQUEST", status: 400), "no recordType: \(untyped)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A query naming a field beyond the 64 (recordType, fieldName) pairs a database's queries may name is a 400 BAD_REQUEST naming the limit, for any record type; fields already named still answer",
        arguments: ConformanceStore.tested)
    func queriedFieldsBound(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        // 64 pairs, 16 filters a query, on Idea (which has records) and Ghost (which has none).
        for block in 0..<4 {
            var query: [String: Any] = ["recordType": block < 2 ? "Idea" : "Ghost"]
            query["filterBy"] = (0..<16).map { Self.filter("f\(block * 16 + $0)", "EQUALS", 0) }
            let answer = try await server.post("records/query", ["zoneID": Server.zoneID(Server.ideas), "query": query])
            #expect(answer.status == 200 && answer.recordNames.isEmpty, "block \(block): \(answer)")
        }
        for (type, field) in [("Idea", "rank"), ("Ghost", "rank"), ("Other", "f0")] {
            let query: [String: Any] = ["recordType": type, "sortBy": [["fieldName": field]]]
            let answer = try await server.post("records/query", ["zoneID": Server.zoneID(Server.ideas), "query": query])
            #expect(answer.isError("BAD_REQUEST", status: 400) && answer.json["records"] == .null, "\(type).\(field): \(answer)")
            #expect(answer.json["reason"].string?.contains("at most 64 (recordType, fieldName) pairs") == true, "\(answer)")
        }
        let named = try await Self.query(server, filters: [Self.filter("f3", "EQUALS", 0)], sorts: [["fieldName": "f20"]])
        #expect(named.status == 200 && named.recordNames.isEmpty, "\(named)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "resultsLimit pages with an opaque continuationMarker until the last page, which has none; the pages make the whole sorted answer; an invalid marker is a 400 BAD_REQUEST",
        arguments: ConformanceStore.tested)
    func pages(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        let sorts: [[String: Any]] = [["fieldName": "rank"]]
        let whole = try await Self.query(server, sorts: sorts).recordNames
        #expect(whole == ["q1", "q2", "q3", "q4", "q5"])
        var pages: [[String]] = []
        var marker: String?
        repeat {
            var extra: [String: Any] = ["resultsLimit": 2]
            if let marker { extra["continuationMarker"] = marker }
            let page = try await Self.query(server, sorts: sorts, extra: extra)
            #expect(page.status == 200, "\(page)")
            pages.append(page.recordNames)
            marker = page.json["continuationMarker"].string
            if let marker { #expect(!whole.contains(marker), "the marker \(marker) is a record name, not opaque") }
        } while marker != nil && pages.count < 10
        #expect(pages == [["q1", "q2"], ["q3", "q4"], ["q5"]])
        for invalid in ["not a marker", "q2"] {
            let answer = try await Self.query(server, sorts: sorts, extra: ["resultsLimit": 2, "continuationMarker": invalid])
            #expect(answer.isError("BAD_REQUEST", status: 400), "\(invalid): \(answer)")
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Without zoneID a query searches _defaultZone; with zoneID, zoneWide is ignored; another account's records and other record types never appear",
        arguments: ConformanceStore.tested)
    func zones(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        let inDefault = try await server.post("records/query", ["query": ["recordType": "Idea"]])
        #expect(inDefault.status == 200 && inDefault.recordNames == ["d1"], "\(inDefault)")
        let zoneWide = try await Self.query(server, extra: ["zoneWide": true])
        #expect(Set(zoneWide.recordNames) == ["q1", "q2", "q3", "q4", "q5"], "\(zoneWide)")
        let notes = try await server.post("records/query", ["zoneID": Server.zoneID(Server.ideas), "query": ["recordType": "Note"]])
        #expect(notes.recordNames == ["n1"], "\(notes)")
        let bobs = try await Self.query(server, as: server.bob)
        #expect(bobs.recordNames == ["b1"], "\(bobs)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "records/lookup answers each name in order, a record or {recordName, serverErrorCode: NOT_FOUND, reason}; a per-lookup desiredKeys is honoured; without zoneID it looks in _defaultZone; bob finds nothing of alice's",
        arguments: ConformanceStore.tested)
    func lookup(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        let answer = try await server.post("records/lookup", [
            "zoneID": Server.zoneID(Server.ideas),
            "records": [["recordName": "q2"], ["recordName": "nope"], ["recordName": "q1", "desiredKeys": ["rank"]]],
        ])
        #expect(answer.status == 200 && answer.records.count == 3, "\(answer)")
        #expect(answer.json["records"][0].isRecord("q2") && answer.json["records"][0]["fields"].keys == ["title", "rank", "tags"], "\(answer)")
        #expect(answer.json["records"][1].isRecordError("NOT_FOUND", recordName: "nope"), "\(answer)")
        #expect(answer.json["records"][2].isRecord("q1") && answer.json["records"][2]["fields"].keys == ["rank"], "\(answer)")

        let inDefault = try await server.lookup(["d1", "q2"], zone: nil)
        #expect(inDefault.records.first?.isRecord("d1") == true, "\(inDefault)")
        #expect(inDefault.records.last?.isRecordError("NOT_FOUND", recordName: "q2") == true, "\(inDefault)")
        let bobs = try await server.lookup(["q1", "b1"], as: server.bob)
        #expect(bobs.records.first?.isRecordError("NOT_FOUND", recordName: "q1") == true, "\(bobs)")
        #expect(bobs.records.last?.isRecord("b1") == true, "\(bobs)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Issue 60: a first query that waits past its deadline for its field's keys is 503 TRY_AGAIN_LATER with retryAfter, naming the field; the fill goes on, and the query sent again is answered",
        arguments: ConformanceStore.tested)
    func firstQueryPastItsDeadline(store: ConformanceStore) async throws {
        let server = try await Self.seeded(store)
        let fills = server.store.queryableFills
        let (held, due, never) = (Latch(), Latch(), Latch())
        defer {
            held.open()
            never.open()
        }
        fills.betweenBatches = { _ in await held.opened() }
        fills.deadline = { _ in await due.opened() }
        let first = Task { try await Self.query(server, sorts: [["fieldName": "rank"]]) }
        try await Poll.until("the query waits for the fill, held after its batch") { fills.counts.waiting == 1 && held.waiting == 1 }
        due.open()
        let refused = try await first.value
        #expect(refused.isError("TRY_AGAIN_LATER", status: 503) && refused.json["retryAfter"].number == 2, "\(refused)")
        #expect(refused.json["reason"].string?.hasPrefix("rank of Idea are being made queryable") == true, "\(refused)")
        #expect(fills.counts.running == 1)
        fills.deadline = { _ in await never.opened() }
        held.open()
        let answered = try await Self.query(server, sorts: [["fieldName": "rank"]])
        #expect(answered.status == 200 && answered.recordNames == ["q1", "q2", "q3", "q4", "q5"], "\(answered)")
        #expect(fills.started == 1)
        #expect(server.sweepFindings == [])
    }

    /// A server seeded as the suite describes.
    static func seeded(_ store: ConformanceStore) async throws -> ConformanceServer {
        let server = try await ConformanceServer(store)
        let ideas: [(name: String, fields: [String: Any])] = [
            ("q1", Server.ideaFields(title: "Apple", rank: 1, tags: ["a", "b"])),
            ("q2", Server.ideaFields(title: "Banana", rank: 2, tags: ["b"])),
            ("q3", Server.ideaFields(title: "靈感筆記", rank: 3, tags: ["c"])),
            ("q4", Server.ideaFields(title: "靈魂", rank: 4)),
            ("q5", Server.ideaFields(title: "Cherry")),
        ]
        for (name, fields) in ideas {
            let saved = try await server.create(name, fields)
            try #require(saved.isRecord(name), "\(saved)")
        }
        let note = try await server.create("n1", Server.ideaFields(title: "Apple", rank: 1), type: "Note")
        let inDefaultZone = try await server.create("d1", Server.ideaFields(title: "Apple", rank: 1), zone: nil)
        let bobs = try await server.create("b1", Server.ideaFields(title: "Apple", rank: 1), as: server.bob)
        try #require(note.isRecord("n1") && inDefaultZone.isRecord("d1") && bobs.isRecord("b1"), "\(note) \(inDefaultZone) \(bobs)")
        return server
    }

    /// records/query for Ideas in alice's zone Ideas (or `account`'s) with `filters` and `sorts`.
    static func query(
        _ server: ConformanceServer, filters: [[String: Any]] = [], sorts: [[String: Any]] = [], extra: [String: Any] = [:],
        as account: ConformanceAccount? = nil
    ) async throws -> Answer {
        var query: [String: Any] = ["recordType": "Idea"]
        if !filters.isEmpty { query["filterBy"] = filters }
        if !sorts.isEmpty { query["sortBy"] = sorts }
        var body = extra
        body["zoneID"] = Server.zoneID(Server.ideas)
        body["query"] = query
        return try await server.post("records/query", body, as: account)
    }

    /// A filter on the field `name`; `value` is sent without a type unless one is given.
    static func filter(_ name: String, _ comparator: String, _ value: Any, type: String? = nil) -> [String: Any] {
        var fieldValue: [String: Any] = ["value": value]
        if let type { fieldValue["type"] = type }
        return ["fieldName": name, "comparator": comparator, "fieldValue": fieldValue]
    }
}
