import CloudServer
import Foundation
import ServerStore
import Testing

/// Quotas over the wire with more than one container (`serve --container A --container B`):
/// one quota for the account, whichever container a request names.
@Suite("Conformance: quotas across containers", .serialized)
struct QuotaConformanceTests {
    /// The fixture, for short.
    typealias Server = ConformanceServer

    /// The second container served.
    static let other = "iCloud.com.example.Other"

    @Test(
        "An account limited to 10 records, 3 zones and 1 MiB of assets is held to them across both containers: the second container's records, zones and uploads past them are QUOTA_EXCEEDED",
        arguments: ConformanceStore.tested)
    func oneQuotaAcrossContainers(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store, otherContainers: [Self.other])
        try await server.store.setQuota(AccountQuota(maxRecords: 10, maxZones: 3, maxAssetBytes: 1 << 20), account: server.alice.name)
        let other = Server.database("private", container: Self.other)

        let zones = try await server.post("zones/modify", [
            "operations": ["Ideas", "Second", "Third"].map { ["operationType": "create", "zone": ["zoneID": ["zoneName": $0]]] },
        ], in: other)
        #expect(zones.status == 200 && zones.zones.map { $0["serverErrorCode"].string } == [nil, nil, "QUOTA_EXCEEDED"], "\(zones)")

        let here = try await server.modify((0..<6).map { Server.operation("create", "r\($0)", fields: Server.ideaFields(title: "here")) })
        #expect(here.records.allSatisfy { $0["recordChangeTag"].string != nil }, "\(here)")
        let there = try await server.modify(
            (0..<6).map { Server.operation("create", "s\($0)", fields: Server.ideaFields(title: "there")) }, atomic: false, in: other)
        #expect(there.records.filter { $0["recordChangeTag"].string != nil }.count == 4, "\(there)")
        #expect(there.records.suffix(2).allSatisfy { $0["serverErrorCode"] == "QUOTA_EXCEEDED" }, "\(there)")

        _ = try await AssetConformanceTests.upload(
            Data(repeating: 1, count: 700_000), to: try await AssetConformanceTests.uploadURL(server, recordName: "a"), server: server)
        let uploadThere = try await server.post(
            "assets/upload", ["zoneID": Server.zoneID(Server.ideas), "tokens": [["recordName": "b", "recordType": "Idea", "fieldName": "image"]]],
            in: other)
        let url = try #require(uploadThere.json["tokens"][0]["url"].string.flatMap { URL(string: $0) }, "\(uploadThere)")
        let refused = try await server.fetch(url, method: "POST", body: Data(repeating: 2, count: 400_000))
        #expect(refused.isError("QUOTA_EXCEEDED", status: 413), "\(refused)")

        #expect(try await server.store.usage(account: server.alice.name) == AccountUsage(records: 10, zones: 3, assetBytes: 700_000))
        #expect(server.sweepFindings == [])
    }

    @Test(
        "users/usage (ours) answers what the caller's own account holds across containers and its quota, GET or POST; another account's token sees only its own; no token, nothing",
        arguments: ConformanceStore.tested)
    func usageIsTheCallersOwn(store: ConformanceStore) async throws {
        let server = try await ConformanceServer(store, otherContainers: [Self.other])
        try await server.store.setQuota(AccountQuota(maxRecords: 50, maxZones: nil, maxAssetBytes: 1 << 20), account: server.alice.name)
        _ = try await server.modify((0..<3).map { Server.operation("create", "r\($0)", fields: Server.ideaFields(title: "here")) })
        _ = try await server.post("zones/modify", [
            "operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Elsewhere"]]]],
        ], in: Server.database("private", container: Self.other))

        let alice = try await server.get("users/usage")
        #expect(alice.status == 200, "\(alice)")
        #expect(alice.json["records"] == .integer(3) && alice.json["zones"] == .integer(2) && alice.json["assetBytes"] == .integer(0), "\(alice)")
        #expect(alice.json["quota"] == .object(["maxRecords": .integer(50), "maxZones": .null, "maxAssetBytes": .integer(1 << 20)]), "\(alice)")
        #expect(try await server.post("users/usage", in: Server.database("private", container: Self.other)).json == alice.json)

        let bob = try await server.get("users/usage", as: server.bob)
        #expect(bob.json["records"] == .integer(0) && bob.json["zones"] == .integer(1), "\(bob)")
        #expect(bob.json["quota"]["maxZones"] == .integer(100) && bob.json["quota"]["maxRecords"] == .null, "\(bob)")
        #expect(try await server.get("users/usage", auth: .none).isError("AUTHENTICATION_REQUIRED", status: 421))
        #expect(try await server.get("users/usage", auth: .tokens(api: server.apiToken, web: "ibx_wrong")).isError("AUTHENTICATION_FAILED", status: 401))
        #expect(try await server.get("users/usage", in: Server.database("public")).isError("ACCESS_DENIED", status: 403))
        #expect(server.sweepFindings == [])
    }
}
