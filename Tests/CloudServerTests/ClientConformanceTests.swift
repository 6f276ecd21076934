import Foundation
import Testing

/// Issue 63: what a third-party CloudKit Web Services client built on Apple's reference sends,
/// answered as Apple documents it: `users/discover` with `lookupInfos`, the `users` family's
/// other endpoints and `tokens/register` (never a 404 for a documented endpoint), timestamps
/// with a fraction of a millisecond, and `null` or no body where a value is required refused
/// as `BAD_REQUEST`; on SQLite and PostgreSQL.
@Suite("Conformance: what a third-party client sends", .serialized)
struct ClientConformanceTests {
    typealias Server = ConformanceServer

    static let publicDatabase = Server.database("public")

    @Test(
        "users/discover takes Apple's lookupInfos: the caller found by its record name, anyone else answered with only the lookup; another account's identity is never revealed",
        arguments: ConformanceStore.tested)
    func discoverByLookupInfos(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let me = try await server.userRecordName()
        let bob = try await server.userRecordName(of: server.bob)
        let lookups: [[String: Any]] = [
            ["userRecordName": me], ["userRecordName": bob], ["emailAddress": "alice@example.com"], ["phoneNumber": "+886 2 1234 5678"],
        ]
        let answer = try await server.post("users/discover", ["lookupInfos": lookups], in: Self.publicDatabase)
        #expect(answer.status == 200, "\(answer)")
        #expect(answer.json["users"] == [
            ["userRecordName": .string(me), "lookupInfo": ["userRecordName": .string(me)]],
            ["lookupInfo": ["userRecordName": .string(bob)]],
            ["lookupInfo": ["emailAddress": "alice@example.com"]],
            ["lookupInfo": ["phoneNumber": "+886 2 1234 5678"]],
        ], "\(answer)")
        let asBob = try await server.post("users/discover", ["lookupInfos": [["userRecordName": me]]], as: server.bob, in: Self.publicDatabase)
        #expect(asBob.json["users"] == [["lookupInfo": ["userRecordName": .string(me)]]], "\(asBob)")
        for bad: [String: Any] in [[:], ["lookupInfos": NSNull()], ["lookupInfos": [["nickname": "x"]]], ["lookupInfos": "me"]] {
            let refused = try await server.post("users/discover", bad, in: Self.publicDatabase)
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(bad): \(refused)")
        }
        let noBody = try await server.send("POST", Self.publicDatabase + "/users/discover")
        #expect(noBody.isError("BAD_REQUEST", status: 400), "a POST with no body: \(noBody)")
        let addressBook = try await server.get("users/discover", in: Self.publicDatabase)
        #expect(addressBook.status == 200 && addressBook.json["users"] == [], "the GET: \(addressBook)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "users/caller answers the caller's identity; users/lookup/id finds only the caller, users/lookup/email and users/lookup/contacts no one (no account has an address here)",
        arguments: ConformanceStore.tested)
    func theUsersFamily(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let me = try await server.userRecordName()
        let bob = try await server.userRecordName(of: server.bob)
        let caller = try await server.get("users/caller", in: Self.publicDatabase)
        #expect(caller.status == 200 && caller.json["users"] == [["userRecordName": .string(me), "lookupInfo": ["userRecordName": .string(me)]]], "\(caller)")
        let byID = try await server.post("users/lookup/id", ["users": [["userRecordName": bob], ["userRecordName": me]]], in: Self.publicDatabase)
        #expect(byID.status == 200 && byID.json["users"] == [["userRecordName": .string(me)]], "\(byID)")
        let byEmail = try await server.post("users/lookup/email", ["users": [["emailAddress": "bob@example.com"]]], in: Self.publicDatabase)
        #expect(byEmail.status == 200 && byEmail.json["users"] == [], "\(byEmail)")
        let contacts = try await server.post("users/lookup/contacts", in: Self.publicDatabase)
        #expect(contacts.status == 200 && contacts.json["users"] == [], "\(contacts)")
        let wrongKey = try await server.post("users/lookup/email", ["users": [["userRecordName": me]]], in: Self.publicDatabase)
        #expect(wrongKey.isError("BAD_REQUEST", status: 400), "\(wrongKey)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "records/resolve and records/accept (shares) are refused by name as ACCESS_DENIED, never a 404",
        arguments: ConformanceStore.tested)
    func sharingIsRefusedByName(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for (operation, database) in [("records/resolve", Self.publicDatabase), ("records/accept", Server.privateDatabase)] {
            let refused = try await server.post(operation, ["shortGUIDs": [["value": "0abc"]]], in: database)
            #expect(refused.isError("ACCESS_DENIED", status: 403), "\(operation): \(refused)")
            #expect(refused.json["reason"].string?.contains("Sharing is not offered") == true, "\(refused)")
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "tokens/register takes apnsEnvironment and apnsToken (both required), with or without a database in its path; tokens/create needs its apnsEnvironment",
        arguments: ConformanceStore.tested)
    func tokensRegister(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.post("tokens/create", ["apnsEnvironment": "development"])
        let token = try #require(created.json["apnsToken"].string, "\(created)")
        let withoutDatabase = "/database/1/\(Server.container)/production"
        for database in [Server.privateDatabase, withoutDatabase] {
            let registered = try await server.post("tokens/register", ["apnsEnvironment": "development", "apnsToken": token], in: database)
            #expect(registered.status == 200, "\(database): \(registered)")
            #expect(registered.json["apnsToken"].string == token && registered.json["apnsEnvironment"].string == "development", "\(registered)")
        }
        let bad: [[String: Any]] = [
            ["apnsEnvironment": "development"], ["apnsToken": token], ["apnsEnvironment": "staging", "apnsToken": token],
            ["apnsEnvironment": NSNull(), "apnsToken": token], ["apnsEnvironment": "production", "apnsToken": NSNull()],
        ]
        for body in bad {
            let refused = try await server.post("tokens/register", body)
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(body): \(refused)")
        }
        for body: [String: Any] in [[:], ["apnsEnvironment": NSNull()]] {
            let refused = try await server.post("tokens/create", body)
            #expect(refused.isError("BAD_REQUEST", status: 400), "tokens/create \(body): \(refused)")
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A POST without a body is BAD_REQUEST where Apple's reference gives request keys (tokens/create, users/discover's lookups aside, zones/changes, records/modify); atomic: null is BAD_REQUEST and changes nothing",
        arguments: ConformanceStore.tested)
    func requiredValues(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for operation in ["tokens/create", "zones/changes", "records/modify", "records/query", "changes/database", "zones/modify"] {
            let refused = try await server.send("POST", Server.privateDatabase + "/" + operation)
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(operation): \(refused)")
        }
        for operation in ["zones/list", "users/current", "subscriptions/list"] {
            let taken = try await server.send("POST", (operation.hasPrefix("users") ? Self.publicDatabase : Server.privateDatabase) + "/" + operation)
            #expect(taken.status == 200, "\(operation), read with GET too, takes an empty POST: \(taken)")
        }
        let zones = try await server.post("zones/changes", [:])
        #expect(zones.status == 200, "an empty object is a body: \(zones)")

        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID(Server.ideas)]]]])
        let nullAtomic = try await server.modify(
            [Server.operation("create", "n1", fields: Server.ideaFields(title: "x"))], ["atomic": NSNull()])
        #expect(nullAtomic.isError("BAD_REQUEST", status: 400), "\(nullAtomic)")
        #expect(try await server.record("n1").isRecordError("NOT_FOUND", recordName: "n1"))
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A TIMESTAMP with a fraction of a millisecond (a client's Date()) is taken as the millisecond it falls in, in a field, a list and a query filter",
        arguments: ConformanceStore.tested)
    func fractionalTimestamps(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        _ = try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Server.zoneID(Server.ideas)]]]])
        let fields: [String: Any] = [
            "taken": ["value": 1_795_161_600_123.4568, "type": "TIMESTAMP"],
            "moments": ["value": [1_795_161_600_000.9, 1_795_161_600_500.0001], "type": "TIMESTAMP_LIST"],
        ]
        let saved = try await server.create("t1", fields, type: "Photo")
        #expect(saved.isRecord("t1"), "\(saved)")
        let read = try await server.record("t1")
        #expect(read.field("taken").integer == 1_795_161_600_123, "\(read)")
        #expect(read.field("moments") == [1_795_161_600_000, 1_795_161_600_500], "\(read)")
        let query = try await server.post("records/query", [
            "zoneID": Server.zoneID(Server.ideas),
            "query": [
                "recordType": "Photo",
                "filterBy": [["fieldName": "taken", "comparator": "EQUALS", "fieldValue": ["value": 1_795_161_600_123.9, "type": "TIMESTAMP"]]],
            ],
        ])
        #expect(query.recordNames == ["t1"], "\(query)")
        for bad: Any in [Double.greatestFiniteMagnitude, "soon"] {
            let refused = try await server.modify(
                [Server.operation("create", "t2", recordType: "Photo", fields: ["taken": ["value": bad, "type": "TIMESTAMP"]])])
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(bad): \(refused)")
        }
        #expect(server.sweepFindings == [])
    }
}
