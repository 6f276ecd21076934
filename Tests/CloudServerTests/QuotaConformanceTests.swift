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
}
