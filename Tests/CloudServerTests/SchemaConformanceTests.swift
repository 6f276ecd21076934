import Foundation
import GRDB
import HTTPTypes
import IdeaBoxFoundation
@testable import SQLiteRecordStore
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

    /// `count` untyped INT64 fields named `prefix0`, `prefix1`, ….
    static func fields(_ count: Int, prefix: String = "f") -> [String: Any] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { ("\(prefix)\($0)", ["value": $0] as [String: Any]) })
    }

    @Test(
        "Issue 60: a save naming 200 new fields costs about what it costs on an empty account with 30 records of 900 KB stored (at most 4 times as long, plus 0.5 s, and under 2 s): the claim reads the schema table, never the records",
        arguments: ConformanceStore.tested)
    func newFieldsCostWhatTheyName(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        // Letters of a seeded generator: text PostgreSQL cannot compress, so reading it costs its size there too.
        var state: UInt64 = 60
        let large = String(decoding: (0..<900_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(ascii: "a") + UInt8((state >> 33) % 26)
        }, as: UTF8.self)
        for index in 0..<30 {
            let record = RemoteRecord(
                recordType: "Photo", recordID: RecordID(recordName: "large\(index)", zoneID: RecordZoneID(zoneName: Server.ideas)),
                fields: ["body": .string(large)])
            let stored = try await server.store.modify(
                account: server.alice.name, saves: [RecordSave(record, policy: .allKeys)], deletes: [], atomic: true)
            #expect(stored.failures.isEmpty)
        }
        let clock = ContinuousClock()
        var answers: [ReceivedJSON] = []
        let empty = try await clock.measure { answers.append(try await server.create("wide", Self.fields(200), type: "Photo", as: server.bob)) }
        let full = try await clock.measure { answers.append(try await server.create("wide", Self.fields(200), type: "Photo")) }
        print("SchemaConformanceTests \(store): a save of 200 new fields took \(empty) on an empty account, \(full) beside 30 records of 900 KB")
        #expect(answers.allSatisfy { $0.isRecord("wide") }, "\(answers)")
        #expect(full < empty * 4 + .milliseconds(500) && full < .seconds(2), "empty account \(empty), 30 records of 900 KB \(full)")
        #expect(try await server.store.schema(ofAccount: server.alice.name).count == 201)
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Issue 60: a request naming more than 200 new fields, in one record or across several, is a 400 BAD_REQUEST limitExceeded naming the limit, and nothing of it is saved or typed; 200 go through",
        arguments: ConformanceStore.tested)
    func newFieldsPerRequestAreBounded(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let one = try await server.modify([Server.operation("create", "wide", recordType: "Photo", fields: Self.fields(201))])
        let two = try await server.modify([
            Server.operation("create", "left", recordType: "Photo", fields: Self.fields(101, prefix: "l")),
            Server.operation("create", "right", recordType: "Note", fields: Self.fields(101, prefix: "r")),
        ])
        for refused in [one, two] {
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(refused)")
            let reason = refused.json["reason"].string ?? ""
            #expect(reason.hasPrefix("limitExceeded: ") && reason.contains("at most 200"), "\(refused)")
        }
        #expect(try await server.lookup(["wide", "left", "right"]).records.map { $0["serverErrorCode"] } == ["NOT_FOUND", "NOT_FOUND", "NOT_FOUND"])
        #expect(try await server.store.schema(ofAccount: server.alice.name).isEmpty)
        #expect(try await server.create("wide", Self.fields(200), type: "Photo").isRecord("wide"))
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Issue 60: a save that would give a record type its 1,001st field is a 400 BAD_REQUEST naming the limit (not limitExceeded: splitting does not help), nothing is saved; its typed fields still save, and another record type has its own",
        arguments: ConformanceStore.tested)
    func fieldsPerRecordTypeAreBounded(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for batch in 0..<5 {
            #expect(try await server.create("wide\(batch)", Self.fields(200, prefix: "b\(batch)f"), type: "Photo").isRecord("wide\(batch)"))
        }
        let refused = try await server.modify([
            Server.operation("create", "known", recordType: "Photo", fields: ["b0f1": ["value": 1]]),
            Server.operation("create", "more", recordType: "Photo", fields: ["lens": ["value": "50mm"]]),
        ])
        #expect(refused.isError("BAD_REQUEST", status: 400), "\(refused)")
        let reason = refused.json["reason"].string ?? ""
        #expect(reason.contains("Photo") && reason.contains("at most 1000 fields") && !reason.hasPrefix("limitExceeded"), "\(refused)")
        #expect(try await server.lookup(["known", "more"]).records.map { $0["serverErrorCode"] } == ["NOT_FOUND", "NOT_FOUND"])
        #expect(try await server.store.schema(ofAccount: server.alice.name).count == 1_000)
        #expect(try await server.create("known", ["b0f1": ["value": 1]], type: "Photo").isRecord("known"))
        #expect(try await server.create("note", ["lens": ["value": "50mm"]], type: "Note").isRecord("note"))
        #expect(server.sweepFindings == [])
    }

    @Test("A save whose fields all have types this process knows reads no schema: with the store's schema altered behind it it still saves, read as the types it knows; a new field then reads the store's")
    func knownTypesAreNotReadAgain() async throws {
        let store = try SQLiteRecordStore.inMemory(
            clock: .fixed(Timestamp(milliseconds: Server.start)), maximumRecordsPerRequest: Server.maximumOperations)
        let server = try await ConformanceServer(store: store)
        #expect(try await server.create("p1", Self.typedPhoto, type: "Photo").isRecord("p1"))
        // Not what a server does (a type never changes): it tells whether the schema was read.
        try await store.writer.write { db in try db.execute(sql: "UPDATE fieldType SET type = 'STRING' WHERE fieldName = 'taken'") }
        let known = try await server.create("p2", ["taken": ["value": 1_700_000_000_777]], type: "Photo")
        #expect(known.isRecord("p2"), "\(known)")
        #expect(try await server.record("p2")["fields"]["taken"]["type"] == "TIMESTAMP")
        let unknown = try await server.modify([
            Server.operation("create", "p3", recordType: "Photo", fields: ["lens": ["value": "50mm"], "taken": ["value": 1_700_000_000_888]]),
        ])
        #expect(unknown.isError("BAD_REQUEST", status: 400), "\(unknown)")
        #expect(unknown.json["reason"].string?.contains("field taken of record type Photo is") == true, "\(unknown)")
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
