import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// What the remote's records and deletions mean here, in the session's record shape
/// (`RecordShape`): a record read (its assets first), the remote's whole listing, and the
/// deletions a page of changes reports.
extension SyncSession {
    /// What `record` says, the assets its text was moved into read first. An asset the
    /// remote no longer has makes the record invalid (skipped and logged), not a sync that
    /// fails for ever; a failure worth retrying fails the sync.
    func reading(_ record: RemoteRecord) async throws -> RecordShape.Reading {
        let reading = shape.read(record)
        guard case .needsAssets(let assets) = reading else { return reading }
        var texts: [String: String] = [:]
        for (field, reference) in assets {
            do {
                texts[field] = String(decoding: try await database.fetchAsset(reference), as: UTF8.self)
            } catch let error as CloudError where error.code == .unknownItem {
                return .invalid
            }
        }
        return shape.read(record, assetTexts: texts)
    }

    /// Every idea the remote holds, with its record (its name remembered where the app
    /// named it): what an overwrite and the integrity check compare with.
    func listing() async throws -> [(record: RemoteRecord, change: RemoteChange)] {
        var listed: [(record: RemoteRecord, change: RemoteChange)] = []
        var recordNames: [UUID: String] = [:]
        for record in try await database.records(in: shape.zone, ofType: shape.recordType) {
            guard case .change(let change, _) = try await reading(record) else { continue }
            listed.append((record, change))
            if shape == .coreData { recordNames[change.ideaId] = record.recordID.recordName }
        }
        try repository.rememberRecordNames(recordNames)
        return listed
    }

    /// What the remote's deletions of records mean here. A record of ours is never deleted
    /// but by hand (`RecordShape.ideabox`): what this device holds of it is queued to be sent
    /// again. The app's records are deleted when it deletes an idea: the idea is deleted here
    /// too, unless this device has a change of it waiting to be sent (an edit wins over a
    /// delete made apart from it, and puts the idea back), stamped after every stamp it has,
    /// as it was seen now. Returns the deletions to apply.
    func deletions(_ deleted: [DeletedRecord]) throws -> [RemoteChange] {
        switch shape {
        case .ideabox:
            let ids = deleted.compactMap { IdeaRecord.ideaId(of: $0.recordID) }
            if !ids.isEmpty {
                try repository.forgetRemoteTags(ids)
                try repository.requeue(ids)
            }
            return []
        case .coreData:
            let names = deleted.filter { $0.recordType == shape.recordType }.map(\.recordID.recordName)
            guard !names.isEmpty else { return [] }
            let remembered = try repository.ideaIds(ofRecordNames: names)
            let ids = names.compactMap { shape.ideaId(ofRecordNamed: $0, remembered: remembered) }
            try repository.forgetRemoteTags(ids)
            let settled = try repository.settledStates(of: ids)
            var pending: [UUID] = []
            var deletions: [RemoteChange] = []
            let now = clock.now()
            for id in ids {
                switch settled[id] {
                case .saved(_, let stamps)?:
                    let time = max(now, Timestamp(milliseconds: stamps.latest.timestamp.milliseconds + 1))
                    deletions.append(.deleted(ideaId: id, order: SyncOrder(timestamp: time, deviceId: CoreDataIdea.unknownWriter)))
                case .deleted?:
                    continue
                case nil:
                    pending.append(id)
                }
            }
            // An idea this device never held has no settled state either: requeueing it
            // queues nothing.
            try repository.requeue(pending)
            return deletions
        }
    }
}
