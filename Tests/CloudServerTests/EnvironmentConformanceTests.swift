import CloudServer
import Foundation
import ProcessTestSupport
import ServerStore
import Testing

/// `development` and `production` are two databases of each account, as CloudKit keeps
/// them: nothing saved in one is seen in the other (records, zones, changes, subscriptions,
/// assets, notifications), what a store of an earlier release holds is production's, and
/// the account's one quota covers both.
@Suite("Conformance: environments", .serialized)
struct EnvironmentConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    static let development = Server.database("private", environment: "development")
    static let production = Server.database("private", environment: "production")

    /// Makes the zone `name` in `database` of alice's.
    static func createZone(_ name: String, _ server: ConformanceServer, in database: String) async throws -> Answer {
        try await server.post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": name]]]]], in: database)
    }

    @Test(
        "What a store of the release before holds is production's; a record, zone or subscription saved in one environment is not found, listed or fetched as a change in the other",
        arguments: ConformanceStore.tested)
    func recordsZonesChangesAndSubscriptionsStayInTheirEnvironment(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        // Seeded through the store under the account's own name, as the release before wrote
        // every environment's data: production has it, development starts empty.
        #expect(try await server.get("zones/list", in: Self.production).zoneNames.contains(Server.ideas))
        #expect(try await server.get("zones/list", in: Self.development).zoneNames == ["_defaultZone"])

        #expect(try await Self.createZone(Server.ideas, server, in: Self.development).status == 200)
        #expect(try await Self.createZone("DevOnly", server, in: Self.development).status == 200)
        let inDevelopment = try await server.modify(
            [Server.operation("create", "dev-record", fields: Server.ideaFields(title: "dev"))], in: Self.development)
        #expect(inDevelopment.records.first?.isRecord("dev-record") == true, "\(inDevelopment)")
        let inProduction = try await server.modify(
            [Server.operation("create", "prod-record", fields: Server.ideaFields(title: "prod"))], in: Self.production)
        #expect(inProduction.records.first?.isRecord("prod-record") == true, "\(inProduction)")

        let fromProduction = try await server.lookup(["dev-record", "prod-record"], in: Self.production)
        #expect(fromProduction.records.map { $0["serverErrorCode"].string ?? "found" } == ["NOT_FOUND", "found"], "\(fromProduction)")
        let fromDevelopment = try await server.lookup(["dev-record", "prod-record"], in: Self.development)
        #expect(fromDevelopment.records.map { $0["serverErrorCode"].string ?? "found" } == ["found", "NOT_FOUND"], "\(fromDevelopment)")

        #expect(!(try await server.get("zones/list", in: Self.production).zoneNames.contains("DevOnly")))
        let productionZones = try await server.post("changes/database", [:], in: Self.production)
        #expect(!productionZones.zoneNames.contains("DevOnly"), "\(productionZones)")
        for (database, name) in [(Self.production, "prod-record"), (Self.development, "dev-record")] {
            let changes = try await server.post("records/changes", ["zoneID": Server.zoneID(Server.ideas)], in: database)
            #expect(changes.recordNames == [name], "\(changes)")
        }

        let subscribed = try await server.post("subscriptions/modify", ["operations": [[
            "operationType": "create", "subscription": ["subscriptionType": "zone", "subscriptionID": "dev-ideas", "zoneID": ["zoneName": "Ideas"]],
        ]]], in: Self.development)
        #expect(subscribed.status == 200, "\(subscribed)")
        #expect(try await server.get("subscriptions/list", in: Self.production).json["subscriptions"].array?.count == 0)
        #expect(try await server.get("subscriptions/list", in: Self.development).json["subscriptions"].array?.count == 1)
        #expect(server.sweepFindings == [])
    }

    @Test(
        "An asset uploaded and saved in development is downloaded there and nowhere in production; a webcourier URL of development is woken by development's changes, not production's",
        arguments: ConformanceStore.tested)
    func assetsAndNotificationsStayInTheirEnvironment(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        #expect(try await Self.createZone(Server.ideas, server, in: Self.development).status == 200)
        let upload = try await server.post(
            "assets/upload", ["zoneID": Server.zoneID(Server.ideas), "tokens": [["recordName": "a", "recordType": "Idea", "fieldName": "image"]]],
            in: Self.development)
        let uploadURL = try #require(upload.json["tokens"][0]["url"].string.flatMap { URL(string: $0) }, "\(upload)")
        let bytes = AssetConformanceTests.bytes("development")
        let file = try await AssetConformanceTests.upload(bytes, to: uploadURL, server: server)
        let checksum = try #require(file["fileChecksum"].string)
        let saved = try await server.modify(
            [Server.operation("create", "a", fields: ["image": ["value": file.foundationValue, "type": "ASSETID"]])], in: Self.development)
        let download = try #require(saved.records.first?["fields"]["image"]["value"]["downloadURL"].string.flatMap { URL(string: $0) }, "\(saved)")
        #expect(try await server.fetch(download).body == bytes)
        let elsewhere = try await server.post("assets/download", ["fileChecksum": checksum], in: Self.production)
        #expect(elsewhere.isError("NOT_FOUND", status: 404), "\(elsewhere)")
        #expect(try await server.post("assets/download", ["fileChecksum": checksum], in: Self.development).body == bytes)

        _ = try await server.post("subscriptions/modify", ["operations": [[
            "operationType": "create", "subscription": ["subscriptionType": "zone", "subscriptionID": "ideas", "zoneID": ["zoneName": "Ideas"]],
        ]]], in: Self.development)
        let token = try await server.post("tokens/create", ["apnsEnvironment": "development"], in: Self.development)
        let courier = try #require(token.json["webcourierURL"].string.flatMap { URL(string: $0 + "?timeout=1") })
        // A change in production while the development poll is held never wakes it: it ends
        // at its timeout with {}.
        let quiet = Task { try await server.fetch(courier) }
        try await Poll.until("the development poll is held") { server.pollsHeld == 1 }
        _ = try await server.modify([Server.operation("forceReplace", "p", fields: Server.ideaFields(title: "production"))], in: Self.production)
        let fromProduction = try await quiet.value
        #expect(fromProduction.status == 200 && fromProduction.json.object?.isEmpty == true, "\(fromProduction)")
        let woken = Task { try await server.fetch(URL(string: courier.absoluteString.replacingOccurrences(of: "timeout=1", with: "timeout=30"))!) }
        try await Poll.until("the development poll is held again") { server.pollsHeld == 1 }
        _ = try await server.modify([Server.operation("forceReplace", "d", fields: Server.ideaFields(title: "development"))], in: Self.development)
        let fromDevelopment = try await woken.value
        #expect(fromDevelopment.json["notificationType"] == "recordZone" && fromDevelopment.json["zoneID"]["zoneName"] == "Ideas", "\(fromDevelopment)")
    }

    @Test("The account's one quota covers both environments: a development zone past what production holds is QUOTA_EXCEEDED", arguments: ConformanceStore.tested)
    func oneQuotaForBothEnvironments(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        try await server.store.setQuota(AccountQuota(maxRecords: nil, maxZones: 2, maxAssetBytes: nil), account: server.alice.name)
        let zones = try await server.post("zones/modify", [
            "operations": ["Ideas", "Second"].map { ["operationType": "create", "zone": ["zoneID": ["zoneName": $0]]] },
        ], in: Self.development)
        #expect(zones.zones.map { $0["serverErrorCode"].string } == [nil, "QUOTA_EXCEEDED"], "\(zones)")
        #expect(try await server.store.usage(account: server.alice.name).zones == 2)
    }
}
