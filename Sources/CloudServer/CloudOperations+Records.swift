import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import ServerStore

/// `records/modify` and `records/lookup`.
extension CloudOperations {
    /// One operation of a modify request, with the fields its answer holds.
    private struct Item {
        enum Change {
            case save(RecordSave, isCreate: Bool)
            case delete(RecordDeletion)
        }

        var change: Change
        var desiredKeys: Set<String>?
        /// A save's `fields` as sent, which `FieldSchema` reads untyped values from again.
        var sentFields: Object = [:]
        /// Where the operation is in the request, for errors.
        var path = ""

        var recordID: RecordID {
            switch change {
            case let .save(save, _): save.record.recordID
            case let .delete(deletion): deletion.recordID
            }
        }
    }

    /// `operations[{operationType, record, desiredKeys?}]`, `zoneID?`, `atomic?`,
    /// `desiredKeys?`, `numbersAsStrings?`: Apple's seven operation types, each checking the
    /// change tag as Apple documents, one operation per record; answered with one record or
    /// error per operation, in order.
    func modifyRecords(_ body: Object) async throws -> Object {
        let zone = try WebServicesFormat.zoneIDOrDefault(body["zoneID"])
        let answer = try answer(body)
        // Optional, but not null: a key sent must have a value.
        if body["atomic"] == .null { throw WebServicesError.badRequest("atomic must be true or false, not null; leave it out for true.") }
        let atomicAsked = try Self.bool(body["atomic"], at: "atomic") ?? true
        let desiredKeys = try Self.desiredKeys(body)
        var items: [Item] = []
        var named = Set<RecordID>()
        for (index, json) in try Self.operations(body).enumerated() {
            let item = try Self.item(json, zone: zone, desiredKeys: desiredKeys, at: "operations[\(index)]")
            guard named.insert(item.recordID).inserted else {
                throw WebServicesError.badRequest(
                    "operations[\(index)]: record \(item.recordID.recordName) has another operation in this request; one per record.")
            }
            items.append(item)
        }
        items = try await applySchema(to: items)
        var saves: [RecordSave] = []
        var deletes: [RecordDeletion] = []
        for item in items {
            switch item.change {
            case let .save(save, _): saves.append(save)
            case let .delete(deletion): deletes.append(deletion)
            }
        }
        let zones = Set(items.map(\.recordID.zoneID))
        // `atomic` (default true) applies to custom zones only, as Apple documents.
        let atomic = atomicAsked && !zones.contains(RecordZoneID.defaultZone)
        try await prepare(zones)
        let unreferenced = try await missingTargets(of: saves, deleting: Set(deletes.map(\.recordID)))
        if !unreferenced.isEmpty {
            // Refused before the store: in an atomic request, nothing else is done either.
            guard !atomic else {
                return ["records": .array(items.map { item in
                    unreferenced[item.recordID].map { .object(Self.unreferenced(item.recordID, target: $0)) }
                        ?? Self.atomicError(item.recordID.recordName)
                })]
            }
            saves.removeAll { unreferenced[$0.record.recordID] != nil }
        }
        let result = try await store.modify(account: owner, saves: saves, deletes: deletes, atomic: atomic, device: device)
        await hub.post(owner: owner, zones: Set(result.saved.map(\.recordID.zoneID) + result.deleted.map(\.zoneID)), from: device)
        let savedByID = Dictionary(result.saved.map { ($0.recordID, $0) }, uniquingKeysWith: { $1 })
        let deleted = Set(result.deleted)
        let failedAtomically = atomic && !result.failures.isEmpty
        return ["records": .array(items.map { item in
            let recordID = item.recordID
            if let target = unreferenced[recordID] { return .object(Self.unreferenced(recordID, target: target)) }
            if let failure = result.failures[recordID] {
                guard case let .save(save, isCreate) = item.change else {
                    return .object(Self.failure(failure, recordName: recordID.recordName, isCreate: false, answer))
                }
                var object = Self.failure(failure, recordName: recordID.recordName, isCreate: isCreate, answer)
                // A saved record is refused as missing only when an asset it names is.
                let assetFields = save.record.fields.filter {
                    if case .asset = $0.value { return true }
                    return false
                }.keys.sorted()
                if failure == .unknownItem, !assetFields.isEmpty {
                    object["reason"] = .string(
                        "An asset named in \(assetFields.joined(separator: ", ")) was never uploaded to this account; "
                            + "upload it first (assets/upload), then save.")
                }
                return .object(object)
            }
            switch item.change {
            case .save:
                guard !failedAtomically, let record = savedByID[recordID] else { return Self.atomicError(recordID.recordName) }
                return Self.object(record, desiredKeys: item.desiredKeys, answer)
            case .delete:
                guard !failedAtomically, deleted.contains(recordID) else { return Self.atomicError(recordID.recordName) }
                return ["recordName": .string(recordID.recordName), "deleted": true]
            }
        })]
    }

