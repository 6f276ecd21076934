import Foundation
import Testing

/// Cases 1-8 of the conformance list: Apple's query-parameter tokens (and our Bearer header),
/// users/current, methods, and the container, environment and database a path names.
@Suite("Conformance: authentication and URLs (cases 1-8)", .serialized)
struct AuthenticationConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    /// Where users/current is.
    static let publicDatabase = Server.database("public")
    /// The fields of a record no refused request may write.
    static var noted: [String: Any] { Server.ideaFields(title: "written without a valid token") }

    @Test(
        "No credentials, or an API token without a web token: 421 AUTHENTICATION_REQUIRED with uuid, reason and an absolute redirectURL; nothing is written",
        arguments: ConformanceStore.tested)
    func missingWebToken(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let create = [Server.operation("create", "unsigned", fields: Self.noted)]
        for auth in [Credentials.none, .tokens(api: server.apiToken, web: nil)] {
            let probe = try await server.get("users/current", auth: auth, in: Self.publicDatabase)
            let write = try await server.modify(create, auth: auth)
            let list = try await server.get("zones/list", auth: auth)
            for answer in [probe, write, list] {
                #expect(answer.isError("AUTHENTICATION_REQUIRED", status: 421), "\(auth): \(answer)")
                let redirect = answer.json["redirectURL"].string.flatMap { URL(string: $0) }
                #expect(redirect?.scheme == "https" || redirect?.scheme == "http", "\(auth): \(answer)")
                #expect(redirect?.host?.isEmpty == false, "\(auth): \(answer)")
            }
        }
        #expect(try await server.record("unsigned")["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "users/current in the public database answers the token's userRecordName (starting with _), the same by query parameters or a Bearer header, and another for another account",
        arguments: ConformanceStore.tested)
    func currentUser(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let byQuery = try await server.get("users/current", in: Self.publicDatabase)
        #expect(byQuery.status == 200, "\(byQuery)")
        let alice = try #require(byQuery.json["userRecordName"].string, "\(byQuery)")
        #expect(alice.hasPrefix("_"))
        let byBearer = try await server.get("users/current", auth: .bearer, in: Self.publicDatabase)
        #expect(byBearer.status == 200 && byBearer.json["userRecordName"].string == alice, "\(byBearer)")
        let bob = try await server.userRecordName(of: server.bob)
        #expect(bob.hasPrefix("_") && bob != alice)
        #expect(try await server.userRecordName() == alice)
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A wrong or revoked web token, a web token without an API token, or a wrong API token: 401 AUTHENTICATION_FAILED; nothing is written",
        arguments: ConformanceStore.tested)
    func refusedTokens(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let wrongWeb = "ibx_" + String(repeating: "A", count: 43)
        let wrongAPI = Server.randomHex(byteCount: 32)
        let refused: [Credentials] = [
            .tokens(api: server.apiToken, web: wrongWeb),
            .tokens(api: server.apiToken, web: server.revokedWebToken),
            .tokens(api: nil, web: server.alice.webToken),
            .tokens(api: wrongAPI, web: server.alice.webToken),
            .tokens(api: "not-an-api-token", web: server.alice.webToken),
            .header("Bearer " + wrongWeb),
            .header("Bearer " + server.revokedWebToken),
        ]
        let create = [Server.operation("create", "refused", fields: Self.noted)]
        for auth in refused {
            let write = try await server.modify(create, auth: auth)
            #expect(write.isError("AUTHENTICATION_FAILED", status: 401), "\(auth): \(write)")
            let probe = try await server.get("users/current", auth: auth, in: Self.publicDatabase)
            #expect(probe.isError("AUTHENTICATION_FAILED", status: 401), "\(auth): \(probe)")
        }
        #expect(try await server.record("refused")["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A web token holding '+', '/' and '=' sent percent-encoded (%2B, %2F, %3D) as Apple asks is accepted; so is a Bearer header alone (ours)",
        arguments: ConformanceStore.tested)
    func tokenEncoding(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let token = server.aliceBase64Token
        try #require(token.contains("+") && token.contains("/") && token.contains("="))
        let encoded = Server.percentEncoded(token)
        #expect(encoded.contains("%2B") && encoded.contains("%2F") && encoded.contains("%3D"))
        let alice = try await server.userRecordName()
        let probe = try await server.get("users/current", auth: .tokens(api: server.apiToken, web: token), in: Self.publicDatabase)
        #expect(probe.status == 200 && probe.json["userRecordName"].string == alice, "\(probe)")
        let query = try await server.post(
            "records/query", ["zoneID": Server.zoneID(Server.ideas), "query": ["recordType": "Idea"]],
            auth: .tokens(api: server.apiToken, web: token))
        #expect(query.status == 200 && query.json["records"].array != nil, "\(query)")
        let bearer = try await server.modify([Server.operation("create", "by-bearer", fields: Self.noted)], auth: .bearer)
        #expect(bearer.status == 200 && bearer.records.first?.isRecord("by-bearer") == true, "\(bearer)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "A GET of a POST endpoint is 405 with an error dictionary; zones/list answers GET and POST (ours) alike",
        arguments: ConformanceStore.tested)
    func methods(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for operation in ["records/query", "records/modify", "records/lookup", "zones/modify", "changes/zone"] {
            let answer = try await server.get(operation)
            #expect(answer.status == 405, "GET \(operation): \(answer)")
            #expect(answer.errorCode != nil && answer.json["reason"].string != nil && answer.json["uuid"].string != nil, "GET \(operation): \(answer)")
        }
        let byGet = try await server.get("zones/list")
        let byPost = try await server.post("zones/list")
        #expect(byGet.status == 200 && byPost.status == 200, "\(byGet) \(byPost)")
        #expect(Set(byGet.zoneNames) == ["_defaultZone", Server.ideas])
        #expect(byGet.zoneNames == byPost.zoneNames)
        #expect(server.sweepFindings == [])
    }

    @Test(
        "Another container is 404 NOT_FOUND, the environment staging 400 BAD_REQUEST; production and development are served",
        arguments: ConformanceStore.tested)
    func containersAndEnvironments(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for container in ["iCloud.com.example.Other", "iCloud.com.buildwithharry.IdeaBox2"] {
            let other = Server.database("private", container: container)
            let list = try await server.get("zones/list", in: other)
            #expect(list.isError("NOT_FOUND", status: 404), "\(container): \(list)")
            let write = try await server.modify([Server.operation("create", "elsewhere", fields: Self.noted)], in: other)
            #expect(write.isError("NOT_FOUND", status: 404), "\(container): \(write)")
        }
        let staging = try await server.get("zones/list", in: Server.database("private", environment: "staging"))
        #expect(staging.isError("BAD_REQUEST", status: 400), "\(staging)")
        for environment in ["production", "development"] {
            let zones = try await server.get("zones/list", in: Server.database("private", environment: environment))
            #expect(zones.status == 200 && zones.zoneNames.contains("_defaultZone"), "\(environment): \(zones)")
        }
        #expect(try await server.record("elsewhere")["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "The legacy container iCloud.ideabox is still served, with the same records as the default container, both ways",
        arguments: ConformanceStore.tested)
    func legacyContainer(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let legacy = Server.database("private", container: Server.legacyContainer)
        let new = try await server.modify([Server.operation("create", "saved-new", fields: Server.ideaFields(title: "new"))])
        #expect(new.records.first?.isRecord("saved-new") == true, "\(new)")
        let old = try await server.modify([Server.operation("create", "saved-old", fields: Server.ideaFields(title: "old"))], in: legacy)
        #expect(old.records.first?.isRecord("saved-old") == true, "\(old)")
        let throughLegacy = try await server.lookup(["saved-new", "saved-old"], in: legacy)
        #expect(throughLegacy.records.map { $0.field("title") } == ["new", "old"], "\(throughLegacy)")
        let throughDefault = try await server.lookup(["saved-new", "saved-old"])
        #expect(throughDefault.records.map { $0.field("title") } == ["new", "old"], "\(throughDefault)")
        #expect(server.sweepFindings == [])
    }

    @Test(
        "The public database (but users/current) and the shared database are 403 ACCESS_DENIED, and write nothing",
        arguments: ConformanceStore.tested)
    func otherDatabases(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for database in ["public", "shared"] {
            let path = Server.database(database)
            let query = try await server.post("records/query", ["query": ["recordType": "Idea"]], in: path)
            #expect(query.isError("ACCESS_DENIED", status: 403), "\(database): \(query)")
            let list = try await server.get("zones/list", in: path)
            #expect(list.isError("ACCESS_DENIED", status: 403), "\(database): \(list)")
            let write = try await server.modify([Server.operation("create", "in-\(database)", fields: Self.noted)], zone: nil, in: path)
            #expect(write.isError("ACCESS_DENIED", status: 403), "\(database): \(write)")
            #expect(try await server.record("in-\(database)", zone: nil)["serverErrorCode"] == "NOT_FOUND")
        }
        #expect(server.sweepFindings == [])
    }

    @Test(
        "The account comes from the token alone: bob's requests, even naming alice's ownerRecordName, neither see nor change her records",
        arguments: ConformanceStore.tested)
    func accountFromTokenOnly(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let secret = try await server.create("secret", Server.ideaFields(title: "alice's secret", rank: 1))
        let tag = try #require(secret["recordChangeTag"].string, "\(secret)")
        let aliceName = try await server.userRecordName()
        let aliceZone: [String: Any] = ["zoneName": Server.ideas, "ownerRecordName": aliceName]

        let seen = try await server.post("records/lookup", ["zoneID": aliceZone, "records": [["recordName": "secret"]]], as: server.bob)
        #expect(seen.records.first?.field("title") != "alice's secret", "\(seen)")
        let queried = try await server.post("records/query", ["zoneID": aliceZone, "query": ["recordType": "Idea"]], as: server.bob)
        #expect(!queried.recordNames.contains("secret"), "\(queried)")
        let overwrite = Server.operation("update", "secret", recordType: nil, tag: tag, fields: Server.ideaFields(title: "bob's now"))
        _ = try await server.post("records/modify", ["zoneID": aliceZone, "operations": [overwrite]], as: server.bob)
        _ = try await server.modify([Server.operation("forceReplace", "secret", fields: Server.ideaFields(title: "bob's now"))], as: server.bob)
        _ = try await server.modify([Server.operation("forceDelete", "secret", recordType: nil)], as: server.bob)

        let after = try await server.record("secret")
        #expect(after.field("title") == "alice's secret" && after["recordChangeTag"].string == tag, "\(after)")
        #expect(server.sweepFindings == [])
    }
}
