import CloudKitModel
import Foundation
import IdeaBoxFoundation

/// A server's answers as a client reads them: what a status and body mean, the results of a
/// `records/modify`, a page of zone changes, a page of a query. Kept apart from the HTTP
/// client (`WebServicesDatabase`, which sends the requests and calls these on what comes
/// back) so that every reading of a hostile server's bytes can be fuzzed without building an
/// HTTP stack (`.ci/fuzz`'s `answer` target). Anything a server should not have sent is
/// `CloudError.networkFailure`: a broken answer, never a crash.
public enum WebServicesAnswer {
    /// The JSON object of a successful answer's body.
    public static func object(_ body: some Collection<UInt8>) throws -> WebServicesFormat.Object {
        guard let object = json(body)?.object else { throw CloudError.networkFailure }
        return object
    }

    /// The JSON value `body` holds, read in place where its bytes are contiguous (a network
    /// buffer's are), or nil.
    private static func json(_ body: some Collection<UInt8>) -> JSONValue? {
        let inPlace = body.withContiguousStorageIfAvailable { try? JSONValue(parsing: UnsafeRawBufferPointer($0)) }
        return inPlace ?? (try? JSONValue(parsing: Array(body)))
    }

    /// Nothing if `status` is a success; else the `CloudError` the answer means: its error
    /// object's code (with `retryAfter` from the `Retry-After` header if the object names
    /// none), or else its status alone.
    public static func checkSuccess(status: Int, retryAfterHeader: String?, body: some Collection<UInt8>) throws {
        if status == 200 { return }
        let object = json(body)?.object
        let retryAfter = retryAfterHeader.flatMap(Double.init)?.clamped(to: 0...86_400)
        if var error = object.flatMap(WebServicesError.init) {
            if error.retryAfter == nil { error.retryAfter = retryAfter }
            throw error.cloudError()
        }
        switch status {
        case 401, 403, 421: throw CloudError.notAuthenticated
        case 429: throw CloudError.requestRateLimited(retryAfter: retryAfter ?? 30)
        case 502, 503, 504: throw CloudError.serviceUnavailable(retryAfter: retryAfter)
        case 500...: throw CloudError.internalError
        default: throw CloudError.networkFailure
        }
    }

    /// The results of a `records/modify` that deleted `deletes` and then saved `saves` (in
    /// that order, as the request named them): each save as the server now has it, each
    /// delete done, each refusal with the server's record where it sent one.
    public static func modifyResult(_ answer: WebServicesFormat.Object, deletes: [RecordID], saves: [RemoteRecord]) throws -> ModifyResult {
        guard let results = answer["records"]?.array, results.count == deletes.count + saves.count else {
            throw CloudError.networkFailure
        }
        var result = ModifyResult()
        for (index, json) in results.enumerated() {
            guard let object = json.object else { throw CloudError.networkFailure }
            let recordID = index < deletes.count ? deletes[index] : saves[index - deletes.count].recordID
            if let error = WebServicesError(object) {
                let serverRecord = try object["serverRecord"].map { try record($0, zone: recordID.zoneID) }
                result.failures[recordID] = error.cloudError(serverRecord: serverRecord)
            } else if index < deletes.count {
                result.deleted.append(recordID)
            } else {
                let answered = try record(json, zone: recordID.zoneID)
                var saved = saves[index - deletes.count]
                guard answered.recordID == saved.recordID else { throw CloudError.networkFailure }
                // A save keeps the stored record's type: the answer says which one it has.
                saved.recordType = answered.recordType
                saved.changeTag = answered.changeTag
                saved.creationDate = answered.creationDate
                saved.modificationDate = answered.modificationDate
                result.saved.append(saved)
            }
        }
        return result
    }

    /// The page of `zone` in a `changes/zone` answer (one zone asked), or the error it holds.
    public static func changesZonePage(_ answer: WebServicesFormat.Object, zone: RecordZoneID) throws -> ZoneChanges {
        let zones = answer["zones"]?.array
        guard let first = zones?.first?.object, zones?.count == 1 else { throw CloudError.networkFailure }
        if let error = WebServicesError(first) { throw error.cloudError() }
        return try zoneChanges(first, zone: zone)
    }

    /// A page of `zone`'s changes as `records/changes` spells it: `{records, syncToken, moreComing}`.
    public static func zoneChanges(_ answer: WebServicesFormat.Object, zone: RecordZoneID) throws -> ZoneChanges {
        guard let records = answer["records"]?.array, let syncToken = answer["syncToken"]?.string,
              let tokenData = Data(base64Encoded: syncToken), let moreComing = answer["moreComing"]?.bool
        else { throw CloudError.networkFailure }
        var changed: [RemoteRecord] = []
        var deleted: [DeletedRecord] = []
        for json in records {
            guard let object = json.object else { throw CloudError.networkFailure }
            if object["deleted"]?.bool == true {
                guard let name = object["recordName"]?.string, let type = object["recordType"]?.string else {
                    throw CloudError.networkFailure
                }
                deleted.append(DeletedRecord(recordID: RecordID(recordName: name, zoneID: zone), recordType: type))
            } else {
                changed.append(try record(json, zone: zone))
            }
        }
        return ZoneChanges(changed: changed, deleted: deleted, token: ChangeToken(data: tokenData), moreComing: moreComing)
    }

    /// A page of a `records/query` answer: its records and the marker of the next page.
    public static func queryPage(_ answer: WebServicesFormat.Object, zone: RecordZoneID) throws -> (records: [RemoteRecord], continuationMarker: String?) {
        guard let page = answer["records"]?.array else { throw CloudError.networkFailure }
        return (try page.map { try record($0, zone: zone) }, answer["continuationMarker"]?.string)
    }

    /// A record the server sent (in its own `zoneID` if it names one, else in `zone`); one it
    /// should not have sent is a broken answer.
    public static func record(_ json: JSONValue, zone: RecordZoneID) throws -> RemoteRecord {
        do {
            let recordZone = try json.object?["zoneID"].map { try WebServicesFormat.zoneID($0) } ?? zone
            return try WebServicesFormat.record(json, zone: recordZone, at: "record")
        } catch {
            throw CloudError.networkFailure
        }
    }
}
