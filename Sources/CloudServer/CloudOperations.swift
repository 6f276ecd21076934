import CloudKitModel
import CloudStore
import CloudWebServices
import Foundation
import NIOCore

/// The served operations for one authenticated account: each reads its request body,
/// refusing anything malformed with `BAD_REQUEST` before the store is touched, and builds
/// the answer CloudKit Web Services gives.
struct CloudOperations {
    /// The most operations one request may hold (CloudKit's limit).
    static let maximumOperations = WebServicesFormat.maximumOperations
    /// The most changes one `changes/zone` answer holds.
    static let maximumChangesPerPage = WebServicesFormat.maximumChangesPerPage
    /// The most bytes of field data one record may hold (CloudKit's 1 MB); larger data is an asset.
    static let maximumRecordBytes = 1 << 20

    typealias Object = WebServicesFormat.Object

    let store: any RecordStore
    let account: String

    func perform(_ operation: WebServicesPath.Operation, _ body: Object) async throws -> Object {
        do {
            switch operation {
            case .recordsModify: return try await modifyRecords(body)
            case .recordsQuery: return try await query(body)
            case .recordsLookup: return try await lookup(body)
            case .changesZone: return try await zonesChanges(body)
            case .recordsChanges: return try await recordChanges(body)
            case .zonesModify: return try await modifyZones(body)
            case .zonesList: return ["zones": .array(try await zones().map { ["zoneID": WebServicesFormat.object($0)] })]
            case .assetsUpload, .assetsDownload: throw WebServicesError.badRequest("Assets are not JSON operations.")
            }
        } catch let invalid as WebServicesFormat.Invalid {
            throw WebServicesError.badRequest(invalid.reason)
        }
    }

    // MARK: zones

    /// The account's zones, the default zone first: it always exists (its row in the store is
    /// made by the first write to it).
    private func zones() async throws -> [RecordZoneID] {
        let defaultZone = WebServicesFormat.defaultZone
        return [defaultZone] + (try await store.zones(account: account)).filter { $0 != defaultZone }
    }

    /// Makes the default zone's row if `zones` name it, before a write to it.
    private func prepare(_ zones: some Sequence<RecordZoneID>) async throws {
        if zones.contains(WebServicesFormat.defaultZone) {
            try await store.createZone(WebServicesFormat.defaultZone, account: account)
        }
    }

    // MARK: assets

    /// Stores an uploaded asset, named by the checksum of the bytes received.
    func uploadAsset(_ body: ByteBuffer) async throws -> AssetReference {
        try await store.storeAsset(Data(body.readableBytesView), account: account)
    }

    /// The bytes of the asset `{fileChecksum}` names, if this account uploaded it.
    func downloadAsset(_ body: Object) async throws -> Data {
        let checksum = try WebServicesFormat.string(body["fileChecksum"], at: "fileChecksum")
        guard AssetReference(checksum: checksum, size: 0) != nil else {
            throw WebServicesError.badRequest("fileChecksum must be a SHA-256 in lower-case hex.")
        }
        guard let data = try await store.asset(checksum, account: account) else {
            throw WebServicesError(code: "NOT_FOUND", reason: "This account has no asset \(checksum).")
        }
        return data
    }

    // MARK: records/modify

    /// One operation of a modify request.
    private enum Item {
        case save(RecordSave, isCreate: Bool)
        case delete(RecordID)
    }