    /// One record operation, read strictly: `create` (a missing `recordName` gets a new
    /// UUID), `update`/`replace`/`delete` (each needs the `recordChangeTag` read), and the
    /// `force` forms, which skip the check (`forceUpdate`/`forceReplace` create a missing record).
    private static func item(_ json: JSONValue, zone: RecordZoneID, desiredKeys: Set<String>?, at path: String) throws -> Item {
        guard let operation = json.object, var recordJSON = operation["record"]?.object else {
            throw WebServicesError.badRequest("\(path) must be an object with an operationType and a record.")
        }
        let type = try WebServicesFormat.string(operation["operationType"], at: "\(path).operationType")
        let keys = try Self.desiredKeys(operation) ?? desiredKeys
        let recordZone = try recordJSON["zoneID"].map { try WebServicesFormat.zoneID($0, at: "\(path).record.zoneID") } ?? zone
        let changeTag = try recordJSON["recordChangeTag"].map { try WebServicesFormat.string($0, at: "\(path).record.recordChangeTag") }
        if ["update", "replace", "delete"].contains(type) && changeTag == nil {
            throw WebServicesError.badRequest("\(path): \(type) needs the record's recordChangeTag (or use force\(type.prefix(1).uppercased() + type.dropFirst())).")
        }
        switch type {
        case "delete", "forceDelete":
            let name = try WebServicesFormat.recordName(recordJSON["recordName"], at: "\(path).record.recordName")
            let recordID = RecordID(recordName: name, zoneID: recordZone)
            let deletion = type == "delete"
                ? RecordDeletion(recordID, changeTag: changeTag, policy: .ifServerRecordUnchanged) : RecordDeletion(recordID)
            return Item(change: .delete(deletion), desiredKeys: keys)
        case "create", "update", "replace", "forceUpdate", "forceReplace":
            if type == "create" && recordJSON["recordName"] == nil {
                recordJSON["recordName"] = .string(UUID().uuidString.lowercased())
            }
            // An update or replace names an existing record, whose type it keeps.
            let requiresType = !["update", "replace"].contains(type)
            var record = try WebServicesFormat.record(.object(recordJSON), zone: recordZone, requiresType: requiresType, at: "\(path).record")
            // Apple: "You may only create references between records within the same zone."
            if let (field, _) = record.fields.sorted(by: { $0.key < $1.key }).first(where: { field in
                field.value.recordReferences.contains { ReferenceRules.leavesZone($0, from: recordZone) }
            }) {
                throw WebServicesError.badRequest(
                    "\(path).record.fields.\(field) names a record of another zone; a reference reaches records of its own zone "
                        + "(\(recordZone.zoneName)) only.")
            }
            guard RecordSizeLimit.bytes(of: record.fields) <= RecordSizeLimit.maximumBytes else {
                throw WebServicesError.badRequest("\(path).record holds more than 1 MB of fields; send large data as an asset.")
            }
            record.creationDate = nil
            record.modificationDate = nil
            let merges = type == "update" || type == "forceUpdate"
            var save: RecordSave
            switch type {
            case "create":
                record.changeTag = nil
                save = RecordSave(record, policy: .ifServerRecordUnchanged)
            case "update", "replace":
                save = RecordSave(record, policy: .ifServerRecordUnchanged, mergesFields: merges)
            default:
                save = RecordSave(record, policy: .allKeys, mergesFields: merges)
            }
            if merges { save.clearedFields = WebServicesFormat.nullFields(.object(recordJSON)) }
            return Item(
                change: .save(save, isCreate: type == "create"), desiredKeys: keys, sentFields: recordJSON["fields"]?.object ?? [:],
                path: "\(path).record")
        default:
            throw WebServicesError.badRequest(
                "\(path).operationType must be create, update, replace, delete, forceUpdate, forceReplace or forceDelete.")
        }
    }

