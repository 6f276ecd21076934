import Foundation
import Testing

/// Issue 63: a `DELETE_SELF` reference deletes its record when its target is deleted, and
/// so on down (CloudKit's cascade), within the zone and the account, on SQLite and
/// PostgreSQL; the deletions come as any other in the zone's changes.
@Suite("Conformance: DELETE_SELF cascades", .serialized)
struct DeleteSelfConformanceTests {
    typealias Server = ConformanceServer

    static func server(_ store: ConformanceStore) async throws -> ConformanceServer {
        let server = try await ConformanceServer(store)
        for account in [server.alice, server.bob] {
            _ = try await server.post(
                "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID(Server.ideas)]]]], as: account)
        }
        return server
    }

    /// A record `name` whose field `parent` refers to `target` with `action`.
    static func child(_ name: String, of target: String, action: String = "DELETE_SELF") -> [String: Any] {
        Server.operation("create", name, recordType: "Step", fields: ["parent": ["value": ["recordName": target, "action": action]]])
    }

    /// The names of the records `records/changes` reports deleted in the Ideas zone since `token`.
    static func deletions(_ server: ConformanceServer, since token: String) async throws -> Set<String> {
        var (deleted, token, pages) = (Set<String>(), token, 0)
        while pages < 100 {
            let changes = try await server.post("records/changes", ["zoneID": Server.zoneID(Server.ideas), "syncToken": token])
            deleted.formUnion(changes.records.filter { $0["deleted"] == true }.compactMap { $0["recordName"].string })
            guard changes.json["moreComing"] == true, let next = changes.json["syncToken"].string else { break }
            (token, pages) = (next, pages + 1)
        }
        return deleted
    }

    /// Those of `names` that records/lookup finds, asked in requests of at most 200.
    static func found(_ names: [String], _ server: ConformanceServer) async throws -> [String] {
        var found: [String] = []
        for start in stride(from: 0, to: names.count, by: Server.maximumOperations) {
            let answer = try await server.lookup(Array(names[start..<min(start + Server.maximumOperations, names.count)]))
            #expect(answer.status == 200, "\(answer)")
            found += answer.records.filter { $0["serverErrorCode"] == .null }.compactMap { $0["recordName"].string }
        }
        return found
    }

    @Test(
        "Deleting a record deletes those whose DELETE_SELF references (lists too) name it, and theirs; NONE, a reference changed since, and another account's records stay",
        arguments: ConformanceStore.tested)
    func cascades(store: ConformanceStore) async throws {
        let server = try await Self.server(store)
        let listed = Server.operation(
            "create", "listed", recordType: "Step",
            fields: ["parents": ["value": [["recordName": "elsewhere", "action": "NONE"], ["recordName": "parent", "action": "DELETE_SELF"]],
                                 "type": "REFERENCE_LIST"]])
        let made = try await server.modify([
            Server.operation("create", "parent", fields: Server.ideaFields(title: "plan")), Self.child("child", of: "parent"), listed,
            Self.child("grandchild", of: "child"), Self.child("bystander", of: "parent", action: "NONE"), Self.child("freed", of: "parent"),
        ])
        #expect(made.records.allSatisfy { $0["serverErrorCode"] == .null } && made.records.count == 6, "\(made)")
        // freed stops naming its parent: replaced with a reference that does nothing.
        var freed = Self.child("freed", of: "parent", action: "NONE")
        freed["operationType"] = "forceReplace"
        #expect(try await server.modify([freed]).records.first?.isRecord("freed") == true)
        // Bob has records of the same names in a zone of the same name.
        let bobs = try await server.modify(
            [Server.operation("create", "parent", fields: Server.ideaFields(title: "bob's")), Self.child("child", of: "parent")], as: server.bob)
        #expect(bobs.records.count == 2 && bobs.records.allSatisfy { $0["serverErrorCode"] == .null }, "\(bobs)")
        let token = try #require(try await server.post("records/changes", ["zoneID": Server.zoneID(Server.ideas)]).json["syncToken"].string)

        let deleted = try await server.modify([Server.operation("forceDelete", "parent", recordType: nil)])
        #expect(deleted.records.first?["deleted"] == true && deleted.records.count == 1, "the answer names the request's records: \(deleted)")
        for name in ["parent", "child", "listed", "grandchild"] {
            #expect(try await server.record(name).isRecordError("NOT_FOUND", recordName: name), "\(name) is deleted")
        }
        for name in ["bystander", "freed"] { #expect(try await server.record(name).isRecord(name), "\(name) stays") }
        #expect(try await Self.deletions(server, since: token) == ["parent", "child", "listed", "grandchild"])
        for name in ["parent", "child"] { #expect(try await server.record(name, as: server.bob).isRecord(name), "bob's \(name) stays") }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A cycle of DELETE_SELF references, and a record referring to itself, are deleted once each and the request ends",
        arguments: ConformanceStore.tested)
    func cycles(store: ConformanceStore) async throws {
        let server = try await Self.server(store)
        let made = try await server.modify([
            Self.child("a", of: "b"), Self.child("b", of: "c"), Self.child("c", of: "a"), Self.child("self", of: "self"), Self.child("d", of: "self"),
        ])
        #expect(made.records.count == 5 && made.records.allSatisfy { $0["serverErrorCode"] == .null }, "\(made)")
        let token = try #require(try await server.post("records/changes", ["zoneID": Server.zoneID(Server.ideas)]).json["syncToken"].string)
        let deleted = try await server.modify([
            Server.operation("forceDelete", "a", recordType: nil), Server.operation("forceDelete", "self", recordType: nil),
        ])
        #expect(deleted.status == 200 && deleted.records.count == 2, "\(deleted)")
        #expect(try await Self.deletions(server, since: token) == ["a", "b", "c", "self", "d"])
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A cascade longer than one request's batch deletes the batch, and the zone's next modify deletes the rest",
        arguments: ConformanceStore.tested)
    func longCascade(store: ConformanceStore) async throws {
        let server = try await Self.server(store)
        let batch = 1_000  // ReferenceRules.cascadeBatch
        let names = (0...batch).map { String(format: "step-%04d", $0) }
        #expect(try await server.create("parent", Server.ideaFields(title: "long")).isRecord("parent"))
        for start in stride(from: 0, to: names.count, by: Server.maximumOperations) {
            let answer = try await server.modify(names[start..<min(start + Server.maximumOperations, names.count)].map { Self.child($0, of: "parent") })
            #expect(answer.records.allSatisfy { $0["serverErrorCode"] == .null }, "\(answer)")
        }
        let token = try #require(try await server.post("records/changes", ["zoneID": Server.zoneID(Server.ideas)]).json["syncToken"].string)
        #expect(try await server.modify([Server.operation("forceDelete", "parent", recordType: nil)]).status == 200)
        #expect(try await Self.deletions(server, since: token).count == batch + 1, "the parent and one batch")
        #expect(try await Self.found(names, server).count == 1, "one child left")

        #expect(try await server.create("next", Server.ideaFields(title: "next")).isRecord("next"))
        #expect(try await Self.deletions(server, since: token).count == names.count + 1, "the rest goes with the zone's next modify")
        #expect(try await Self.found(names, server) == [])
        #expect(server.sweepFindings == [])
    }
}