    private func modifyRecords(_ body: Object) async throws -> Object {
        let zone = try WebServicesFormat.zoneIDOrDefault(body["zoneID"])
        let operations = try Self.operations(body)
        let atomicAsked = try Self.bool(body["atomic"], at: "atomic") ?? true
        let desiredKeys = try Self.desiredKeys(body)
        var items: [Item] = []
        var saved = Set<RecordID>(), deleted = Set<RecordID>()
        for (index, json) in operations.enumerated() {
            let path = { "operations[\(index)]" }
            guard let operation = json.object, let recordJSON = operation["record"]?.object else {
                throw WebServicesError.badRequest("\(path()) must be an object with an operationType and a record.")
            }
            let type = try WebServicesFormat.string(operation["operationType"], at: "\(path()).operationType")
            let recordZone = try recordJSON["zoneID"].map { try WebServicesFormat.zoneID($0, at: "\(path()).record.zoneID") } ?? zone
            let item: Item
            switch type {
            case "delete", "forceDelete":
                let name = try WebServicesFormat.recordName(recordJSON["recordName"], at: "\(path()).record.recordName")
                item = .delete(RecordID(recordName: name, zoneID: recordZone))
            case "create", "update", "replace", "forceUpdate", "forceReplace":
                var record = try WebServicesFormat.record(.object(recordJSON), zone: recordZone, at: "\(path()).record")
                guard Self.approximateSize(record.fields) <= Self.maximumRecordBytes else {
                    throw WebServicesError.badRequest("\(path()).record holds more than 1 MB of fields; send large data as an asset.")
                }
                record.creationDate = nil
                record.modificationDate = nil
                switch type {
                case "create":
                    record.changeTag = nil
                    item = .save(RecordSave(record, policy: .ifServerRecordUnchanged), isCreate: true)
                case "update" where record.changeTag == nil:
                    throw WebServicesError.badRequest("\(path()): update needs the record's recordChangeTag.")
                case "update", "replace":
                    item = .save(RecordSave(record, policy: .ifServerRecordUnchanged), isCreate: false)
                default:
                    item = .save(RecordSave(record, policy: .allKeys), isCreate: false)
                }
            default:
                throw WebServicesError.badRequest(
                    "\(path()).operationType must be create, update, replace, forceUpdate, forceReplace, delete or forceDelete.")
            }
            switch item {
            case let .save(save, _):
                guard saved.insert(save.record.recordID).inserted else {
                    throw WebServicesError.badRequest("\(path()): record \(save.record.recordID.recordName) is saved twice.")
                }
            case let .delete(recordID):
                guard deleted.insert(recordID).inserted else {
                    throw WebServicesError.badRequest("\(path()): record \(recordID.recordName) is deleted twice.")
                }
            }
            items.append(item)
        }
        var saves: [RecordSave] = []
        var deletes: [RecordID] = []
        for item in items {
            switch item {
            case let .save(save, _): saves.append(save)
            case let .delete(recordID): deletes.append(recordID)
            }
        }
        let zones = Set(saves.map(\.record.recordID.zoneID) + deletes.map(\.zoneID))
        // `atomic` (default true) applies to custom zones only, as Apple documents.
        let atomic = atomicAsked && !zones.contains(WebServicesFormat.defaultZone)
        try await prepare(zones)
        let result = try await store.modify(account: account, saves: saves, deleting: deletes, atomic: atomic)
        let savedByID = Dictionary(result.saved.map { ($0.recordID, $0) }, uniquingKeysWith: { $1 })
        let failedAtomically = atomic && !result.failures.isEmpty
        let answers: [JSONValue] = items.map { item in
            switch item {
            case let .save(save, isCreate):
                let recordID = save.record.recordID
                if let failure = result.failures[recordID] {
                    return .object(Self.failure(failure, recordName: recordID.recordName, isCreate: isCreate))
                }
                if failedAtomically || savedByID[recordID] == nil { return Self.atomicError(recordID.recordName) }
                var record = savedByID[recordID]!
                if let desiredKeys { record.fields = record.fields.filter { desiredKeys.contains($0.key) } }
                return .object(WebServicesFormat.object(record))
            case let .delete(recordID):
                if failedAtomically { return Self.atomicError(recordID.recordName) }
                return ["recordName": .string(recordID.recordName), "deleted": true]
            }
        }
        return ["records": .array(answers)]
    }

    /// A record's error: its code and reason, with the server's record beside a conflict.
    private static func failure(_ error: CloudError, recordName: String, isCreate: Bool) -> Object {
        var answer = WebServicesError(error)
        if case .serverRecordChanged = error, isCreate { answer.code = "EXISTS" }
        var object = answer.object
        object["recordName"] = .string(recordName)
        if case let .serverRecordChanged(serverRecord?) = error {
            object["serverRecord"] = .object(WebServicesFormat.object(serverRecord))
        }
        return object
    }

    private static func atomicError(_ recordName: String) -> JSONValue {
        var error = WebServicesError(code: "ATOMIC_ERROR", reason: "Another operation of this atomic request failed.").object
        error["recordName"] = .string(recordName)
        return .object(error)
    }

    /// About how many bytes `fields` take: their text and bytes, and 8 per number.
    private static func approximateSize(_ fields: [String: FieldValue]) -> Int {
        func size(_ value: FieldValue) -> Int {
            switch value {
            case .string(let text): text.utf8.count
            case .bytes(let data): data.count
            case .list(let items): items.reduce(0) { $0 + size($1) }
            case .int64, .double, .timestamp: 8
            case .asset: 72
            }
        }
        return fields.reduce(0) { $0 + $1.key.utf8.count + size($1.value) }
    }