    /// `items` with each save's fields checked against, and read as, the schema of its record
    /// type (`FieldSchema`): the first save of a field sets its type, claimed in the store
    /// before the save so that of two requests naming a new field at once the second is
    /// checked against the first's type, all of a request's in one claim, which reads the
    /// schema table alone. A request giving more than `FieldTypeLimits.newFieldsPerRequest`
    /// fields a type is `limitExceeded` (split, it goes through), one that would pass a
    /// record type's or a database's limit `BAD_REQUEST` saying which; neither stores
    /// anything. Types known to this process are not read again
    /// (`FieldTypeCache`): a save whose fields all have known types reads nothing; the others
    /// read their record types' schema once per request. A value that does not fit its
    /// field's type is `BAD_REQUEST`, and nothing is saved.
    private func applySchema(to items: [Item]) async throws -> [Item] {
        let recordTypes = try await recordTypes(of: items)
        let token = assetURLs.tokenHash ?? ""
        var schema: [String: [String: String]] = [:]
        var unknown = Set<String>()
        for (index, item) in items.enumerated() {
            guard case let .save(save, _) = item.change, let recordType = recordTypes[index] else { continue }
            if schema[recordType] == nil { schema[recordType] = fieldTypes.types(owner: owner, recordType: recordType, token: token) }
            if !save.record.fields.keys.allSatisfy({ schema[recordType]![$0] != nil }) { unknown.insert(recordType) }
        }
        if !unknown.isEmpty {
            for (recordType, types) in try await store.fieldTypes(account: owner, recordTypes: unknown) {
                fieldTypes.add(types, owner: owner, recordType: recordType, token: token)
                schema[recordType, default: [:]].merge(types) { _, stored in stored }
            }
        }
        var claims: [String: [String: String]] = [:]
        var checked = try Self.apply(schema, to: items, recordTypes: recordTypes) { recordType, newTypes in
            schema[recordType, default: [:]].merge(newTypes) { old, _ in old }
            claims[recordType, default: [:]].merge(newTypes) { old, _ in old }
        }
        guard !claims.isEmpty else { return checked }
        if let reason = FieldTypeLimits.refusal(newFieldsInRequest: claims.values.reduce(0) { $0 + $1.count }) {
            throw WebServicesError.limitExceeded(reason)
        }
        let claimed: [String: [String: String]]
        do {
            claimed = try await store.claimFieldTypes(claims, account: owner)
        } catch let refusal as FieldTypeLimitExceeded {
            throw WebServicesError.badRequest(refusal.reason)
        }
        for (recordType, stored) in claimed {
            fieldTypes.add(stored, owner: owner, recordType: recordType, token: token)
            schema[recordType, default: [:]].merge(stored) { _, stored in stored }
        }
        // Against the types as claimed: another request may have set one of them first.
        checked = try Self.apply(schema, to: items, recordTypes: recordTypes) { _, _ in }
        return checked
    }

