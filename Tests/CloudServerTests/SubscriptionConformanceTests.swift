import Foundation
import Testing

/// Zone subscriptions and `tokens/create`, in the shapes of Apple's reference (cases 57-58).
@Suite("Conformance: subscriptions and tokens/create (cases 57-58)", .serialized)
struct SubscriptionConformanceTests {
    typealias Server = ConformanceServer

    @Test("A zone subscription is created, listed, looked up (with and without the database in the path) and deleted; bob sees none of alice's", arguments: ConformanceStore.tested)
    func subscriptionLifecycle(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let created = try await server.post("subscriptions/modify", ["operations": [[
            "operationType": "create",
            "subscription": ["subscriptionType": "zone", "subscriptionID": "ideas-zone", "zoneID": ["zoneName": "Ideas"]],
        ]]])
        #expect(created.status == 200, "\(created)")
        let subscription = created.json["subscriptions"][0]
        #expect(subscription["subscriptionID"] == "ideas-zone" && subscription["subscriptionType"] == "zone")
        #expect(subscription["zoneID"]["zoneName"] == "Ideas")
        #expect(try await server.get("subscriptions/list").json["subscriptions"].array?.count == 1)
        #expect(try await server.get("subscriptions/list", as: server.bob).json["subscriptions"].array?.count == 0)

        let lookups = [
            try await server.post("subscriptions/lookup", ["subscriptions": [["subscriptionID": "ideas-zone"], ["subscriptionID": "x"]]]),
            try await server.post(
                "subscriptions/lookup", ["subscriptions": [["subscriptionID": "ideas-zone"], ["subscriptionID": "x"]]],
                in: "/database/1/\(Server.container)/production"),
        ]
        for lookup in lookups {
            #expect(lookup.status == 200, "\(lookup)")
            #expect(lookup.json["subscriptions"][0]["subscriptionID"] == "ideas-zone")
            #expect(lookup.json["subscriptions"][1]["serverErrorCode"] == "NOT_FOUND" && lookup.json["subscriptions"][1]["subscriptionID"] == "x")
        }
        // Bob deleting alice's subscription id deletes nothing of hers.
        let bobs = try await server.post(
            "subscriptions/modify", ["operations": [["operationType": "delete", "subscription": ["subscriptionID": "ideas-zone"]]]], as: server.bob)
        #expect(bobs.json["subscriptions"][0]["serverErrorCode"] == "NOT_FOUND")
        let deleted = try await server.post(
            "subscriptions/modify", ["operations": [["operationType": "delete", "subscription": ["subscriptionID": "ideas-zone"]]]])
        #expect(deleted.status == 200 && deleted.json["subscriptions"][0]["serverErrorCode"].string == nil, "\(deleted)")
        let after = try await server.post("subscriptions/lookup", ["subscriptions": [["subscriptionID": "ideas-zone"]]])
        #expect(after.json["subscriptions"][0]["serverErrorCode"] == "NOT_FOUND")
        #expect(server.sweepFindings == [])
    }

    @Test("Query subscriptions, an unknown operationType or a subscription without a zone are BAD_REQUEST", arguments: ConformanceStore.tested)
    func refusedSubscriptions(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        for operation: [String: Any] in [
            ["operationType": "create", "subscription": ["subscriptionType": "query", "query": ["recordType": "Idea"]]],
            ["operationType": "upsert", "subscription": ["subscriptionType": "zone", "zoneID": ["zoneName": "Ideas"]]],
            ["operationType": "create", "subscription": ["subscriptionType": "zone"]],
        ] {
            let refused = try await server.post("subscriptions/modify", ["operations": [operation]])
            #expect(refused.isError("BAD_REQUEST", status: 400), "\(refused)")
        }
        #expect(try await server.get("subscriptions/list").json["subscriptions"].array?.count == 0)
        #expect(server.sweepFindings == [])
    }

    @Test("tokens/create (no database in the path) answers apnsEnvironment, apnsToken and a webcourierURL; a bad apnsEnvironment is BAD_REQUEST", arguments: ConformanceStore.tested)
    func tokensCreate(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store)
        let path = "/database/1/\(Server.container)/development"
        let token = try await server.post("tokens/create", ["apnsEnvironment": "development"], in: path)
        #expect(token.status == 200, "\(token)")
        #expect(token.json["apnsEnvironment"] == "development" && token.json["apnsToken"].string?.isEmpty == false)
        let url = try #require(token.json["webcourierURL"].string.flatMap(URL.init(string:)))
        #expect(url.absoluteString.hasPrefix(server.baseURL + "/webcourier/"))
        let refused = try await server.post("tokens/create", ["apnsEnvironment": "staging"], in: path)
        #expect(refused.isError("BAD_REQUEST", status: 400), "\(refused)")
        #expect(try await server.post("tokens/create", ["apnsEnvironment": "production"], auth: .none, in: path).status == 421)
        #expect(server.sweepFindings == [])
    }
}
