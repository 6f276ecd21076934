import Foundation
import Testing

/// Case 59 of the conformance list: each error code the server can produce, driven through
/// real requests, with Apple's HTTP status and the keys of its error dictionary.
@Suite("Conformance: error codes (case 59)", .serialized)
struct ErrorCodeConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    @Test(
        "Request-wide errors carry Apple's code and status with uuid and reason: 421, 401, 403, 400 (broken JSON, a JSON array), 404 NOT_FOUND and ZONE_NOT_FOUND",
        arguments: ConformanceStore.tested)
    func requestErrors(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let modify = Server.privateDatabase + "/records/modify"
        let valid = try JSONSerialization.data(withJSONObject: [
            "zoneID": Server.zoneID(Server.ideas),
            "operations": [Server.operation("create", "e1", fields: Server.ideaFields(title: "E"))],
        ])
        let cases: [(expected: String, status: Int, answer: Answer)] = [
            ("AUTHENTICATION_REQUIRED", 421, try await server.send("POST", modify, body: valid, auth: .none)),
            ("AUTHENTICATION_FAILED", 401, try await server.send("POST", modify, body: valid, auth: .tokens(api: server.apiToken, web: "ibx_wrong"))),
            ("ACCESS_DENIED", 403, try await server.send("POST", Server.database("public") + "/records/modify", body: valid)),
            ("BAD_REQUEST", 400, try await server.send("POST", modify, body: Data(#"{"operations": [ {"operationType": "#.utf8))),
            ("BAD_REQUEST", 400, try await server.send("POST", modify, body: Data("[1, 2, 3]".utf8))),
            ("BAD_REQUEST", 400, try await server.send("POST", modify, body: Data("not json at all".utf8))),
            ("NOT_FOUND", 404, try await server.send("POST", Server.privateDatabase + "/records/drop", body: valid)),
            ("NOT_FOUND", 404, try await server.send("POST", Server.privateDatabase + "/nothing", body: valid)),
            ("ZONE_NOT_FOUND", 404, try await server.modify([Server.operation("create", "e1", fields: Server.ideaFields(title: "E"))], zone: "NoSuchZone")),
        ]
        for (expected, status, answer) in cases {
            #expect(answer.isError(expected, status: status), "expected \(status) \(expected): \(answer)")
        }
        let required = cases[0].answer.json["redirectURL"].string.flatMap { URL(string: $0) }
        #expect(required?.host != nil, "\(cases[0].answer)")
        #expect(try await server.record("e1")["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Per-item errors come with HTTP 200 as Record Fetch Error Dictionaries {recordName, serverErrorCode, reason, uuid}: EXISTS, CONFLICT, NOT_FOUND and ATOMIC_ERROR",
        arguments: ConformanceStore.tested)
    func itemErrors(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let first = try await server.create("e1", Server.ideaFields(title: "E"))
        let staleTag = try #require(first["recordChangeTag"].string, "\(first)")
        _ = try await server.modify([Server.operation("forceUpdate", "e1", fields: Server.ideaFields(rank: 1))])
        try await server.create("e2", Server.ideaFields(title: "F"))

        let exists = try await server.modify([Server.operation("create", "e1", fields: Server.ideaFields(title: "again"))])
        #expect(exists.status == 200 && exists.records.first?.isRecordError("EXISTS", recordName: "e1") == true, "\(exists)")
        let conflict = try await server.modify([Server.operation("update", "e1", recordType: nil, tag: staleTag, fields: Server.ideaFields(title: "late"))])
        #expect(conflict.status == 200 && conflict.records.first?.isRecordError("CONFLICT", recordName: "e1") == true, "\(conflict)")
        let missing = try await server.lookup(["nope"])
        #expect(missing.status == 200 && missing.records.first?.isRecordError("NOT_FOUND", recordName: "nope") == true, "\(missing)")
        let atomic = try await server.modify(
            [
                Server.operation("forceUpdate", "e2", fields: Server.ideaFields(title: "G")),
                Server.operation("update", "e1", recordType: nil, tag: staleTag, fields: Server.ideaFields(title: "late")),
            ], atomic: true)
        #expect(atomic.status == 200, "\(atomic)")
        #expect(atomic.records.first?.isRecordError("ATOMIC_ERROR", recordName: "e2") == true, "\(atomic)")
        #expect(atomic.records.last?.isRecordError("CONFLICT", recordName: "e1") == true, "\(atomic)")
        #expect(try await server.record("e2").field("title") == "F")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Over the account's record quota a save fails QUOTA_EXCEEDED (per item, as a batch's errors are) with uuid and reason, and is not stored; another account is not limited by it",
        arguments: ConformanceStore.tested)
    func quotaExceeded(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        try await server.store.setQuota(maxRecords: 1, account: server.alice.name)
        let first = try await server.create("q1", Server.ideaFields(title: "fits"))
        #expect(first.isRecord("q1"), "\(first)")
        let second = try await server.modify([Server.operation("create", "q2", fields: Server.ideaFields(title: "over"))])
        #expect(second.status == 200 && second.records.first?.isRecordError("QUOTA_EXCEEDED", recordName: "q2") == true, "\(second)")
        #expect(try await server.record("q2")["serverErrorCode"] == "NOT_FOUND")
        let bobs = try await server.modify(
            [Server.operation("create", "b1", fields: Server.ideaFields(title: "1")), Server.operation("create", "b2", fields: Server.ideaFields(title: "2"))],
            as: server.bob)
        #expect(bobs.status == 200 && bobs.records.allSatisfy { $0["recordChangeTag"].string != nil }, "\(bobs)")
        #expect(server.sweepFindings == [])
    }
}