    // MARK: records/query

    private func query(_ body: Object) async throws -> Object {
        let zone = try WebServicesFormat.zoneIDOrDefault(body["zoneID"])
        guard let query = body["query"]?.object else { throw WebServicesError.badRequest("query must be an object with a recordType.") }
        let recordType = try WebServicesFormat.typeName(query["recordType"], at: "query.recordType")
        let limit = try Self.limit(body["resultsLimit"], maximum: Self.maximumOperations)
        let after = try body["continuationMarker"].map { try WebServicesFormat.recordName($0, at: "continuationMarker") }
        let records: [RemoteRecord]
        do {
            records = try await store.records(account: account, in: zone, ofType: recordType, after: after, limit: limit + 1)
        } catch CloudError.zoneNotFound where zone == WebServicesFormat.defaultZone {
            records = []  // never written to yet
        }
        var answer: Object = ["records": .array(records.prefix(limit).map { .object(WebServicesFormat.object($0)) })]
        if records.count > limit { answer["continuationMarker"] = .string(records[limit - 1].recordID.recordName) }
        return answer
    }

    // MARK: records/lookup

    /// `records[{recordName, desiredKeys?}]` in `zoneID` (the default zone if none): each
    /// answered, in order, with the record or a `NOT_FOUND` naming it.
    private func lookup(_ body: Object) async throws -> Object {
        let zone = try WebServicesFormat.zoneIDOrDefault(body["zoneID"])
        guard let requests = body["records"]?.array, requests.count <= Self.maximumOperations else {
            throw WebServicesError.badRequest("records must be an array of at most \(Self.maximumOperations) {recordName}.")
        }
        let desiredKeys = try Self.desiredKeys(body)
        let wanted = try requests.enumerated().map { index, json in
            guard let object = json.object else { throw WebServicesError.badRequest("records[\(index)] must be an object with a recordName.") }
            let name = try WebServicesFormat.recordName(object["recordName"], at: "records[\(index)].recordName")
            return (name, try Self.desiredKeys(object) ?? desiredKeys)
        }
        let found: [RemoteRecord]
        do {
            found = try await store.records(account: account, in: zone, named: wanted.map(\.0))
        } catch CloudError.zoneNotFound where zone == WebServicesFormat.defaultZone {
            found = []  // never written to yet
        }
        let byName = Dictionary(found.map { ($0.recordID.recordName, $0) }, uniquingKeysWith: { first, _ in first })
        return ["records": .array(wanted.map { name, keys in
            guard var record = byName[name] else {
                var missing = WebServicesError(code: "NOT_FOUND", reason: "No record \(name) in zone \(zone.zoneName).").object
                missing["recordName"] = .string(name)
                return .object(missing)
            }
            if let keys { record.fields = record.fields.filter { keys.contains($0.key) } }
            return .object(WebServicesFormat.object(record))
        })]
    }

    // MARK: changes/zone, records/changes

    /// `changes/zone`: `zones[{zoneID, syncToken?, resultsLimit?, desiredKeys?}]`, answered
    /// with `zones[]`, each a zone's page of changes or, for that zone alone, an error. A body
    /// with a top-level `zoneID` and no `zones` is the flat form IdeaBox's earlier clients
    /// sent, answered as they expect (`records/changes`' keys and the `zoneID`).
    private func zonesChanges(_ body: Object) async throws -> Object {
        guard let zones = body["zones"] else {
            var answer = try await changes(body, at: "")
            answer["zoneID"] = WebServicesFormat.object(try WebServicesFormat.zoneID(body["zoneID"]))
            answer["reverse"] = nil
            return answer
        }
        guard let requests = zones.array, !requests.isEmpty, requests.count <= Self.maximumOperations else {
            throw WebServicesError.badRequest("zones must be an array of 1 to \(Self.maximumOperations) zones.")
        }
        let parsed = try requests.enumerated().map { index, json in
            guard let object = json.object else { throw WebServicesError.badRequest("zones[\(index)] must be an object with a zoneID.") }
            return (object, try WebServicesFormat.zoneID(object["zoneID"], at: "zones[\(index)].zoneID"))
        }
        var answers: [JSONValue] = []
        for (index, (request, zone)) in parsed.enumerated() {
            do {
                var answer = try await changes(request, at: "zones[\(index)].")
                answer["zoneID"] = WebServicesFormat.object(zone)
                answers.append(.object(answer))
            } catch let error as CloudError {
                var failure = WebServicesError(error).object
                failure["zoneID"] = WebServicesFormat.object(zone)
                answers.append(.object(failure))
            }
        }
        return ["zones": .array(answers)]
    }

