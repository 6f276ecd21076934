import Foundation
import GRDB
import HTTPTypes
import IdeaBoxFoundation
@testable import SQLiteServerStore
import ServerStore
import CloudServer
import CloudKitModel
import Testing

/// Issue 40 part 4: CloudKit's schema rules (one type per field of a record type, set by its
/// first save; an untyped value read as that type; a typed value of another type refused),
/// `users/discover`, and the 405 that names the methods a path takes in `Allow`.
@Suite("Conformance: schema rules, users/discover, 405", .serialized)
struct SchemaConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    /// A photo's fields, typed as a client built on Apple's reference sends them.
    static var typedPhoto: [String: Any] {
        [
            "thumb": ["value": Data("tiny".utf8).base64EncodedString(), "type": "BYTES"],
            "taken": ["value": 1_700_000_000_123, "type": "TIMESTAMP"],
            "moments": ["value": [1_700_000_000_000, 1_700_000_000_500], "type": "TIMESTAMP_LIST"],
            "score": ["value": 2.5, "type": "DOUBLE"],
        ]
    }

    @Test(
        "Values sent without a type are read as their fields' types (BYTES from base64, TIMESTAMP from milliseconds, a list of them, DOUBLE from a whole number), not guessed",
        arguments: ConformanceStore.tested)
    func untypedValuesTakeTheFieldsTypes(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        #expect(try await server.create("p1", Self.typedPhoto, type: "Photo").isRecord("p1"))
        let untyped: [String: Any] = [
            "thumb": ["value": Data("other".utf8).base64EncodedString()],
            "taken": ["value": 1_700_000_009_000],
            "moments": ["value": [1_700_000_001_000]],
            "score": ["value": 3],
        ]
        let saved = try await server.create("p2", untyped, type: "Photo")
        #expect(saved.isRecord("p2"), "\(saved)")
        let record = try await server.record("p2")
        #expect(record["fields"]["thumb"] == ["value": .string(Data("other".utf8).base64EncodedString()), "type": "BYTES"], "\(record)")
        #expect(record["fields"]["taken"] == ["value": 1_700_000_009_000, "type": "TIMESTAMP"], "\(record)")
        #expect(record["fields"]["moments"] == ["value": [1_700_000_001_000], "type": "TIMESTAMP_LIST"], "\(record)")
        // 3.0 may be written as 3: the type is what tells.
        #expect(record["fields"]["score"]["type"] == "DOUBLE", "\(record)")
        #expect([.integer(3), .double(3)].contains(record["fields"]["score"]["value"]), "\(record)")

        // An update that names no record type is read against the stored record's.
        let tag = try #require(record["recordChangeTag"].string)
        let update = Server.operation("update", "p2", recordType: nil, tag: tag, fields: ["taken": ["value": 1_700_000_042_000]])
        let updated = try await server.modify([update])
        #expect(updated.records.first?.isRecord("p2") == true, "\(updated)")
        #expect(try await server.record("p2")["fields"]["taken"] == ["value": 1_700_000_042_000, "type": "TIMESTAMP"])
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A value sent with another type than its field's, or one without a type that cannot be read as it, is a 400 BAD_REQUEST naming the field, and nothing of the request is saved",
        arguments: ConformanceStore.tested)
    func valuesThatDoNotFitAreRefused(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        #expect(try await server.create("p1", Self.typedPhoto, type: "Photo").isRecord("p1"))
        let misfits: [(String, [String: Any])] = [
            ("taken", ["taken": ["value": 1_700_000_000_000, "type": "INT64"]]),
            ("thumb", ["thumb": ["value": "not base64 at all!"]]),
            ("taken", ["taken": ["value": "yesterday"]]),
            ("score", ["score": ["value": "high", "type": "STRING"]]),
            ("moments", ["moments": ["value": ["a", "b"]]]),
        ]
        for (field, fields) in misfits {
            let refused = try await server.modify(
                [Server.operation("create", "beside", fields: Server.ideaFields(title: "B")),
                 Server.operation("create", "misfit", recordType: "Photo", fields: fields)],
                atomic: false)
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(fields): \(refused)")
            #expect(refused.json["reason"].string?.contains("field \(field) of record type Photo is") == true, "\(refused)")
            let stored = try await server.lookup(["beside", "misfit"])
            #expect(stored.records.map { $0["serverErrorCode"] } == ["NOT_FOUND", "NOT_FOUND"], "\(fields) saved: \(stored)")
        }
        #expect(try await server.record("p1")["fields"]["taken"]["type"] == "TIMESTAMP")
        // An empty list fits any list field, whatever list type it is sent as.
        let empty = try await server.create("p3", ["moments": ["value": [], "type": "STRING_LIST"]], type: "Photo")
        #expect(empty.isRecord("p3"), "\(empty)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "The first save of a field sets its type (guessed from the value when sent without one); a later typed value of another type is refused, even in the same request",
        arguments: ConformanceStore.tested)
    func theFirstSaveSetsTheType(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        #expect(try await server.create("n1", ["label": ["value": "first"]], type: "Note").isRecord("n1"))
        let refused = try await server.modify([Server.operation("create", "n2", recordType: "Note", fields: ["label": ["value": 7, "type": "INT64"]])])
        #expect(refused.isError("BAD_REQUEST", status: 400), "\(refused)")
        let both = try await server.modify([
            Server.operation("create", "n3", recordType: "Note", fields: ["size": ["value": 1, "type": "INT64"]]),
            Server.operation("create", "n4", recordType: "Note", fields: ["size": ["value": "large", "type": "STRING"]]),
        ])
        #expect(both.isError("BAD_REQUEST", status: 400), "\(both)")
        #expect(try await server.lookup(["n3", "n4"]).records.map { $0["serverErrorCode"] } == ["NOT_FOUND", "NOT_FOUND"])
        // Another record type has fields of its own.
        #expect(try await server.create("t1", ["label": ["value": 7]], type: "Tag").isRecord("t1"))
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Each account has its own schema in each container and environment: bob and alice's development database type a field alice typed otherwise freely, and the store lists each",
        arguments: ConformanceStore.tested)
    func schemasAreAnAccountsOwn(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        #expect(try await server.create("p1", Self.typedPhoto, type: "Photo").isRecord("p1"))
        let asText: [String: Any] = ["thumb": ["value": "just text", "type": "STRING"]]
        #expect(try await server.create("p1", asText, type: "Photo", as: server.bob).isRecord("p1"))
        let development = Server.database("private", environment: "development")
        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID("Ideas")]]]], in: development)
        let saved = try await server.modify([Server.operation("create", "p1", recordType: "Photo", fields: asText)], in: development)
        #expect(saved.records.first?.isRecord("p1") == true, "\(saved)")

        let listed = try await server.store.schema(ofAccount: server.alice.name)
        let thumbs = listed.filter { $0.recordType == "Photo" && $0.fieldName == "thumb" }.map { "\($0.database) \($0.type)" }
        #expect(thumbs == ["\(server.alice.name) BYTES", "\(server.alice.name)@\(Server.container)/development STRING"], "\(listed)")
        let bobs = try await server.store.schema(ofAccount: server.bob.name)
        #expect(bobs.map { "\($0.recordType).\($0.fieldName) \($0.type)" } == ["Photo.thumb STRING"])
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Issue 60: an account deleted and made again under its name, while the server runs, starts with no schema: a type the old account had does not refuse the new one's save, and the new type is the one stored",
        arguments: ConformanceStore.tested)
    func aRemadeAccountHasNoneOfTheOldOnesSchema(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        #expect(try await server.create("p1", Self.typedPhoto, type: "Photo").isRecord("p1"))
        _ = try await server.store.deleteAccount(server.alice.name)
        let remade = ConformanceAccount(name: server.alice.name, webToken: AccessToken.generate())
        try await server.store.addAccessToken(hash: AccessToken.hash(remade.webToken), account: remade.name)
        try await server.store.createZone(RecordZoneID(zoneName: Server.ideas), account: remade.name)
        #expect(try await server.store.schema(ofAccount: remade.name).isEmpty)

        let asText: [String: Any] = ["thumb": ["value": "just text", "type": "STRING"]]
        let saved = try await server.create("p1", asText, type: "Photo", as: remade)
        #expect(saved.isRecord("p1"), "\(saved)")
        let listed = try await server.store.schema(ofAccount: remade.name)
        #expect(listed.map { "\($0.recordType).\($0.fieldName) \($0.type)" } == ["Photo.thumb STRING"], "\(listed)")
        #expect(server.sweepFindings == [])
    }

    @Test("A save whose fields all have types this process knows reads no schema: with the store's schema table gone it still saves, read as those types; a new field then fails")
    func knownTypesAreNotReadAgain() async throws {
        let store = try SQLiteRecordStore.inMemory(
            clock: .fixed(Timestamp(milliseconds: Server.start)), maximumRecordsPerRequest: Server.maximumOperations)
        let server = try await ConformanceServer(store: store)
        #expect(try await server.create("p1", Self.typedPhoto, type: "Photo").isRecord("p1"))
        try await store.writer.write { db in try db.execute(sql: "DROP TABLE fieldType") }
        let known = try await server.create("p2", ["taken": ["value": 1_700_000_000_777]], type: "Photo")
        #expect(known.isRecord("p2"), "\(known)")
        #expect(try await server.record("p2")["fields"]["taken"]["type"] == "TIMESTAMP")
        let unknown = try await server.modify([Server.operation("create", "p3", recordType: "Photo", fields: ["lens": ["value": "50mm"]])])
        #expect(unknown.isError("INTERNAL_ERROR", status: 500), "\(unknown)")
    }

    @Test(
        "users/discover (public database, as Apple has it): a lookup naming the caller answers its identity, any other only its lookupInfo; a GET answers no users; a malformed lookup is a 400",
        arguments: ConformanceStore.tested)
    func usersDiscover(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let me = try await server.userRecordName()
        let bob = try await server.userRecordName(of: server.bob)
        let lookups: [[String: Any]] = [["userRecordName": me], ["userRecordName": bob], ["emailAddress": "bob@example.com"]]
        let answer = try await server.post("users/discover", ["users": lookups], in: Server.database("public"))
        #expect(answer.status == 200, "\(answer)")
        #expect(answer.json["users"] == [
            ["userRecordName": .string(me), "lookupInfo": ["userRecordName": .string(me)]],
            ["lookupInfo": ["userRecordName": .string(bob)]],
            ["lookupInfo": ["emailAddress": "bob@example.com"]],
        ], "\(answer)")
        let all = try await server.get("users/discover", in: Server.database("public"))
        #expect(all.status == 200 && all.json["users"] == [], "\(all)")
        let malformed = try await server.post("users/discover", ["users": [["nickname": "x"]]], in: Server.database("public"))
        #expect(malformed.isError("BAD_REQUEST", status: 400), "\(malformed)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A path called with a method it does not take is a 405 whose Allow header names the methods it takes",
        arguments: ConformanceStore.tested)
    func wrongMethodNamesTheAllowedOnes(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let cases: [(method: String, path: String, allow: String)] = [
            ("GET", Server.privateDatabase + "/records/modify", "POST"),
            ("DELETE", Server.privateDatabase + "/zones/list", "GET, POST"),
            ("PUT", Server.database("public") + "/users/discover", "GET, POST"),
            ("POST", "/healthz", "GET"),
            ("DELETE", "/metrics", "GET"),
        ]
        for (method, path, allow) in cases {
            let answer = try await server.send(method, path, body: method == "GET" ? nil : Data("{}".utf8))
            #expect(answer.status == 405 && answer.headers[.allow] == allow, "\(method) \(path): \(answer) Allow: \(answer.headers[.allow] ?? "none")")
        }
        #expect(server.sweepFindings == [])
    }
}
