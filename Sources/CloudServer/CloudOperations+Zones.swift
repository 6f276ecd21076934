import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import ServerStore

/// `zones/list`, `zones/lookup` and `zones/modify`.
extension CloudOperations {
    /// Every zone of the account with the token of its latest change. The default zone
    /// always exists; until its first write makes its row, its token is `noHistory`.
    func zoneTokens() async throws -> [RecordZoneID: ChangeToken] {
        var tokens = try await store.zoneTokens(account: owner)
        if tokens[RecordZoneID.defaultZone] == nil {
            tokens[RecordZoneID.defaultZone] = Self.noHistory
        }
        return tokens
    }

    /// The token of a default zone with no row yet: the same for every account (so it shows
    /// nothing), and the same bytes as the release before gave, so that a database token a
    /// device holds does not see the default zone change.
    static let noHistory = ChangeToken(data: Data("z1:0:0".utf8))

    /// Makes the default zone's row if `zones` name it, before a write to it.
    func prepare(_ zones: some Sequence<RecordZoneID>) async throws {
        if zones.contains(RecordZoneID.defaultZone) {
            try await store.createZone(RecordZoneID.defaultZone, account: owner)
        }
    }

    /// `{zoneName, ownerRecordName}`.
    func zoneIDObject(_ zone: RecordZoneID) -> JSONValue {
        ["zoneName": .string(zone.zoneName), "ownerRecordName": .string(userRecordName)]
    }

    /// A zone dictionary: `{zoneID, syncToken, atomic}` (atomic for custom zones only).
    func zoneObject(_ zone: RecordZoneID, token: String) -> JSONValue {
        ["zoneID": zoneIDObject(zone), "syncToken": .string(token), "atomic": .bool(zone != RecordZoneID.defaultZone)]
    }

    /// The account's zones, the default zone first.
    func listZones() async throws -> Object {
        let tokens = try await zoneTokens()
        let custom = tokens.keys.filter { $0 != RecordZoneID.defaultZone }.sorted { $0.zoneName < $1.zoneName }
        let zones = [RecordZoneID.defaultZone] + custom
        return ["zones": .array(zones.map { zoneObject($0, token: tokens[$0]!.data.base64EncodedString()) })]
    }

    /// `zones[{zoneName}]`: each zone's dictionary, or `ZONE_NOT_FOUND` for that zone.
    func lookupZones(_ body: Object) async throws -> Object {
        guard let requests = body["zones"]?.array, requests.count <= Self.maximumOperations else {
            throw WebServicesError.badRequest("zones must be an array of at most \(Self.maximumOperations) {zoneName}.")
        }
        let wanted = try requests.enumerated().map { index, json in
            // Apple's page shows zone ids; a zone dictionary `{zoneID}` is read too.
            try WebServicesFormat.zoneID(json.object?["zoneID"] ?? json, at: "zones[\(index)]")
        }
        let tokens = try await zoneTokens()
        return ["zones": .array(wanted.map { zone in
            guard let token = tokens[zone] else {
                return ["zoneID": zoneIDObject(zone), "serverErrorCode": "ZONE_NOT_FOUND", "reason": .string("No zone \(zone.zoneName).")]
            }
            return zoneObject(zone, token: token.data.base64EncodedString())
        })]
    }

    /// `operations[{operationType: create|delete, zone: {zoneID}}]`, one per zone: a created
    /// zone's dictionary (creating an existing zone changes nothing, as CloudKit's zone save
    /// does), a deleted zone as `{zoneID, deleted: true}`.
    func modifyZones(_ body: Object) async throws -> Object {
        var zones: [(type: String, zone: RecordZoneID)] = []
        var named = Set<RecordZoneID>()
        for (index, json) in try Self.operations(body).enumerated() {
            let path = { "operations[\(index)]" }
            guard let operation = json.object, let zone = operation["zone"]?.object else {
                throw WebServicesError.badRequest("\(path()) must be an object with an operationType and a zone.")
            }
            let type = try WebServicesFormat.string(operation["operationType"], at: "\(path()).operationType")
            guard type == "create" || type == "delete" else {
                throw WebServicesError.badRequest("\(path()).operationType must be create or delete.")
            }
            let zoneID = try WebServicesFormat.zoneID(zone["zoneID"], at: "\(path()).zone.zoneID")
            if type == "delete" && zoneID == RecordZoneID.defaultZone {
                throw WebServicesError.badRequest("\(path()): the default zone cannot be deleted.")
            }
            guard named.insert(zoneID).inserted else {
                throw WebServicesError.badRequest("\(path()): zone \(zoneID.zoneName) has another operation in this request; one per zone.")
            }
            zones.append((type, zoneID))
        }
        // A zone beyond the account's quota fails alone, as its own QUOTA_EXCEEDED.
        var refused = Set<RecordZoneID>()
        for (type, zone) in zones {
            if type == "create" {
                do {
                    try await store.createZone(zone, account: owner)
                } catch CloudError.quotaExceeded {
                    refused.insert(zone)
                }
            } else {
                try await store.deleteZone(zone, account: owner)
            }
        }
        await hub.post(owner: owner, zones: Set(zones.filter { $0.type == "delete" }.map(\.zone)))
        let tokens = zones.contains(where: { $0.type == "create" }) ? try await zoneTokens() : [:]
        return ["zones": .array(zones.map { type, zone in
            if refused.contains(zone) {
                return ["zoneID": zoneIDObject(zone), "serverErrorCode": "QUOTA_EXCEEDED", "reason": "The account holds its quota of zones."]
            }
            guard type == "create", let token = tokens[zone] else { return ["zoneID": zoneIDObject(zone), "deleted": true] }
            return zoneObject(zone, token: token.data.base64EncodedString())
        })]
    }
}