    /// `items` with each save read against `schema` of its record type (`recordTypes`, by
    /// index); `newTypes` hears of the fields the schema lacks, before the next save is read.
    private static func apply(
        _ schema: [String: [String: String]], to items: [Item], recordTypes: [Int: String],
        newTypes: (String, [String: String]) -> Void
    ) throws -> [Item] {
        var schema = schema
        var checked = items
        for (index, item) in items.enumerated() {
            guard case .save(var save, let isCreate) = item.change, let recordType = recordTypes[index] else { continue }
            let (record, added) = try FieldSchema.apply(schema[recordType] ?? [:], to: save.record, sent: item.sentFields, at: item.path)
            if !added.isEmpty {
                schema[recordType, default: [:]].merge(added) { old, _ in old }
                newTypes(recordType, added)
            }
            save.record = record
            checked[index].change = .save(save, isCreate: isCreate)
        }
        return checked
    }

    /// The record type of each save of `items`, by index: the one it names, or for an update
    /// or replace that names none the stored record's (a save of a missing record has none).
    private func recordTypes(of items: [Item]) async throws -> [Int: String] {
        var types: [Int: String] = [:]
        var unnamed: [RecordZoneID: [(index: Int, name: String)]] = [:]
        for (index, item) in items.enumerated() {
            guard case let .save(save, _) = item.change else { continue }
            if save.record.recordType.isEmpty {
                unnamed[save.record.recordID.zoneID, default: []].append((index, save.record.recordID.recordName))
            } else {
                types[index] = save.record.recordType
            }
        }
        for (zone, saves) in unnamed {
            // A budget of records at a time (`PageBudget`), of which only the types are kept.
            var byName: [String: String] = [:]
            var offset = 0
            while offset < saves.count {
                let read: NamedRecords
                do {
                    read = try await store.records(
                        account: owner, in: zone, named: saves[offset...].map(\.name), byteBudget: PageBudget.byteBudget)
                } catch CloudError.zoneNotFound {
                    break
                }
                for record in read.records { byName[record.recordID.recordName] = byName[record.recordID.recordName] ?? record.recordType }
                offset += max(1, read.namesRead)
            }
            for save in saves { types[save.index] = byName[save.name] }
        }
        return types
    }

    /// A record's error: its code, reason and name, with the server's record beside a
    /// `CONFLICT` or `EXISTS` (**ours**: the client settles it without another fetch).
    private static func failure(_ error: CloudError, recordName: String, isCreate: Bool, _ answer: WebServicesFormat.Answer) -> Object {
        var failure = WebServicesError(error)
        if case .serverRecordChanged = error, isCreate {
            failure.code = "EXISTS"
            failure.reason = "A record named \(recordName) already exists."
        }
        var object = failure.object
        object["recordName"] = .string(recordName)
        if case let .serverRecordChanged(serverRecord?) = error {
            object["serverRecord"] = .object(WebServicesFormat.object(serverRecord, answer))
        }
        return object
    }

    /// The records of `saves` holding a `VALIDATE` reference whose target does not exist: not
    /// in the account, nor saved by this request, or deleted by it; each with that target.
    private func missingTargets(of saves: [RecordSave], deleting: Set<RecordID>) async throws -> [RecordID: RecordID] {
        var wanted: [RecordID: [RecordID]] = [:]
        for save in saves {
            let zone = save.record.recordID.zoneID
            for reference in save.record.fields.values.flatMap(\.recordReferences) where reference.action == .validate {
                wanted[save.record.recordID, default: []].append(reference.target(from: zone))
            }
        }
        guard !wanted.isEmpty else { return [:] }
        let saved = Set(saves.map(\.record.recordID))
        var exists = Set<RecordID>()
        let asked = Set(wanted.values.joined()).subtracting(saved).subtracting(deleting)
        for (zone, targets) in Dictionary(grouping: asked, by: \.zoneID) {
            var names = targets.map(\.recordName)
            while !names.isEmpty {
                let read = try await store.records(account: owner, in: zone, named: names, byteBudget: 1 << 20)
                exists.formUnion(read.records.map(\.recordID))
                names.removeFirst(max(1, read.namesRead))
            }
        }
        var missing: [RecordID: RecordID] = [:]
        for (recordID, targets) in wanted {
            if let target = targets.first(where: { deleting.contains($0) || (!saved.contains($0) && !exists.contains($0)) }) {
                missing[recordID] = target
            }
        }
        return missing
    }

