import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation

/// A server's answer as the HTTP client reads it, through the reading it stands on
/// (`WebServicesFormat` and `WebServicesError`, which `WebServicesDatabase` calls for each
/// answer): an error object, the records of a modify, query or changes page (with the
/// server records of conflicts), zones, a sync token and an uploaded asset. None may crash;
/// a record read must also read back from the way the server writes it.
///
/// `CloudHTTPClient`'s own wrappers (`zoneChanges`, `success`) are left out: linking it
/// builds AsyncHTTPClient and swift-nio-http2 under the sanitizers as well.
enum AnswerFuzz {
    /// The zone a record without its own `zoneID` is read in.
    static let zone = RecordZoneID(zoneName: "Ideas")

    /// Reads `bytes` as an answer's JSON object.
    static func run(_ bytes: [UInt8]) {
        guard let answer = (try? JSONValue(parsing: bytes))?.object else { return }
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
}
