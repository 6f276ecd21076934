import Foundation
import Testing

/// Cases 53-55 of the conformance list: zones/list, zones/lookup and zones/modify, whose zone
/// dictionaries always carry `zoneID{zoneName, ownerRecordName}`, `syncToken` and `atomic`.
@Suite("Conformance: zones (cases 53-55)", .serialized)
struct ZoneConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    @Test(
        "zones/list answers _defaultZone (atomic false) and Ideas (atomic true) as Zone Dictionaries owned by the caller; bob's list holds none of alice's zones",
        arguments: ConformanceStore.tested)
    func list(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let me = try await server.userRecordName()
        _ = try await Self.modifyZones(server, [("create", "AlicePrivate")])
        let list = try await server.get("zones/list")
        #expect(list.status == 200 && Set(list.zoneNames) == ["_defaultZone", "Ideas", "AlicePrivate"], "\(list)")
        for zone in list.zones {
            #expect(zone.isZone(zone["zoneID"]["zoneName"].string ?? "", owner: me), "\(zone)")
        }
        let bob = try await server.userRecordName(of: server.bob)
        let bobs = try await server.get("zones/list", as: server.bob)
        #expect(Set(bobs.zoneNames) == ["_defaultZone", "Ideas"], "\(bobs)")
        #expect(bobs.zones.allSatisfy { $0["zoneID"]["ownerRecordName"] == .string(bob) }, "\(bobs)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "zones/lookup answers each zone in order: a Zone Dictionary, or {zoneID, serverErrorCode: ZONE_NOT_FOUND, reason}; alice's zone is not found for bob",
        arguments: ConformanceStore.tested)
    func lookup(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let me = try await server.userRecordName()
        _ = try await Self.modifyZones(server, [("create", "AlicePrivate")])
        let answer = try await server.post("zones/lookup", ["zones": [Server.zoneID(Server.ideas), Server.zoneID("Nope"), Server.zoneID("_defaultZone")]])
        #expect(answer.status == 200 && answer.zones.count == 3, "\(answer)")
        #expect(answer.json["zones"][0].isZone("Ideas", owner: me), "\(answer)")
        #expect(Self.isZoneNotFound(answer.json["zones"][1], "Nope"), "\(answer)")
        #expect(answer.json["zones"][2].isZone("_defaultZone", owner: me), "\(answer)")
        let bobs = try await server.post("zones/lookup", ["zones": [Server.zoneID("AlicePrivate")]], as: server.bob)
        #expect(bobs.status == 200 && Self.isZoneNotFound(bobs.zones.first ?? .null, "AlicePrivate"), "\(bobs)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "zones/modify create answers the Zone Dictionary; creating it again succeeds the same way and keeps its records; delete removes it and its records",
        arguments: ConformanceStore.tested)
    func createAndDelete(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let me = try await server.userRecordName()
        let created = try await Self.modifyZones(server, [("create", "Work")])
        #expect(created.status == 200 && created.zones.count == 1 && created.json["zones"][0].isZone("Work", owner: me), "\(created)")
        try await server.create("w1", Server.ideaFields(title: "kept"), zone: "Work")
        let again = try await Self.modifyZones(server, [("create", "Work")])
        #expect(again.status == 200 && again.zones.count == 1 && again.json["zones"][0].isZone("Work", owner: me), "\(again)")
        #expect(try await server.record("w1", zone: "Work").field("title") == "kept")

        let deleted = try await Self.modifyZones(server, [("delete", "Work")])
        #expect(deleted.status == 200 && deleted.zones.count == 1 && deleted.json["zones"][0]["serverErrorCode"] == .null, "\(deleted)")
        #expect(deleted.zones.first?["zoneID"]["zoneName"] == "Work", "\(deleted)")
        let lookup = try await server.post("zones/lookup", ["zones": [Server.zoneID("Work")]])
        #expect(Self.isZoneNotFound(lookup.zones.first ?? .null, "Work"), "\(lookup)")
        let recreated = try await Self.modifyZones(server, [("create", "Work")])
        #expect(recreated.zones.first?.isZone("Work", owner: me) == true, "\(recreated)")
        #expect(try await server.record("w1", zone: "Work").isRecordError("NOT_FOUND", recordName: "w1"))
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Two operations on one zone, or deleting _defaultZone, are a 400 BAD_REQUEST and apply nothing",
        arguments: ConformanceStore.tested)
    func refusedOperations(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let twice = try await Self.modifyZones(server, [("create", "Twice"), ("delete", "Twice")])
        #expect(twice.isError("BAD_REQUEST", status: 400), "\(twice)")
        let createdTwice = try await Self.modifyZones(server, [("create", "Twice"), ("create", "Twice")])
        #expect(createdTwice.isError("BAD_REQUEST", status: 400), "\(createdTwice)")
        try await server.create("d1", Server.ideaFields(title: "stays"), zone: nil)
        let defaultZone = try await Self.modifyZones(server, [("create", "Beside"), ("delete", "_defaultZone")])
        #expect(defaultZone.isError("BAD_REQUEST", status: 400), "\(defaultZone)")
        let lookup = try await server.post("zones/lookup", ["zones": [Server.zoneID("Twice"), Server.zoneID("Beside")]])
        #expect(Self.isZoneNotFound(lookup.zones.first ?? .null, "Twice") && Self.isZoneNotFound(lookup.zones.last ?? .null, "Beside"), "\(lookup)")
        #expect(try await server.record("d1", zone: nil).field("title") == "stays")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "bob deleting or creating a zone named like alice's touches only his own: her zone and records stay",
        arguments: ConformanceStore.tested)
    func crossAccount(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        try await server.create("secret", Server.ideaFields(title: "alice's"))
        let deleted = try await Self.modifyZones(server, [("delete", Server.ideas)], as: server.bob)
        #expect(deleted.status == 200, "\(deleted)")
        let created = try await Self.modifyZones(server, [("create", Server.ideas)], as: server.bob)
        #expect(created.status == 200, "\(created)")
        #expect(try await server.record("secret").field("title") == "alice's")
        let bobs = try await server.post("records/query", ["zoneID": Server.zoneID(Server.ideas), "query": ["recordType": "Idea"]], as: server.bob)
        #expect(bobs.status == 200 && bobs.records.isEmpty, "\(bobs)")
        #expect(server.sweepFindings == [])
    }

    /// zones/modify with `operations`, each an operation type and a zone name.
    static func modifyZones(
        _ server: ConformanceServer, _ operations: [(type: String, zone: String)], as account: ConformanceAccount? = nil
    ) async throws -> Answer {
        let list: [[String: Any]] = operations.map { ["operationType": $0.type, "zone": ["zoneID": Server.zoneID($0.zone)]] }
        return try await server.post("zones/modify", ["operations": list], as: account)
    }

    /// Whether `item` is the Zone Fetch Error ZONE_NOT_FOUND for `zoneName`.
    static func isZoneNotFound(_ item: ReceivedJSON, _ zoneName: String) -> Bool {
        item["zoneID"]["zoneName"] == .string(zoneName) && item["serverErrorCode"] == "ZONE_NOT_FOUND" && item["reason"].string != nil
    }
}
