import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import ServerStore

/// `changes/zone`, `records/changes`, `changes/database` and `zones/changes`.
extension CloudOperations {
    /// `changes/zone`: `zones[{zoneID, syncToken?, resultsLimit?, desiredKeys?,
    /// desiredRecordTypes?}]`, whose keys override the same keys at the top level, answered
    /// with `zones[]`, each a zone's page of changes or, for that zone alone,
    /// `{zoneID, serverErrorCode, reason}`. A body with a top-level `zoneID` and no `zones` is
    /// the flat form IdeaBox's earlier clients sent, answered as they expect (`records/changes`'
    /// keys and the `zoneID`).
    func zonesChanges(_ body: Object) async throws -> ZoneChangesAnswer {
        guard let zones = body["zones"] else {
            var page = try await changes(body, at: "")
            page.zone = try WebServicesFormat.zoneID(body["zoneID"])
            return ZoneChangesAnswer(flat: true, zones: [.page(page)])
        }
        guard let requests = zones.array, !requests.isEmpty, requests.count <= Self.maximumOperations else {
            throw WebServicesError.badRequest("zones must be an array of 1 to \(Self.maximumOperations) zones.")
        }
        let parsed = try requests.enumerated().map { index, json in
            guard let object = json.object else { throw WebServicesError.badRequest("zones[\(index)] must be an object with a zoneID.") }
            return (body.filter { $0.key != "zones" }.merging(object) { _, zone in zone },
                    try WebServicesFormat.zoneID(object["zoneID"], at: "zones[\(index)].zoneID"))
        }
        var answers: [ZoneChangesAnswer.Zone] = []
        for (index, (request, zone)) in parsed.enumerated() {
            do {
                var page = try await changes(request, at: "zones[\(index)].")
                page.zone = zone
                answers.append(.page(page))
            } catch let error as CloudError {
                var failure = WebServicesError(error).object
                failure["zoneID"] = WebServicesFormat.object(zone)
                answers.append(.failed(failure))
            }
        }
        return ZoneChangesAnswer(flat: false, zones: answers)
    }

    /// `records/changes`: one zone's page, `{records, syncToken, moreComing, reverse}`.
    func recordChanges(_ body: Object) async throws -> ChangesPage {
        try await changes(body, at: "")
    }

    /// One custom zone's changes after `{zoneID, syncToken?, resultsLimit?, desiredKeys?,
    /// desiredRecordTypes?}`.
    private func changes(_ body: Object, at path: String) async throws -> ChangesPage {
        let zone = try WebServicesFormat.zoneID(body["zoneID"], at: path + "zoneID")
        guard zone != RecordZoneID.defaultZone else {
            throw WebServicesError.badRequest("Changes are fetched for custom zones only, not the default zone.")
        }
        if try Self.bool(body["reverse"], at: path + "reverse") == true {
            throw WebServicesError.badRequest("\(path)reverse: changes are served oldest first only.")
        }
        // A token this server did not give out has expired, for that zone alone.
        let token = try body["syncToken"].flatMap { json -> ChangeToken? in
            guard json != .null else { return nil }
            guard let text = json.string, text.utf8.count <= 512, let data = Data(base64Encoded: text) else {
                throw CloudError.changeTokenExpired
            }
            return ChangeToken(data: data)
        }
        let limit = try Self.limit(body["resultsLimit"], maximum: Self.maximumChangesPerPage)
        let desiredKeys = try Self.desiredKeys(body)
        let recordTypes = try body["desiredRecordTypes"].flatMap { json -> Set<String>? in
            guard json != .null else { return nil }
            guard let names = json.array, names.count <= Self.maximumOperations else {
                throw WebServicesError.badRequest("\(path)desiredRecordTypes must be an array of record types.")
            }
            return Set(try names.enumerated().map { try WebServicesFormat.typeName($1, at: "\(path)desiredRecordTypes[\($0)]") })
        }
        let answer = try answer(body)
        let changes = try await store.fetchChanges(account: owner, in: zone, since: token, resultsLimit: limit)
        return ChangesPage(
            syncToken: changes.token.data.base64EncodedString(), moreComing: changes.moreComing,
            changed: changes.changed.filter { recordTypes?.contains($0.recordType) ?? true },
            deleted: changes.deleted.filter { recordTypes?.contains($0.recordType) ?? true }, desiredKeys: desiredKeys, answer: answer)
    }

    /// `changes/database` (`tokenKey` `syncToken`) and the older `zones/changes`
    /// (`metaSyncToken`): the zones that changed since the token (all of them without one),
    /// a zone deleted since as `{zoneID, deleted: true}`, at most `resultsLimit` at a time.
    ///
    /// The token holds each zone's own latest token, so it needs no history of its own.
    func databaseChanges(_ body: Object, tokenKey: String) async throws -> Object {
        let seen = try body[tokenKey].flatMap { json -> [String: String]? in
            guard json != .null else { return nil }
            guard let token = json.string.flatMap(DatabaseToken.init(text:)) else {
                throw WebServicesError.badRequest(
                    WebServicesError.changeTokenExpiredPrefix + "\(tokenKey) is not a token this server gave out; fetch again without one.")
            }
            return token.zones
        } ?? [:]
        let limit = try Self.limit(body["resultsLimit"], maximum: Self.maximumOperations)
        let current = try await zoneTokens()
        var changed: [(name: String, token: String?)] = []
        for (zone, token) in current {
            let text = token.data.base64EncodedString()
            if seen[zone.zoneName] != text { changed.append((zone.zoneName, text)) }
        }
        for name in seen.keys where !current.keys.contains(RecordZoneID(zoneName: name)) {
            changed.append((name, nil))
        }
        changed.sort { $0.name < $1.name }
        let page = changed.prefix(limit)
        var next = seen
        for (name, token) in page { next[name] = token }
        return [
            "zones": .array(page.map { name, token in
                let zone = RecordZoneID(zoneName: name)
                guard let token else { return ["zoneID": zoneIDObject(zone), "deleted": true] }
                return zoneObject(zone, token: token)
            }),
            tokenKey: .string(DatabaseToken(zones: next).text),
            "moreComing": .bool(changed.count > page.count),
        ]
    }
}
