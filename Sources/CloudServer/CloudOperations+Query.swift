import CloudKitModel
import CloudWebServices
import Foundation
import ServerStore

/// `records/query`.
extension CloudOperations {
    /// `query{recordType, filterBy[], sortBy[]}` in `zoneID` (the default zone if none, or
    /// every zone with `zoneWide: true`), `resultsLimit?`, `continuationMarker?`,
    /// `desiredKeys?`: the records the filters admit, in the order asked, a page at a time.
    ///
    /// The store filters and sorts (`RecordZoneStore.query`) and reads one page from where
    /// the marker says the last one ended (`QueryMarker`), so a page costs what it returns.
    /// A query naming fields beyond the store's bound on queried fields
    /// (`QueryableFields.maximumMarks`) is `BAD_REQUEST` naming the limit. The first query
    /// naming a field waits for its keys to be stored (`QueryableFills`, shared by the
    /// queries that name it meanwhile) for at most `QueryableFills.waitLimit`, then is
    /// `TRY_AGAIN_LATER` with `retryAfter` while the fill goes on.
    func query(_ body: Object) async throws -> Object {
        let request = try RecordQuery(body["query"])
        let answer = try answer(body)
        let limit = try Self.limit(body["resultsLimit"], maximum: Self.maximumOperations)
        let desiredKeys = try Self.desiredKeys(body)
        let zones: [RecordZoneID]
        if body["zoneID"] == nil || body["zoneID"] == .null, try Self.bool(body["zoneWide"], at: "zoneWide") == true {
            zones = try await store.zones(account: owner)
        } else {
            zones = [try WebServicesFormat.zoneIDOrDefault(body["zoneID"])]
        }
        var query = StoredQuery(recordType: request.recordType, zones: zones, filters: request.filters, sorts: request.sorts, limit: limit)
        if let marker = body["continuationMarker"] { query.after = try QueryMarker.position(marker, in: query) }
        let page: StoredQueryPage
        do {
            // The request waits for a fill of the fields it names at most its deadline, counted
            // from when it came to its account's line; the store's query then finds them ready.
            let waited = AnswerShareMiddleware.arrived.map { ContinuousClock.now - $0 } ?? .zero
            let limit = max(.zero, QueryableFills.waitLimit - waited)
            try await store.makeQueryable(query.fieldNames, of: query.recordType, account: owner, waitingAtMost: limit)
            page = try await store.query(account: owner, query)
        } catch CloudError.zoneNotFound where zones == [RecordZoneID.defaultZone] {
            // The default zone always exists, if only as nothing written to it yet.
            page = StoredQueryPage(records: [], next: nil)
        } catch let full as QueryableFields.LimitReached {
            throw WebServicesError.badRequest(
                "query names \(full.unmarked.joined(separator: ", ")) of \(request.recordType), never queried before: "
                    + "this server keeps the keys of at most \(full.maximum) (recordType, fieldName) pairs a database's queries name.")
        } catch let filling as QueryableFills.StillFilling {
            throw WebServicesError(
                code: "TRY_AGAIN_LATER",
                reason: "\(filling.fieldNames.joined(separator: ", ")) of \(filling.recordType) are being made queryable "
                    + "(their keys stored for every record, which the first query naming them does); "
                    + "try again in \(Int(filling.retryAfter.rounded(.up))) s.",
                retryAfter: filling.retryAfter)
        }
        var result: Object = ["records": .array(page.records.map { Self.object($0, desiredKeys: desiredKeys, answer) })]
        if let next = page.next { result["continuationMarker"] = .string(QueryMarker.marker(next)) }
        return result
    }
}
