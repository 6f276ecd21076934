import Foundation
import Testing

/// Ours beyond Apple's reference: a database that holds a key envelope (a `KeyEnvelope` record
/// in zone `AccountKeys`) takes only sealed saves (a `BYTES` field `sealed`) in its other
/// zones, and once its envelope is gone no sealed one; the refused record fails alone, with a
/// `BAD_REQUEST` whose reason starts `encryptionChanged: `, and nothing of it is saved.
@Suite("Conformance: an encrypted account's database takes sealed records only (ours)", .serialized)
struct SealingConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    /// A sealed record's fields, as `SealedDatabase` sends them (the bytes are opaque here).
    static var sealedFields: [String: Any] { ["sealed": ["value": Data([1, 2, 3, 4]).base64EncodedString(), "type": "BYTES"]] }

    @Test(
        "while the envelope exists a plain create or update is refused alone (BAD_REQUEST encryptionChanged) and a sealed save is taken; once it is deleted a sealed save is refused and a plain one taken; deletes always go through",
        arguments: ConformanceStore.tested)
    func savesMatchTheEnvelope(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        // A database that never had the key zone takes both, as CloudKit does.
        let plain = try await server.create("plain", Server.ideaFields(title: "before"))
        #expect(plain.isRecord("plain"), "\(plain)")
        #expect(try await server.create("sealed", Self.sealedFields, type: "SealedIdea").isRecord("sealed"))

        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID("AccountKeys")]]]])
        let envelope = try await server.create(
            "account-key", ["envelope": ["value": Data([9, 9]).base64EncodedString(), "type": "BYTES"]], type: "KeyEnvelope", zone: "AccountKeys")
        #expect(envelope.isRecord("account-key"), "\(envelope)")

        let refused = try await server.modify(
            [
                Server.operation("create", "plain-after", fields: Server.ideaFields(title: "在窗口中")),
                Server.operation("update", "plain", recordType: nil, tag: plain["recordChangeTag"].string, fields: Server.ideaFields(title: "edited")),
                Server.operation("create", "sealed-after", recordType: "SealedIdea", fields: Self.sealedFields),
                Server.operation("forceDelete", "sealed", recordType: nil),
            ],
            atomic: false)
        #expect(refused.status == 200 && refused.records.count == 4, "\(refused)")
        for (index, name) in ["plain-after", "plain"].enumerated() {
            let item = refused.records[index]
            #expect(item.isRecordError("BAD_REQUEST", recordName: name), "\(item)")
            #expect(item["reason"].string?.hasPrefix("encryptionChanged: ") == true, "\(item)")
        }
        #expect(refused.records[2].isRecord("sealed-after"), "\(refused)")
        #expect(refused.records[3]["deleted"] == true, "\(refused)")
        #expect(try await server.record("plain-after").isRecordError("NOT_FOUND", recordName: "plain-after"))
        #expect(try await server.record("plain").field("title") == "before")

        // Encryption turned off: the envelope goes, its zone stays.
        let gone = try await server.modify([Server.operation("forceDelete", "account-key", recordType: nil)], zone: "AccountKeys")
        #expect(gone.records.first?["deleted"] == true, "\(gone)")
        let afterOff = try await server.modify(
            [
                Server.operation("create", "sealed-late", recordType: "SealedIdea", fields: Self.sealedFields),
                Server.operation("create", "plain-late", fields: Server.ideaFields(title: "plain again")),
            ],
            atomic: false)
        #expect(afterOff.records.first?.isRecordError("BAD_REQUEST", recordName: "sealed-late") == true, "\(afterOff)")
        #expect(afterOff.records.first?["reason"].string?.hasPrefix("encryptionChanged: ") == true, "\(afterOff)")
        #expect(afterOff.records.last?.isRecord("plain-late") == true, "\(afterOff)")
        #expect(server.sweepFindings == [])
    }

    @Test("the rule is per database: another account, and the other environment of the same account, take plain saves", arguments: ConformanceStore.tested)
    func theRuleIsPerDatabase(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID("AccountKeys")]]]])
        _ = try await server.create("account-key", ["envelope": ["value": "AQI=", "type": "BYTES"]], type: "KeyEnvelope", zone: "AccountKeys")
        #expect(try await server.create("refused", Server.ideaFields(title: "x")).isRecordError("BAD_REQUEST", recordName: "refused"))
        #expect(try await server.create("bobs", Server.ideaFields(title: "x"), as: server.bob).isRecord("bobs"))
        let development = Server.database("private", environment: "development")
        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID(Server.ideas)]]]], in: development)
        let elsewhere = try await server.modify([Server.operation("create", "dev", fields: Server.ideaFields(title: "x"))], in: development)
        #expect(elsewhere.records.first?.isRecord("dev") == true, "\(elsewhere)")
    }
}
