import CloudKitModel
import CloudWebServices
import Foundation
import NIOCore
import ServerStore

/// `assets/upload`, Apple's two steps: the request for upload URLs, then a POST of the bytes
/// to each URL (`AssetTicket`, `AssetRoutes`). `assets/download` is
/// IdeaBox's earlier way to read an asset.
extension CloudOperations {
    /// `tokens[{recordName?, recordType?, fieldName}]` in `zoneID?`: an upload URL for each,
    /// `tokens[{recordName, fieldName, url}]` (a missing `recordName` gets a new UUID).
    func requestUploads(_ body: Object) async throws -> Object {
        _ = try WebServicesFormat.zoneIDOrDefault(body["zoneID"])
        guard let requests = body["tokens"]?.array, !requests.isEmpty else {
            throw WebServicesError.badRequest("tokens must be an array of {recordName, recordType, fieldName}.")
        }
        guard requests.count <= Self.maximumOperations else { throw CloudError.limitExceeded }
        return ["tokens": .array(try requests.enumerated().map { index, json in
            guard let request = json.object else { throw WebServicesError.badRequest("tokens[\(index)] must be an object with a fieldName.") }
            let fieldName = try WebServicesFormat.typeName(request["fieldName"], at: "tokens[\(index)].fieldName")
            if let type = request["recordType"] { _ = try WebServicesFormat.typeName(type, at: "tokens[\(index)].recordType") }
            let recordName = try request["recordName"].map { try WebServicesFormat.recordName($0, at: "tokens[\(index)].recordName") }
                ?? UUID().uuidString.lowercased()
            return ["recordName": .string(recordName), "fieldName": .string(fieldName), "url": .string(assetURLs.upload(owner: owner))]
        })]
    }

    /// The checksum of `assets/download`'s `{fileChecksum}`.
    static func downloadChecksum(_ body: Object) throws -> String {
        let checksum = try WebServicesFormat.string(body["fileChecksum"], at: "fileChecksum")
        guard AssetReference(checksum: checksum, size: 0) != nil else {
            throw WebServicesError.badRequest("fileChecksum must be a SHA-256 in lower-case hex.")
        }
        return checksum
    }
}