    /// `records/changes`: one zone's page, `{records, syncToken, moreComing, reverse}`.
    private func recordChanges(_ body: Object) async throws -> Object {
        try await changes(body, at: "")
    }

    /// One custom zone's changes after `{zoneID, syncToken?, resultsLimit?, desiredKeys?}`.
    private func changes(_ body: Object, at path: String) async throws -> Object {
        let zone = try WebServicesFormat.zoneID(body["zoneID"], at: path + "zoneID")
        guard zone != WebServicesFormat.defaultZone else {
            throw WebServicesError.badRequest("Changes are fetched for custom zones only, not the default zone.")
        }
        let token = try body["syncToken"].map { json -> ChangeToken in
            guard let text = json.string, text.utf8.count <= 512, let data = Data(base64Encoded: text) else {
                throw WebServicesError.badRequest("\(path)syncToken must be a token this server gave out.")
            }
            return ChangeToken(data: data)
        }
        let limit = try Self.limit(body["resultsLimit"], maximum: Self.maximumChangesPerPage)
        let desiredKeys = try Self.desiredKeys(body)
        let changes = try await store.fetchChanges(account: account, in: zone, since: token, resultsLimit: limit)
        let changed = changes.changed.map { record in
            var record = record
            if let desiredKeys { record.fields = record.fields.filter { desiredKeys.contains($0.key) } }
            return JSONValue.object(WebServicesFormat.object(record))
        }
        return [
            "syncToken": .string(changes.token.data.base64EncodedString()),
            "moreComing": .bool(changes.moreComing),
            "reverse": false,
            "records": .array(changed + changes.deleted.map { .object(WebServicesFormat.object($0)) }),
        ]
    }

    // MARK: zones/modify

    private func modifyZones(_ body: Object) async throws -> Object {
        var zones: [(type: String, zone: RecordZoneID)] = []
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
            if type == "delete" && zoneID == WebServicesFormat.defaultZone {
                throw WebServicesError.badRequest("\(path()): the default zone cannot be deleted.")
            }
            zones.append((type, zoneID))
        }
        var answers: [JSONValue] = []
        for (type, zone) in zones {
            if type == "create" {
                // Creating the default zone, which always exists, changes nothing.
                if zone != WebServicesFormat.defaultZone { try await store.createZone(zone, account: account) }
                answers.append(["zoneID": WebServicesFormat.object(zone)])
            } else {
                try await store.deleteZone(zone, account: account)
                answers.append(["zoneID": WebServicesFormat.object(zone), "deleted": true])
            }
        }
        return ["zones": .array(answers)]
    }

    // MARK: Reading the body

    /// The `operations` array: 1 to 200 items.
    private static func operations(_ body: Object) throws -> [JSONValue] {
        guard let operations = body["operations"]?.array else {
            throw WebServicesError.badRequest("operations must be an array.")
        }
        guard operations.count <= maximumOperations else { throw CloudError.limitExceeded }
        return operations
    }

    /// `desiredKeys`: the fields a saved record's answer holds; all of them when absent.
    private static func desiredKeys(_ body: Object) throws -> Set<String>? {
        guard let json = body["desiredKeys"] else { return nil }
        guard let names = json.array, names.count <= maximumOperations else {
            throw WebServicesError.badRequest("desiredKeys must be an array of at most \(maximumOperations) field names.")
        }
        return Set(try names.enumerated().map { try WebServicesFormat.typeName($1, at: "desiredKeys[\($0)]") })
    }

    private static func bool(_ json: JSONValue?, at path: String) throws -> Bool? {
        guard let json else { return nil }
        guard let flag = json.bool else { throw WebServicesError.badRequest("\(path) must be true or false.") }
        return flag
    }

    /// `resultsLimit`: 1 to `maximum`, `maximum` when absent.
    private static func limit(_ json: JSONValue?, maximum: Int) throws -> Int {
        guard let json else { return maximum }
        guard let number = json.wholeNumber, (1...Int64(maximum)).contains(number) else {
            throw WebServicesError.badRequest("resultsLimit must be a whole number from 1 to \(maximum).")
        }
        return Int(number)
    }
}
