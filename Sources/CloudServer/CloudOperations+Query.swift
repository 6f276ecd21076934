import CloudKitModel
import CloudWebServices
import Foundation
import ServerStore

/// `records/query`.
extension CloudOperations {
    /// How many records one read of the store brings while a query runs.
    private static let queryBatch = 1000

    /// `query{recordType, filterBy[], sortBy[]}` in `zoneID` (the default zone if none, or
    /// every zone with `zoneWide: true`), `resultsLimit?`, `continuationMarker?`,
    /// `desiredKeys?`: the records the filters admit, in the order asked, a page at a time.
    ///
    /// Every record of the type is read and filtered here, so that both stores apply exactly
    /// the same rules; the marker is the position in the sorted result.
    func query(_ body: Object) async throws -> Object {
        let query = try RecordQuery(body["query"])
        let answer = try answer(body)
        let limit = try Self.limit(body["resultsLimit"], maximum: Self.maximumOperations)
        let desiredKeys = try Self.desiredKeys(body)
        let start = try body["continuationMarker"].map(Self.position(of:)) ?? 0
        let zones: [RecordZoneID]
        if body["zoneID"] == nil || body["zoneID"] == .null, try Self.bool(body["zoneWide"], at: "zoneWide") == true {
            zones = try await store.zones(account: owner)
        } else {
            zones = [try WebServicesFormat.zoneIDOrDefault(body["zoneID"])]
        }
        var matches: [RemoteRecord] = []
        for zone in zones {
            matches += try await records(ofType: query.recordType, in: zone).filter(query.admits)
        }
        let sorted = query.sorted(matches)
        guard start <= sorted.count else { throw WebServicesError.badRequest("continuationMarker is past the end of this query.") }
        let page = sorted[start...].prefix(limit)
        var result: Object = ["records": .array(page.map { Self.object($0, desiredKeys: desiredKeys, answer) })]
        if start + page.count < sorted.count { result["continuationMarker"] = .string(Self.marker(start + page.count)) }
        return result
    }

    /// Every record of `recordType` in `zone` (none in a default zone never written to).
    private func records(ofType recordType: String, in zone: RecordZoneID) async throws -> [RemoteRecord] {
        var records: [RemoteRecord] = []
        do {
            while true {
                let batch = try await store.records(
                    account: owner, in: zone, ofType: recordType, after: records.last?.recordID.recordName, limit: Self.queryBatch)
                records += batch
                if batch.count < Self.queryBatch { return records }
            }
        } catch CloudError.zoneNotFound where zone == RecordZoneID.defaultZone {
            return []
        }
    }

    /// The marker for the position `index` of a query's result: `q1:<index>` in base64.
    private static func marker(_ index: Int) -> String {
        Data("q1:\(index)".utf8).base64EncodedString()
    }

    private static func position(of json: JSONValue) throws -> Int {
        guard let text = json.string, text.utf8.count <= 64, let data = Data(base64Encoded: text),
              case let parts = String(decoding: data, as: UTF8.self).split(separator: ":"), parts.count == 2, parts[0] == "q1",
              let index = Int(parts[1]), index >= 0
        else { throw WebServicesError.badRequest("continuationMarker must be a marker this server gave out.") }
        return index
    }
}
