import Foundation
import Testing

/// Cases 34-37 of the conformance list: the field types answers carry, what a save without
/// `type` becomes, and `numbersAsStrings`.
@Suite("Conformance: field types (cases 34-37)", .serialized)
struct FieldTypeConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    @Test(
        "A boolean saved without a type comes back as INT64 1 or 0, in the modify's answer and in a lookup; never BOOLEAN, never a bare true or false",
        arguments: ConformanceStore.tested)
    func booleans(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let fields: [String: Any] = ["done": ["value": true], "archived": ["value": false]]
        let saved = try await server.modify([Server.operation("create", "b1", fields: fields)])
        let looked = try await server.record("b1")
        for record in [saved.records.first ?? .null, looked] {
            #expect(record["fields"]["done"] == ["value": 1, "type": "INT64"], "\(record)")
            #expect(record["fields"]["archived"] == ["value": 0, "type": "INT64"], "\(record)")
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A list saved without a type comes back typed (STRING_LIST, INT64_LIST); a list mixing kinds is a 400 BAD_REQUEST and nothing is saved",
        arguments: ConformanceStore.tested)
    func lists(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let fields: [String: Any] = ["tags": ["value": ["a", "b"]], "counts": ["value": [1, 2, 3]]]
        let saved = try await server.modify([Server.operation("create", "l1", fields: fields)])
        #expect(saved.status == 200, "\(saved)")
        let record = try await server.record("l1")
        #expect(record["fields"]["tags"] == ["value": ["a", "b"], "type": "STRING_LIST"], "\(record)")
        #expect(record["fields"]["counts"] == ["value": [1, 2, 3], "type": "INT64_LIST"], "\(record)")

        let mixed: [String: Any] = ["tags": ["value": [1, "a"]]]
        let refused = try await server.modify(
            [Server.operation("create", "beside", fields: Server.ideaFields(title: "B")), Server.operation("create", "l2", fields: mixed)],
            atomic: false)
        #expect(refused.isError("BAD_REQUEST", status: 400), "\(refused)")
        let stored = try await server.lookup(["beside", "l2"])
        #expect(stored.records.map { $0["serverErrorCode"] } == ["NOT_FOUND", "NOT_FOUND"], "\(stored)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "INT64 holds -2^63 to 2^63-1 exactly; one past either end is a 400 BAD_REQUEST and nothing is saved, never rounded to the end",
        arguments: ConformanceStore.tested)
    func int64Range(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        func save(_ name: String, _ literal: String) async throws -> Answer {
            let body = #"{"zoneID":{"zoneName":"Ideas"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Idea","fields":{"rank":{"value":\#(literal),"type":"INT64"}}}}]}"#
            return try await server.send("POST", ConformanceServer.privateDatabase + "/records/modify", body: Data(body.utf8))
        }
        for (name, literal) in [("lowest", "-9223372036854775808"), ("highest", "9223372036854775807")] {
            let saved = try await save(name, literal)
            #expect(saved.status == 200 && saved.records.first?.isRecord(name) == true, "\(saved)")
            let rank = try await server.record(name)["fields"]["rank"]
            #expect(rank["value"] == .integer(Int64(literal)!), "\(name): \(rank)")
        }
        for (name, literal) in [("below", "-9223372036854775809"), ("above", "9223372036854775808")] {
            let refused = try await save(name, literal)
            #expect(refused.isError("BAD_REQUEST", status: 400) || refused.records.first?.isRecordError("BAD_REQUEST", recordName: name) == true, "\(refused)")
            #expect(try await server.record(name)["serverErrorCode"] == "NOT_FOUND", "\(name) was saved")
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "TIMESTAMP round-trips as whole milliseconds, BYTES as base64, DOUBLE as a JSON number, and their lists likewise, each with its type",
        arguments: ConformanceStore.tested)
    func scalarTypes(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let bytes = Data([0, 1, 2, 250, 251, 252, 253, 254, 255] + Array("靈感".utf8)).base64EncodedString()
        let fields: [String: Any] = [
            "when": ["value": 1_700_000_000_123, "type": "TIMESTAMP"],
            "blob": ["value": bytes, "type": "BYTES"],
            "score": ["value": 2.5, "type": "DOUBLE"],
            "whens": ["value": [1_700_000_000_000, 1_700_000_000_001], "type": "TIMESTAMP_LIST"],
            "scores": ["value": [0.25, -1.5], "type": "DOUBLE_LIST"],
            "blobs": ["value": [bytes], "type": "BYTES_LIST"],
            "title": ["value": "靈感", "type": "STRING"],
        ]
        let saved = try await server.modify([Server.operation("create", "t1", fields: fields)])
        #expect(saved.status == 200 && saved.records.first?.isRecord("t1") == true, "\(saved)")
        let record = try await server.record("t1")
        #expect(record["fields"]["when"] == ["value": 1_700_000_000_123, "type": "TIMESTAMP"], "\(record)")
        #expect(record["fields"]["blob"]["type"] == "BYTES", "\(record)")
        #expect(record.field("blob").string.flatMap { Data(base64Encoded: $0) } == Data(base64Encoded: bytes), "\(record)")
        #expect(record["fields"]["score"] == ["value": 2.5, "type": "DOUBLE"], "\(record)")
        #expect(record["fields"]["whens"] == ["value": [1_700_000_000_000, 1_700_000_000_001], "type": "TIMESTAMP_LIST"], "\(record)")
        #expect(record["fields"]["scores"] == ["value": [0.25, -1.5], "type": "DOUBLE_LIST"], "\(record)")
        #expect(record["fields"]["blobs"]["type"] == "BYTES_LIST", "\(record)")
        #expect(record["fields"]["title"] == ["value": "靈感", "type": "STRING"], "\(record)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "numbersAsStrings: true makes INT64 and DOUBLE values JSON strings in that request's answer (modify and lookup), and only in it",
        arguments: ConformanceStore.tested)
    func numbersAsStrings(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let fields: [String: Any] = ["rank": ["value": 3], "score": ["value": 2.5, "type": "DOUBLE"], "title": ["value": "N"]]
        let saved = try await server.modify([Server.operation("create", "n1", fields: fields)], ["numbersAsStrings": true])
        let looked = try await server.post(
            "records/lookup", ["zoneID": Server.zoneID(Server.ideas), "records": [["recordName": "n1"]], "numbersAsStrings": true])
        for record in [saved.records.first ?? .null, looked.records.first ?? .null] {
            #expect(record.field("rank").string.flatMap { Int64($0) } == 3, "\(record)")
            #expect(record.field("score").string.flatMap { Double($0) } == 2.5, "\(record)")
            #expect(record["fields"]["rank"]["type"] == "INT64" && record["fields"]["score"]["type"] == "DOUBLE", "\(record)")
            #expect(record.field("title") == "N", "\(record)")
        }
        let plain = try await server.record("n1")
        #expect(plain.field("rank") == 3 && plain.field("score") == 2.5, "\(plain)")
        #expect(server.sweepFindings == [])
    }
}
