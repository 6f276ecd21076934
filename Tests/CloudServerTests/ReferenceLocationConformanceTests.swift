import Foundation
import Testing

/// Issue 63: CloudKit's `REFERENCE` and `LOCATION` values, which every client may send:
/// saved and returned as Apple's Reference and Location dictionaries, lists of them too; a
/// `VALIDATE` reference to a record that does not exist refused as `VALIDATING_REFERENCE_ERROR`;
/// a query by reference, and `NEAR` with a `distance` in meters; on SQLite and PostgreSQL.
@Suite("Conformance: REFERENCE and LOCATION", .serialized)
struct ReferenceLocationConformanceTests {
    typealias Server = ConformanceServer

    /// Taipei 101, Taipei Main Station (about 5.0 km away) and Kaohsiung (about 300 km).
    static var taipei101: [String: Any] { ["latitude": 25.033964, "longitude": 121.564468] }
    static var mainStation: [String: Any] { ["latitude": 25.047675, "longitude": 121.517055] }
    static var kaohsiung: [String: Any] { ["latitude": 22.627278, "longitude": 120.301435] }

    static func server(_ store: ConformanceStore) async throws -> ConformanceServer {
        let server = try await ConformanceServer(store)
        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID(Server.ideas)]]]])
        return server
    }

    @Test(
        "A REFERENCE and a LOCATION, typed or not, and lists of them, come back as saved: Apple's dictionaries with every key sent",
        arguments: ConformanceStore.tested)
    func valuesComeBackAsSaved(store: ConformanceStore) async throws {
        let server = try await Self.server(store)
        #expect(try await server.create("target", Server.ideaFields(title: "the target")).isRecord("target"))
        let place: [String: Any] = [
            "latitude": 25.033964, "longitude": 121.564468, "horizontalAccuracy": 5.5, "verticalAccuracy": 3.0, "altitude": 508.0,
            "speed": 0.0, "course": 90.0, "timestamp": 1_795_161_600_123,
        ]
        let fields: [String: Any] = [
            "parent": ["value": ["recordName": "target", "action": "DELETE_SELF"], "type": "REFERENCE"],
            "elsewhere": ["value": ["recordName": "other", "zoneID": ["zoneName": Server.ideas], "action": "NONE"]],
            "where": ["value": place, "type": "LOCATION"],
            "stops": ["value": [Self.mainStation, Self.kaohsiung], "type": "LOCATION_LIST"],
            "links": ["value": [["recordName": "target", "action": "NONE"]], "type": "REFERENCE_LIST"],
        ]
        let saved = try await server.create("holder", fields, type: "Trip")
        #expect(saved.isRecord("holder"), "\(saved)")
        let read = try await server.record("holder")
        #expect(read.field("parent") == ["recordName": "target", "action": "DELETE_SELF"], "\(read)")
        #expect(read["fields"]["parent"]["type"] == "REFERENCE")
        #expect(read.field("elsewhere") == ["recordName": "other", "zoneID": ["zoneName": "Ideas"], "action": "NONE"], "\(read)")
        #expect(read["fields"]["elsewhere"]["type"] == "REFERENCE", "an untyped reference is one")
        let location = read.field("where")
        #expect(location.keys == Set(place.keys), "\(read)")
        for (key, value) in place {
            #expect(location[key].number == (value as? NSNumber)?.doubleValue, "\(key): \(location)")
        }
        #expect(read["fields"]["where"]["type"] == "LOCATION")
        #expect(read.field("stops").array?.count == 2 && read["fields"]["stops"]["type"] == "LOCATION_LIST", "\(read)")
        #expect(read.field("links") == [["recordName": "target", "action": "NONE"]] && read["fields"]["links"]["type"] == "REFERENCE_LIST")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Malformed references and locations are BAD_REQUEST naming the field: an unknown action, no record name, another zone's record, a latitude off Earth, a key a location lacks",
        arguments: ConformanceStore.tested)
    func malformedValues(store: ConformanceStore) async throws {
        let server = try await Self.server(store)
        let bad: [[String: Any]] = [
            ["value": ["recordName": "t", "action": "CASCADE"], "type": "REFERENCE"],
            ["value": ["action": "NONE"], "type": "REFERENCE"],
            ["value": ["recordName": "t", "zoneID": ["zoneName": "_defaultZone"], "action": "NONE"], "type": "REFERENCE"],
            ["value": [["recordName": "t", "zoneID": ["zoneName": "Elsewhere"], "action": "DELETE_SELF"]], "type": "REFERENCE_LIST"],
            ["value": ["latitude": 91.0, "longitude": 0.0], "type": "LOCATION"],
            ["value": ["latitude": 10.0, "longitude": 10.0, "floor": 3], "type": "LOCATION"],
            ["value": ["latitude": 10.0], "type": "LOCATION"],
        ]
        for value in bad {
            let refused = try await server.modify([Server.operation("create", "bad", recordType: "Trip", fields: ["f": value])])
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(value): \(refused)")
            #expect(refused.json["reason"].string?.contains("fields.f") == true, "\(refused)")
        }
        #expect(try await server.record("bad").isRecordError("NOT_FOUND", recordName: "bad"))
    }

    @Test(
        "A VALIDATE reference to a record that does not exist is VALIDATING_REFERENCE_ERROR (412): in an atomic request nothing is saved; to one that exists or is created alongside, it is saved",
        arguments: ConformanceStore.tested)
    func validate(store: ConformanceStore) async throws {
        let server = try await Self.server(store)
        let pointing: (String, String) -> [String: Any] = { name, target in
            Server.operation("create", name, recordType: "Trip", fields: ["parent": ["value": ["recordName": target, "action": "VALIDATE"]]])
        }
        let refused = try await server.modify([pointing("orphan", "nobody"), Server.operation("create", "bystander", fields: Server.ideaFields(title: "x"))])
        #expect(refused.status == 200, "\(refused)")
        #expect(refused.records.first?.isRecordError("VALIDATING_REFERENCE_ERROR", recordName: "orphan") == true, "\(refused)")
        #expect(refused.records.last?.isRecordError("ATOMIC_ERROR", recordName: "bystander") == true, "\(refused)")
        #expect(try await server.record("bystander").isRecordError("NOT_FOUND", recordName: "bystander"), "nothing saved")

        let alongside = try await server.modify([Server.operation("create", "parent", fields: Server.ideaFields(title: "p")), pointing("child", "parent")])
        #expect(alongside.recordNames == ["parent", "child"] && alongside.records.allSatisfy { $0["serverErrorCode"] == .null }, "\(alongside)")
        let existing = try await server.modify([pointing("second", "parent")])
        #expect(existing.records.first?.isRecord("second") == true, "\(existing)")

        // Not atomic (the default zone): only the record whose target is missing fails.
        let partial = try await server.modify([pointing("lost", "nobody"), Server.operation("create", "kept", fields: Server.ideaFields(title: "k"))], zone: nil)
        #expect(partial.records.first?.isRecordError("VALIDATING_REFERENCE_ERROR", recordName: "lost") == true, "\(partial)")
        #expect(partial.records.last?.isRecord("kept") == true, "\(partial)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A query by reference finds the records pointing at a record; NEAR with a distance in meters finds the locations within it; NEAR needs a LOCATION and a distance",
        arguments: ConformanceStore.tested)
    func queries(store: ConformanceStore) async throws {
        let server = try await Self.server(store)
        for (name, place, parent) in [("tower", Self.taipei101, "a"), ("station", Self.mainStation, "a"), ("harbour", Self.kaohsiung, "b")] {
            let fields: [String: Any] = ["where": ["value": place], "parent": ["value": ["recordName": parent, "action": "NONE"]]]
            #expect(try await server.create(name, fields, type: "Trip").isRecord(name))
        }
        func query(_ filter: [String: Any]) async throws -> Answer {
            try await server.post("records/query", [
                "zoneID": Server.zoneID(Server.ideas),
                "query": ["recordType": "Trip", "filterBy": [filter], "sortBy": [["systemFieldName": "recordName"]]],
            ])
        }
        let children = try await query(["fieldName": "parent", "comparator": "EQUALS", "fieldValue": ["value": ["recordName": "a"], "type": "REFERENCE"]])
        #expect(children.recordNames == ["station", "tower"], "\(children)")
        let near = try await query(["fieldName": "where", "comparator": "NEAR", "fieldValue": ["value": Self.taipei101], "distance": 6_000])
        #expect(near.recordNames == ["station", "tower"], "\(near)")
        let closer = try await query(["fieldName": "where", "comparator": "NEAR", "fieldValue": ["value": Self.taipei101], "distance": 1_000])
        #expect(closer.recordNames == ["tower"], "\(closer)")
        let island = try await query(["fieldName": "where", "comparator": "NEAR", "fieldValue": ["value": Self.taipei101], "distance": 400_000])
        #expect(island.recordNames == ["harbour", "station", "tower"], "\(island)")
        for bad: [String: Any] in [
            ["fieldName": "where", "comparator": "NEAR", "fieldValue": ["value": Self.taipei101]],
            ["fieldName": "where", "comparator": "NEAR", "fieldValue": ["value": "Taipei"], "distance": 10],
            ["fieldName": "where", "comparator": "EQUALS", "fieldValue": ["value": Self.taipei101], "distance": 10],
            ["fieldName": "where", "comparator": "NEAR", "fieldValue": ["value": Self.taipei101], "distance": -1],
        ] {
            let refused = try await query(bad)
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(bad): \(refused)")
        }
        #expect(server.sweepFindings == [])
    }
}