    /// `VALIDATING_REFERENCE_ERROR` for the record `recordID`, whose reference to `target` finds nothing.
    private static func unreferenced(_ recordID: RecordID, target: RecordID) -> Object {
        var object = WebServicesError(
            code: "VALIDATING_REFERENCE_ERROR",
            reason: "A VALIDATE reference names \(target.recordName) in zone \(target.zoneID.zoneName), which does not exist.").object
        object["recordName"] = .string(recordID.recordName)
        return object
    }

    private static func atomicError(_ recordName: String) -> JSONValue {
        var error = WebServicesError(code: "ATOMIC_ERROR", reason: "Another operation of this atomic request failed.").object
        error["recordName"] = .string(recordName)
        return .object(error)
    }

    // MARK: records/lookup

    /// One name a lookup asks for, with the fields its record is answered with.
    typealias LookedUp = (name: String, keys: Set<String>?)

    /// `records[{recordName, desiredKeys?}]` in `zoneID` (the default zone if none): each
    /// answered, in order, with the record or a `NOT_FOUND` naming it. The records are read
    /// a budget at a time (`PageBudget.byteBudget`), the first read before the answer begins
    /// and each next one as the answer is written (`StreamedRecords`): a lookup holds about
    /// one budget of records at a time, however many it names. (Each read is a snapshot of
    /// its own, as Apple's lookup of several records promises no more.)
    func lookup(_ body: Object) async throws -> StreamedRecords {
        let zone = try WebServicesFormat.zoneIDOrDefault(body["zoneID"])
        let answer = try answer(body)
        guard let requests = body["records"]?.array, requests.count <= Self.maximumOperations else {
            throw WebServicesError.badRequest("records must be an array of at most \(Self.maximumOperations) {recordName}.")
        }
        let desiredKeys = try Self.desiredKeys(body)
        let wanted: [LookedUp] = try requests.enumerated().map { index, json in
            guard let object = json.object else { throw WebServicesError.badRequest("records[\(index)] must be an object with a recordName.") }
            let name = try WebServicesFormat.recordName(object["recordName"], at: "records[\(index)].recordName")
            return (name, try Self.desiredKeys(object) ?? desiredKeys)
        }
        let (first, firstRead) = try await lookUp(wanted, from: 0, in: zone, answer)
        let operations = self
        return StreamedRecords(first: first) { write in
            var offset = firstRead
            while offset < wanted.count {
                let (items, read) = try await operations.lookUp(wanted, from: offset, in: zone, answer)
                try await write(items)
                offset += read
            }
        }
    }

    /// The answers of the first of `wanted[offset...]` that one read of the store reaches (at
    /// least one), and how many that is.
    private func lookUp(
        _ wanted: [LookedUp], from offset: Int, in zone: RecordZoneID, _ answer: WebServicesFormat.Answer
    ) async throws -> (items: [JSONValue], count: Int) {
        guard offset < wanted.count else { return ([], 0) }
        let names = wanted[offset...].map(\.name)
        let read: NamedRecords
        do {
            read = try await store.records(account: owner, in: zone, named: names, byteBudget: PageBudget.byteBudget)
        } catch CloudError.zoneNotFound where zone == RecordZoneID.defaultZone || offset > 0 {
            // The default zone, never written to yet; or a zone deleted since the lookup's
            // first read, whose records went with it.
            read = NamedRecords(namesRead: names.count)
        }
        let count = min(names.count, max(1, read.namesRead))
        let byName = Dictionary(read.records.map { ($0.recordID.recordName, $0) }, uniquingKeysWith: { first, _ in first })
        let items = wanted[offset..<(offset + count)].map { name, keys -> JSONValue in
            guard let record = byName[name] else {
                var missing = WebServicesError(code: "NOT_FOUND", reason: "No record \(name) in zone \(zone.zoneName).").object
                missing["recordName"] = .string(name)
                return .object(missing)
            }
            return Self.object(record, desiredKeys: keys, answer)
        }
        return (items, count)
    }
}
