import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation

/// A server's answer as the HTTP client reads it: `WebServicesAnswer`, which
/// `WebServicesDatabase` calls on every answer (what a status and body mean; a modify's
/// results, with the server records of conflicts; a page of changes, of a long poll's carried
/// changes or of a query), and the format beneath it (zones, sync tokens, an uploaded asset).
/// None may crash; a record read must also read back from the way the server writes it.
enum AnswerFuzz {
    /// The zone a record without its own `zoneID` is read in.
    static let zone = RecordZoneID(zoneName: "Ideas")

    /// Reads `bytes` as an answer's body.
    static func run(_ bytes: [UInt8]) {
        for status in [200, 400, 401, 429, 503] {
            _ = try? WebServicesAnswer.checkSuccess(status: status, retryAfterHeader: "7", body: bytes)
        }
        guard let answer = try? WebServicesAnswer.object(bytes) else { return }
        client(answer)
        _ = WebServicesError(answer)?.cloudError()
        for json in answer["records"]?.array ?? [] {
            guard let object = json.object else { continue }
            let recordZone = (try? object["zoneID"].map { try WebServicesFormat.zoneID($0) }) ?? zone
            if let error = WebServicesError(object) {
                let serverRecord = try? object["serverRecord"].map { try WebServicesFormat.record($0, zone: recordZone, at: "serverRecord") }
                _ = error.cloudError(serverRecord: serverRecord)
                continue
            }
            _ = WebServicesFormat.nullFields(json)
            _ = try? WebServicesFormat.record(json, zone: recordZone, requiresType: false, at: "record")
            guard let record = try? WebServicesFormat.record(json, zone: recordZone, at: "record") else { continue }
            for numbersAsStrings in [false, true] {
                let written = WebServicesFormat.object(record, WebServicesFormat.Answer(numbersAsStrings: numbersAsStrings))
                do {
                    _ = try WebServicesFormat.record(.object(written), zone: recordZone, at: "record")
                } catch {
                    fuzzFailure("the record \(record) as the server writes it (\(written)) does not read: \(error)")
                }
            }
        }
        for json in answer["zones"]?.array ?? [] {
            guard let object = json.object else { continue }
            _ = WebServicesError(object)
            _ = try? WebServicesFormat.zoneIDOrDefault(object["zoneID"])
            _ = object["syncToken"]?.string.flatMap { Data(base64Encoded: $0) }
        }
        _ = answer["syncToken"]?.string.flatMap { Data(base64Encoded: $0) }
        if let file = answer["singleFile"] { _ = WebServicesFormat.assetReference(file) }
    }

    /// The client's readings of one answer: as a modify's results (its records split into the
    /// deletes and saves a request would have named), a page of changes (`changes/zone`, and
    /// `records/changes` as a long poll carries it) and a page of a query.
    private static func client(_ answer: WebServicesFormat.Object) {
        let names = (answer["records"]?.array ?? []).map { $0.object?["recordName"]?.string ?? "x" }
        let ids = names.map { RecordID(recordName: $0, zoneID: zone) }
        let half = ids.count / 2
        let saves = ids[half...].map { RemoteRecord(recordType: "Idea", recordID: $0, fields: ["title": .string("sent")]) }
        if let result = try? WebServicesAnswer.modifyResult(answer, deletes: Array(ids[..<half]), saves: saves) {
            guard result.saved.count + result.deleted.count + result.failures.count <= ids.count else {
                fuzzFailure("a modify of \(ids.count) records read as more results: \(result)")
            }
        }
        _ = try? WebServicesAnswer.changesZonePage(answer, zone: zone)
        _ = try? WebServicesAnswer.zoneChanges(answer, zone: zone)
        _ = try? WebServicesAnswer.queryPage(answer, zone: zone)
    }
}
