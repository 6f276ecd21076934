import Foundation
import Testing

/// Cases 46-52 of the conformance list: records/changes, changes/zone, changes/database and
/// zones/changes, each with its own keys as Apple documents them.
@Suite("Conformance: change fetching (cases 46-52)", .serialized)
struct ChangesConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    @Test(
        "records/changes answers records, syncToken, moreComing and reverse; with resultsLimit 1 the syncToken chain drains every change; a deletion comes as {recordName, deleted: true}",
        arguments: ConformanceStore.tested)
    func recordChanges(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for name in ["c1", "c2", "c3"] { try await server.create(name, Server.ideaFields(title: name)) }
        let ideas = Server.zoneID(Server.ideas)
        let all = try await server.post("records/changes", ["zoneID": ideas])
        #expect(all.status == 200 && all.json["syncToken"].string?.isEmpty == false, "\(all)")
        #expect(all.json["moreComing"] == false && all.json["reverse"].bool != nil, "\(all)")
        #expect(Set(all.recordNames) == ["c1", "c2", "c3"], "\(all)")

        var token: String?
        var seen: [String] = []
        var pages = 0
        var moreComing = true
        while moreComing && pages < 10 {
            var body: [String: Any] = ["zoneID": ideas, "resultsLimit": 1]
            if let token { body["syncToken"] = token }
            let page = try await server.post("records/changes", body)
            #expect(page.status == 200 && page.records.count <= 1, "\(page)")
            seen += page.recordNames
            token = page.json["syncToken"].string
            moreComing = page.json["moreComing"] == true
            pages += 1
        }
        #expect(seen.count == 3 && Set(seen) == ["c1", "c2", "c3"] && pages >= 3, "\(seen) in \(pages) pages")
        let since = try #require(token)

        let deleted = try await server.modify([Server.operation("forceDelete", "c2", recordType: nil)])
        #expect(deleted.status == 200, "\(deleted)")
        let after = try await server.post("records/changes", ["zoneID": ideas, "syncToken": since])
        #expect(after.records.count == 1 && after.records.first?["recordName"] == "c2" && after.records.first?["deleted"] == true, "\(after)")
        #expect(server.sweepFindings == [])
    }

    @Test("records/changes is for custom zones: _defaultZone, or no zoneID at all, is a 400 BAD_REQUEST", arguments: ConformanceStore.tested)
    func recordChangesNeedCustomZone(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let inDefault = try await server.post("records/changes", ["zoneID": Server.zoneID("_defaultZone")])
        #expect(inDefault.isError("BAD_REQUEST", status: 400), "\(inDefault)")
        let unnamed = try await server.post("records/changes", [:])
        #expect(unnamed.isError("BAD_REQUEST", status: 400), "\(unnamed)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "changes/zone answers each zone in order: {zoneID, syncToken, records, moreComing} since its token, or {zoneID, serverErrorCode: ZONE_NOT_FOUND, reason}, with HTTP 200",
        arguments: ConformanceStore.tested)
    func zoneChanges(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        try await server.create("c1", Server.ideaFields(title: "first"))
        let start = try await server.post("changes/zone", ["zones": [["zoneID": Server.zoneID(Server.ideas)]]])
        #expect(start.status == 200 && start.zones.first?["records"].array?.count == 1, "\(start)")
        let token = try #require(start.zones.first?["syncToken"].string, "\(start)")
        try await server.create("c2", Server.ideaFields(title: "second"))

        let answer = try await server.post("changes/zone", [
            "zones": [["zoneID": Server.zoneID(Server.ideas), "syncToken": token], ["zoneID": Server.zoneID("Nope")]],
        ])
        #expect(answer.status == 200 && answer.zones.count == 2, "\(answer)")
        let ideas = answer.zones.first ?? .null
        #expect(ideas["zoneID"]["zoneName"] == "Ideas" && ideas["syncToken"].string?.isEmpty == false, "\(ideas)")
        #expect(ideas["moreComing"] == false && ideas["records"].array?.compactMap { $0["recordName"].string } == ["c2"], "\(ideas)")
        let nope = answer.zones.last ?? .null
        #expect(nope["zoneID"]["zoneName"] == "Nope" && nope["serverErrorCode"] == "ZONE_NOT_FOUND" && nope["reason"].string != nil, "\(nope)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "changes/zone with a garbage syncToken, bob's token, or another zone's token answers that zone BAD_REQUEST with a reason starting changeTokenExpired; without a token the zone starts again",
        arguments: ConformanceStore.tested)
    func foreignTokens(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        try await server.create("c1", Server.ideaFields(title: "alice's"))
        try await server.create("b1", Server.ideaFields(title: "bob's"), as: server.bob)
        let work = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID("Work")]]]])
        #expect(work.status == 200, "\(work)")
        try await server.create("w1", Server.ideaFields(title: "work"), zone: "Work")
        let bobToken = try #require(try await Self.syncToken(server, zone: Server.ideas, as: server.bob))
        let workToken = try #require(try await Self.syncToken(server, zone: "Work"))

        for (label, token) in [("garbage", "not a token"), ("base64 garbage", "AAAAAAAA"), ("bob's", bobToken), ("another zone's", workToken)] {
            let answer = try await server.post("changes/zone", ["zones": [["zoneID": Server.zoneID(Server.ideas), "syncToken": token]]])
            let zone = answer.zones.first ?? .null
            #expect(answer.status == 200 && zone["zoneID"]["zoneName"] == "Ideas", "\(label): \(answer)")
            #expect(zone["serverErrorCode"] == "BAD_REQUEST" && zone["reason"].string?.hasPrefix("changeTokenExpired") == true, "\(label): \(zone)")
            #expect(zone["records"] == .null, "\(label): \(zone)")
        }
        let again = try await server.post("changes/zone", ["zones": [["zoneID": Server.zoneID(Server.ideas)]]])
        #expect(again.zones.first?["records"].array?.compactMap { $0["recordName"].string } == ["c1"], "\(again)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "changes/zone honours desiredRecordTypes, and a zone's own resultsLimit and desiredRecordTypes override the request's",
        arguments: ConformanceStore.tested)
    func zoneChangeOptions(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for name in ["c1", "c2", "c3"] { try await server.create(name, Server.ideaFields(title: name)) }
        try await server.create("n1", Server.ideaFields(title: "note"), type: "Note")
        let ideas = Server.zoneID(Server.ideas)

        let other = try await server.post("changes/zone", ["zones": [["zoneID": ideas, "desiredRecordTypes": ["Other"]]]])
        #expect(other.status == 200 && other.zones.first?["records"] == [], "\(other)")
        let notes = try await server.post("changes/zone", ["zones": [["zoneID": ideas]], "desiredRecordTypes": ["Note"]])
        #expect(Self.names(notes.zones.first) == ["n1"], "\(notes)")
        let overridden = try await server.post("changes/zone", [
            "zones": [["zoneID": ideas, "desiredRecordTypes": ["Idea"], "resultsLimit": 1]], "desiredRecordTypes": ["Note"], "resultsLimit": 3,
        ])
        let zone = overridden.zones.first ?? .null
        #expect(Self.names(zone).count == 1 && Self.names(zone).allSatisfy { $0.hasPrefix("c") } && zone["moreComing"] == true, "\(overridden)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "changes/database answers {zones, syncToken, moreComing} with Zone Dictionaries; given its token back, only the zones changed since, never another account's",
        arguments: ConformanceStore.tested)
    func databaseChanges(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let me = try await server.userRecordName()
        let work = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID("Work")]]]])
        #expect(work.status == 200, "\(work)")
        let first = try await server.post("changes/database", [:])
        #expect(first.status == 200 && first.json["moreComing"].bool != nil && first.json["zones"].array != nil, "\(first)")
        #expect(first.zoneNames.contains("Ideas") && first.zoneNames.contains("Work"), "\(first)")
        #expect(first.zones.allSatisfy { $0.isZone($0["zoneID"]["zoneName"].string ?? "", owner: me) }, "\(first)")
        var token = try #require(first.json["syncToken"].string, "\(first)")

        for zone in ["Ideas", "Work"] {
            try await server.create("in-\(zone)", Server.ideaFields(title: zone), zone: zone)
            let since = try await server.post("changes/database", ["syncToken": token])
            #expect(since.status == 200 && since.zoneNames == [zone], "\(zone): \(since)")
            token = try #require(since.json["syncToken"].string, "\(since)")
        }
        try await server.create("bobs", Server.ideaFields(title: "bob's"), as: server.bob)
        let quiet = try await server.post("changes/database", ["syncToken": token])
        #expect(quiet.status == 200 && quiet.zones.isEmpty, "\(quiet)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "zones/changes answers {zones, metaSyncToken, moreComing}; given metaSyncToken back, only the zones created since, never another account's",
        arguments: ConformanceStore.tested)
    func zonesChanges(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let first = try await server.post("zones/changes", [:])
        #expect(first.status == 200 && first.json["moreComing"].bool != nil && first.json["zones"].array != nil, "\(first)")
        #expect(first.zoneNames.contains("Ideas"), "\(first)")
        let token = try #require(first.json["metaSyncToken"].string, "\(first)")

        let work = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID("Work")]]]])
        #expect(work.status == 200, "\(work)")
        let bobs = try await server.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID("BobWork")]]]], as: server.bob)
        #expect(bobs.status == 200, "\(bobs)")
        let since = try await server.post("zones/changes", ["metaSyncToken": token])
        #expect(since.status == 200 && since.zoneNames == ["Work"], "\(since)")
        #expect(since.json["metaSyncToken"].string?.isEmpty == false, "\(since)")
        #expect(server.sweepFindings == [])
    }

    /// The syncToken changes/zone gives `account` (alice when nil) for all of `zone`.
    static func syncToken(_ server: ConformanceServer, zone: String, as account: ConformanceAccount? = nil) async throws -> String? {
        let answer = try await server.post("changes/zone", ["zones": [["zoneID": Server.zoneID(zone)]]], as: account)
        return answer.zones.first?["syncToken"].string
    }

    /// The record names of a changes/zone zone entry.
    static func names(_ zone: ReceivedJSON?) -> [String] {
        zone?["records"].array?.compactMap { $0["recordName"].string } ?? []
    }
}
