import Foundation
import Testing

/// Cases 9-33 of the conformance list: records/modify's seven operation types, change tags,
/// batches, desiredKeys and the request-wide rules.
@Suite("Conformance: records/modify (cases 9-33)", .serialized)
struct RecordModifyConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    @Test(
        "create answers the saved record: name, type, a change tag, typed fields, and created/modified with a millisecond timestamp, the caller's userRecordName and a deviceID; without a recordName one is generated",
        arguments: ConformanceStore.tested)
    func create(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let me = try await server.userRecordName()
        let answer = try await server.modify([Server.operation("create", "i1", fields: Server.ideaFields(title: "A", rank: 3))])
        #expect(answer.status == 200 && answer.records.count == 1, "\(answer)")
        let record = answer.records.first ?? .null
        #expect(record["recordName"] == "i1" && record["recordType"] == "Idea", "\(record)")
        #expect(record["recordChangeTag"].string?.isEmpty == false, "\(record)")
        #expect(record["fields"]["title"] == ["value": "A", "type": "STRING"], "\(record)")
        #expect(record["fields"]["rank"] == ["value": 3, "type": "INT64"], "\(record)")
        for key in ["created", "modified"] {
            #expect((record[key]["timestamp"].integer ?? 0) > 0, "\(key): \(record)")
            #expect(record[key]["userRecordName"].string == me, "\(key): \(record)")
            #expect(record[key]["deviceID"].string != nil, "\(key): \(record)")
        }

        let generated = try await server.modify([Server.operation("create", nil, fields: Server.ideaFields(title: "nameless"))])
        let name = try #require(generated.records.first?["recordName"].string, "\(generated)")
        #expect(!name.isEmpty)
        #expect(try await server.record(name).field("title") == "nameless")
        #expect(server.sweepFindings == [])
    }

    @Test("create of an existing record is a per-item EXISTS (HTTP 200) and leaves the record as it was", arguments: ConformanceStore.tested)
    func createExisting(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let first = try await server.create("i1", Server.ideaFields(title: "A", rank: 3))
        let again = try await server.modify([Server.operation("create", "i1", fields: Server.ideaFields(title: "Z"))])
        #expect(again.status == 200 && again.records.first?.isRecordError("EXISTS", recordName: "i1") == true, "\(again)")
        let stored = try await server.record("i1")
        #expect(stored.field("title") == "A" && stored["recordChangeTag"] == first["recordChangeTag"], "\(stored)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "update with the current tag changes only the fields sent and gives a new tag; with a stale tag it is a per-item CONFLICT and changes nothing",
        arguments: ConformanceStore.tested)
    func update(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.create("i1", Server.ideaFields(title: "A", rank: 3))
        let firstTag = try #require(created["recordChangeTag"].string, "\(created)")
        let updated = try await server.modify([Server.operation("update", "i1", recordType: nil, tag: firstTag, fields: Server.ideaFields(title: "B"))])
        let record = updated.records.first ?? .null
        #expect(updated.status == 200 && record.field("title") == "B" && record.field("rank") == 3, "\(updated)")
        let secondTag = try #require(record["recordChangeTag"].string, "\(updated)")
        #expect(secondTag != firstTag)

        let stale = try await server.modify([Server.operation("update", "i1", recordType: nil, tag: firstTag, fields: Server.ideaFields(title: "C"))])
        #expect(stale.status == 200 && stale.records.first?.isRecordError("CONFLICT", recordName: "i1") == true, "\(stale)")
        let stored = try await server.record("i1")
        #expect(stored.field("title") == "B" && stored.field("rank") == 3 && stored["recordChangeTag"].string == secondTag, "\(stored)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "update, replace or delete without a recordChangeTag is a 400 BAD_REQUEST for the whole request, and nothing of it is applied",
        arguments: ConformanceStore.tested)
    func missingChangeTag(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.create("i1", Server.ideaFields(title: "A", rank: 3))
        for type in ["update", "replace", "delete"] {
            let fields = type == "delete" ? nil : Server.ideaFields(title: "untagged")
            let alone = try await server.modify([Server.operation(type, "i1", recordType: nil, fields: fields)])
            #expect(alone.isError("BAD_REQUEST", status: 400), "\(type): \(alone)")
            let batch = try await server.modify(
                [Server.operation("create", "beside-\(type)", fields: Server.ideaFields(title: "x")), Server.operation(type, "i1", recordType: nil, fields: fields)],
                atomic: false)
            #expect(batch.isError("BAD_REQUEST", status: 400), "\(type): \(batch)")
            #expect(try await server.record("beside-\(type)")["serverErrorCode"] == "NOT_FOUND")
        }
        let stored = try await server.record("i1")
        #expect(stored.field("title") == "A" && stored["recordChangeTag"] == created["recordChangeTag"], "\(stored)")
        #expect(server.sweepFindings == [])
    }

    @Test("update, replace or delete of a record that does not exist is a per-item NOT_FOUND (HTTP 200) and creates nothing", arguments: ConformanceStore.tested)
    func missingRecord(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for type in ["update", "replace", "delete"] {
            let fields = type == "delete" ? nil : Server.ideaFields(title: "ghost")
            let answer = try await server.modify([Server.operation(type, "ghost", recordType: nil, tag: "1", fields: fields)])
            #expect(answer.status == 200 && answer.records.first?.isRecordError("NOT_FOUND", recordName: "ghost") == true, "\(type): \(answer)")
        }
        #expect(try await server.record("ghost")["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "forceUpdate needs no tag and merges (fields not sent keep their values); on a missing record it creates it",
        arguments: ConformanceStore.tested)
    func forceUpdate(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        try await server.create("i1", Server.ideaFields(title: "A", rank: 3))
        let merged = try await server.modify([Server.operation("forceUpdate", "i1", fields: Server.ideaFields(rank: 9))])
        #expect(merged.records.first?.field("rank") == 9 && merged.records.first?.field("title") == "A", "\(merged)")
        let created = try await server.modify([Server.operation("forceUpdate", "new1", fields: Server.ideaFields(title: "N"))])
        #expect(created.status == 200 && created.records.first?.isRecord("new1") == true, "\(created)")
        let stored = try await server.lookup(["i1", "new1"])
        #expect(stored.records.map { $0.field("title") } == ["A", "N"] && stored.records.first?.field("rank") == 9, "\(stored)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "replace with the current tag leaves out every field not sent, in the answer and later; with a stale tag it is a per-item CONFLICT",
        arguments: ConformanceStore.tested)
    func replace(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.create("i1", Server.ideaFields(title: "A", rank: 3, tags: ["x"]))
        let tag = try #require(created["recordChangeTag"].string, "\(created)")
        let replaced = try await server.modify([Server.operation("replace", "i1", recordType: nil, tag: tag, fields: Server.ideaFields(title: "R"))])
        let record = replaced.records.first ?? .null
        #expect(record.isRecord("i1") && record["fields"].keys == ["title"] && record.field("title") == "R", "\(replaced)")
        #expect(try await server.record("i1")["fields"].keys == ["title"])

        let stale = try await server.modify([Server.operation("replace", "i1", recordType: nil, tag: tag, fields: Server.ideaFields(rank: 1))])
        #expect(stale.status == 200 && stale.records.first?.isRecordError("CONFLICT", recordName: "i1") == true, "\(stale)")
        #expect(try await server.record("i1").field("title") == "R")
        #expect(server.sweepFindings == [])
    }

    @Test("forceReplace creates a missing record, and over an existing one with no tag leaves out every field not sent", arguments: ConformanceStore.tested)
    func forceReplace(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.modify([Server.operation("forceReplace", "new2", fields: Server.ideaFields(title: "N", rank: 2))])
        #expect(created.status == 200 && created.records.first?.isRecord("new2") == true, "\(created)")
        try await server.create("i1", Server.ideaFields(title: "A", rank: 3))
        let replaced = try await server.modify([Server.operation("forceReplace", "i1", fields: Server.ideaFields(rank: 4))])
        #expect(replaced.records.first?["fields"].keys == ["rank"], "\(replaced)")
        let stored = try await server.lookup(["new2", "i1"])
        #expect(stored.records.map { $0["fields"].keys } == [["title", "rank"], ["rank"]], "\(stored)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "delete with a stale tag is a per-item CONFLICT and keeps the record; with the current tag it answers {recordName, deleted: true}; forceDelete needs no tag, and of a missing record also answers deleted",
        arguments: ConformanceStore.tested)
    func delete(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.create("i1", Server.ideaFields(title: "A"))
        let firstTag = try #require(created["recordChangeTag"].string, "\(created)")
        let touched = try await server.modify([Server.operation("forceUpdate", "i1", fields: Server.ideaFields(rank: 1))])
        let currentTag = try #require(touched.records.first?["recordChangeTag"].string, "\(touched)")

        let stale = try await server.modify([Server.operation("delete", "i1", recordType: nil, tag: firstTag)])
        #expect(stale.status == 200 && stale.records.first?.isRecordError("CONFLICT", recordName: "i1") == true, "\(stale)")
        #expect(try await server.record("i1").isRecord("i1"))

        let deleted = try await server.modify([Server.operation("delete", "i1", recordType: nil, tag: currentTag)])
        #expect(deleted.status == 200 && Self.isDeletion(deleted.records.first, of: "i1"), "\(deleted)")
        #expect(try await server.record("i1").isRecordError("NOT_FOUND", recordName: "i1"))

        try await server.create("new1", Server.ideaFields(title: "N"))
        let forced = try await server.modify([Server.operation("forceDelete", "new1", recordType: nil), Server.operation("forceDelete", "never", recordType: nil)])
        #expect(forced.status == 200 && Self.isDeletion(forced.records.first, of: "new1") && Self.isDeletion(forced.records.last, of: "never"), "\(forced)")
        #expect(try await server.record("new1")["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "atomic in a custom zone (true when omitted): a stale tag fails the batch, CONFLICT for it and ATOMIC_ERROR for the rest, HTTP 200, nothing applied; atomic false applies the rest",
        arguments: ConformanceStore.tested)
    func atomicBatches(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for atomic in [true, nil, false] as [Bool?] {
            let round = atomic.map { "\($0)" } ?? "omitted"
            let (x, y, xTag, staleYTag) = try await Self.pairWithStaleTag(server, round: round, zone: Server.ideas)
            let answer = try await server.modify(
                [
                    Server.operation("update", x, recordType: nil, tag: xTag, fields: Server.ideaFields(title: "x2")),
                    Server.operation("update", y, recordType: nil, tag: staleYTag, fields: Server.ideaFields(title: "y2")),
                ], atomic: atomic)
            #expect(answer.status == 200 && answer.records.count == 2, "atomic \(round): \(answer)")
            #expect(answer.records.last?.isRecordError("CONFLICT", recordName: y) == true, "atomic \(round): \(answer)")
            if atomic == false {
                #expect(answer.records.first?.field("title") == "x2", "atomic \(round): \(answer)")
                #expect(try await server.record(x).field("title") == "x2")
            } else {
                #expect(answer.records.first?.isRecordError("ATOMIC_ERROR", recordName: x) == true, "atomic \(round): \(answer)")
                #expect(try await server.record(x)["recordChangeTag"].string == xTag)
            }
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A request without zoneID works in _defaultZone, where atomic does not apply: the good operation is applied beside a CONFLICT",
        arguments: ConformanceStore.tested)
    func defaultZone(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let (x, y, xTag, staleYTag) = try await Self.pairWithStaleTag(server, round: "default", zone: nil)
        let answer = try await server.modify(
            [
                Server.operation("update", x, recordType: nil, tag: xTag, fields: Server.ideaFields(title: "x2")),
                Server.operation("update", y, recordType: nil, tag: staleYTag, fields: Server.ideaFields(title: "y2")),
            ], zone: nil, atomic: true)
        #expect(answer.status == 200 && answer.records.first?.field("title") == "x2", "\(answer)")
        #expect(answer.records.last?.isRecordError("CONFLICT", recordName: y) == true, "\(answer)")
        #expect(try await server.record(x, zone: "_defaultZone").field("title") == "x2")
        #expect(try await server.record(x)["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test("Two operations on one record, or 201 operations, are a 400 BAD_REQUEST applying nothing; 200 operations are accepted", arguments: ConformanceStore.tested)
    func requestLimits(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.create("i1", Server.ideaFields(title: "A"))
        let tag = try #require(created["recordChangeTag"].string, "\(created)")
        let twice: [[[String: Any]]] = [
            [Server.operation("create", "dup", fields: Server.ideaFields(title: "1")), Server.operation("forceUpdate", "dup", fields: Server.ideaFields(title: "2"))],
            [Server.operation("update", "i1", recordType: nil, tag: tag, fields: Server.ideaFields(title: "B")), Server.operation("delete", "i1", recordType: nil, tag: tag)],
        ]
        for operations in twice {
            let answer = try await server.modify(operations, atomic: false)
            #expect(answer.isError("BAD_REQUEST", status: 400), "\(answer)")
        }
        #expect(try await server.record("dup")["serverErrorCode"] == "NOT_FOUND")
        #expect(try await server.record("i1")["recordChangeTag"].string == tag)

        let tooMany = try await server.modify(Self.bulkCreates(count: 201))
        #expect(tooMany.isError("BAD_REQUEST", status: 400), "\(tooMany)")
        #expect(try await server.record("bulk0")["serverErrorCode"] == "NOT_FOUND")
        let most = try await server.modify(Self.bulkCreates(count: 200))
        #expect(most.status == 200 && most.records.count == 200, "HTTP \(most.status), \(most.records.count) records")
        #expect(most.records.allSatisfy { $0["recordChangeTag"].string != nil })
        #expect(try await server.record("bulk199").field("rank") == 199)
        #expect(server.sweepFindings == [])
    }

    @Test(
        "desiredKeys limits every returned record's fields, an operation's own desiredKeys overrides the request's, and [] returns no fields; the records keep all of theirs",
        arguments: ConformanceStore.tested)
    func desiredKeys(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        try await server.create("k1", Server.ideaFields(title: "K", rank: 1, tags: ["a"]))
        try await server.create("k2", Server.ideaFields(title: "L", rank: 2, tags: ["b"]))
        let titles = try await server.modify(
            [
                Server.operation("forceUpdate", "k1", fields: Server.ideaFields(rank: 5)),
                Server.operation("forceUpdate", "k2", fields: Server.ideaFields(rank: 6), desiredKeys: ["rank"]),
            ], ["desiredKeys": ["title"]])
        #expect(titles.records.map { $0["fields"].keys } == [["title"], ["rank"]], "\(titles)")
        let none = try await server.modify([Server.operation("forceUpdate", "k1", fields: Server.ideaFields(rank: 7))], ["desiredKeys": [String]()])
        let record = none.records.first ?? .null
        #expect(record.isRecord("k1") && (record["fields"].object ?? [:]).isEmpty, "\(none)")
        let stored = try await server.lookup(["k1", "k2"])
        #expect(stored.records.map { $0["fields"].keys } == [["title", "rank", "tags"], ["title", "rank", "tags"]], "\(stored)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A record over 1 MB of fields is BAD_REQUEST (for the request or its item) and not saved; an unknown operationType is a 400 BAD_REQUEST",
        arguments: ConformanceStore.tested)
    func invalidOperations(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let big = try await server.modify([Server.operation("create", "big", fields: Server.ideaFields(title: String(repeating: "靈", count: 400_000)))])
        let refused = big.isError("BAD_REQUEST", status: 400) || big.records.first?.isRecordError("BAD_REQUEST", recordName: "big") == true
        #expect(refused, "HTTP \(big.status) \(big.errorCode ?? big.records.first?["serverErrorCode"].string ?? "-")")
        #expect(try await server.record("big")["serverErrorCode"] == "NOT_FOUND")
        let upsert = try await server.modify([Server.operation("upsert", "u1", fields: Server.ideaFields(title: "U"))])
        #expect(upsert.isError("BAD_REQUEST", status: 400), "\(upsert)")
        #expect(try await server.record("u1")["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A zone that does not exist, or exists only for another account, is a 404 ZONE_NOT_FOUND for the whole request",
        arguments: ConformanceStore.tested)
    func unknownZone(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let bobs = try await server.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID("BobOnly")]]]], as: server.bob)
        #expect(bobs.status == 200, "\(bobs)")
        for zone in ["NoSuchZone", "BobOnly"] {
            let answer = try await server.modify([Server.operation("create", "lost", fields: Server.ideaFields(title: "L"))], zone: zone)
            #expect(answer.isError("ZONE_NOT_FOUND", status: 404), "\(zone): \(answer)")
        }
        let bobsRecords = try await server.post("records/query", ["zoneID": Server.zoneID("BobOnly"), "query": ["recordType": "Idea"]], as: server.bob)
        #expect(bobsRecords.status == 200 && bobsRecords.records.isEmpty, "\(bobsRecords)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "REFERENCE and LOCATION fields are saved beside other records of a non-atomic request; a VALIDATE reference to a missing record fails alone (VALIDATING_REFERENCE_ERROR)",
        arguments: ConformanceStore.tested)
    func referenceAndLocationFields(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        try await server.create("target", Server.ideaFields(title: "T"))
        let fields: [[String: Any]] = [
            ["link": ["value": ["recordName": "target", "action": "NONE"], "type": "REFERENCE"]],
            ["link": ["value": ["recordName": "missing", "action": "VALIDATE"], "type": "REFERENCE"]],
            ["links": ["value": [["recordName": "target", "action": "NONE"]], "type": "REFERENCE_LIST"]],
            ["place": ["value": ["latitude": 25.0330, "longitude": 121.5654], "type": "LOCATION"]],
        ]
        for (index, extra) in fields.enumerated() {
            let beside = Server.operation("create", "beside\(index)", fields: Server.ideaFields(title: "B"))
            let answer = try await server.modify([beside, Server.operation("create", "typed\(index)", fields: extra)], atomic: false)
            #expect(answer.status == 200, "\(extra.keys.sorted()): \(answer)")
            let stored = try await server.lookup(["beside\(index)", "typed\(index)"])
            let missing: ReceivedJSON = index == 1 ? "NOT_FOUND" : .null
            #expect(stored.records.map { $0["serverErrorCode"] } == [.null, missing], "\(stored)")
            if index == 1 {
                #expect(answer.records.last?.isRecordError("VALIDATING_REFERENCE_ERROR", recordName: "typed1") == true, "\(answer)")
            }
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Another account's change tags and names reach nothing: bob's update of alice's record is NOT_FOUND for him, his forceDelete of its name deletes nothing of hers",
        arguments: ConformanceStore.tested)
    func crossAccount(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.create("secret", Server.ideaFields(title: "alice's"))
        let tag = try #require(created["recordChangeTag"].string, "\(created)")
        let update = try await server.modify(
            [Server.operation("update", "secret", recordType: nil, tag: tag, fields: Server.ideaFields(title: "bob's"))], as: server.bob)
        #expect(update.records.first?.isRecordError("NOT_FOUND", recordName: "secret") == true, "\(update)")
        let delete = try await server.modify([Server.operation("forceDelete", "secret", recordType: nil)], as: server.bob)
        #expect(Self.isDeletion(delete.records.first, of: "secret"), "\(delete)")
        let stored = try await server.record("secret")
        #expect(stored.field("title") == "alice's" && stored["recordChangeTag"].string == tag, "\(stored)")
        #expect(server.sweepFindings == [])
    }

    /// Whether `item` answers the deletion of `recordName`: `{recordName, deleted: true}`.
    static func isDeletion(_ item: ReceivedJSON?, of recordName: String) -> Bool {
        item?["recordName"] == .string(recordName) && item?["deleted"] == true && item?["serverErrorCode"] == .null
    }

    /// `count` creates of the records bulk0, bulk1, … with their index as rank.
    static func bulkCreates(count: Int) -> [[String: Any]] {
        (0..<count).map { (index: Int) in Server.operation("create", "bulk\(index)", fields: Server.ideaFields(rank: index)) }
    }

    /// Two new records x and y in `zone`, x's current tag, and a tag of y's made stale by a
    /// later forceUpdate.
    static func pairWithStaleTag(
        _ server: ConformanceServer, round: String, zone: String?
    ) async throws -> (x: String, y: String, xTag: String, staleYTag: String) {
        let x = "x-\(round)", y = "y-\(round)"
        let createdX = try await server.create(x, Server.ideaFields(title: "x"), zone: zone)
        let createdY = try await server.create(y, Server.ideaFields(title: "y"), zone: zone)
        let xTag = try #require(createdX["recordChangeTag"].string, "\(createdX)")
        let staleYTag = try #require(createdY["recordChangeTag"].string, "\(createdY)")
        let touched = try await server.modify([Server.operation("forceUpdate", y, fields: Server.ideaFields(rank: 1))], zone: zone)
        try #require(touched.records.first?.isRecord(y) == true, "\(touched)")
        return (x, y, xTag, staleYTag)
    }
}
