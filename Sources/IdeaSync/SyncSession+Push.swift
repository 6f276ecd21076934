import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// A session's push: the outbox sent in batches, the answers settled while the next batch
/// is on its way, and a zone the remote lost made again.
extension SyncSession {
    /// Sends the outbox oldest first, at most `batchLimit` changes a request. Requests go
    /// one after another, but while the remote works on one (a child task), the answer to
    /// the one before is settled here (the remote and this device's database are separate
    /// files).
    ///
    /// A conflict answer carries the remote's version: it is settled by last write wins,
    /// and a local version that wins goes out again with the remote's tag, in another pass
    /// through the outbox. Changes that failed for another reason stay queued, and the
    /// sync fails so the engine retries.
    func push(into report: inout SyncReport) async throws {
        // The group holds the request under way, at most one; a failed push cancels it and
        // waits for it (its changes stay queued).
        try await withThrowingTaskGroup(of: ModifyResult.self) { requests in
            try await push(into: &report, requests: &requests)
        }
    }

    private func push(into report: inout SyncReport, requests: inout ThrowingTaskGroup<ModifyResult, any Error>) async throws {
        var limit = min(Self.batchLimit, database.maximumRecordsPerRequest)
        var transientFailure: CloudError?
        // The last change sent in this pass through the outbox.
        var cursor: PendingChange?
        var inFlight: SentBatch?
        var clockMeasured = false
        var rounds = 0
        while rounds < 10_000 {
            rounds += 1
            var pending = try repository.pendingChanges(after: cursor, limit: limit)
            if pending.isEmpty, inFlight == nil, cursor != nil {
                // A pass is over: start another for what is still queued.
                cursor = nil
                pending = try repository.pendingChanges(after: nil, limit: limit)
            }
            var answered: (sent: SentBatch, result: ModifyResult)?
            if let sent = inFlight {
                inFlight = nil
                do {
                    guard let result = try await requests.next() else { throw CloudError.internalError }
                    answered = (sent, result)
                } catch let error as CloudError where error.code == .limitExceeded && sent.changes.count > 1 {
                    limit = max(1, sent.changes.count / 2)
                    cursor = nil
                    continue
                } catch let error as CloudError where error.code == .zoneNotFound {
                    try await recreateZone()
                    cursor = nil
                    continue
                }
            }
            if !pending.isEmpty {
                let (request, batch) = try send(pending)
                requests.addTask(operation: request)
                inFlight = batch
                cursor = pending.last
            }
            guard let (sent, result) = answered else {
                if inFlight == nil { break }
                continue
            }
            let progress = try await settle(sent, result, measuringClock: &clockMeasured, into: &report)
            if let failure = result.partialFailure, failure.isTransient || !progress {
                transientFailure = failure
                break
            }
            if !progress { break }
        }
        // A batch sent before the loop stopped: its answer is settled too (its changes stay
        // queued if the request failed).
        if let sent = inFlight, let result = try? await requests.next() {
            inFlight = nil
            _ = try await settle(sent, result, measuringClock: &clockMeasured, into: &report)
        }
        if report.sent > 0 {
            try repository.logSyncEvent(.sent(count: report.sent), at: clock.now())
        }
        if let transientFailure {
            throw SyncFailure(transientFailure)
        }
    }

    /// A batch of the outbox sent: its changes, and the idea each record of the request
    /// stands for (the app's records are named apart from their ideas).
    struct SentBatch {
        var changes: [PendingChange]
        var ideas: [RecordID: UUID]
    }

    /// The request that sends `changes`, for a child task, and the batch it sends.
    private func send(_ changes: [PendingChange]) throws -> (@Sendable () async throws -> ModifyResult, SentBatch) {
        let recordNames = shape == .coreData ? try repository.recordNames(of: changes.map(\.ideaId)) : [:]
        let request = shape.request(for: changes, names: namesToSend(), recordNames: recordNames)
        let database = self.database
        let modify: @Sendable () async throws -> ModifyResult = {
            try await database.modify(saving: request.saving, deleting: request.deleting, savePolicy: .ifServerRecordUnchanged)
        }
        return (modify, SentBatch(changes: changes, ideas: request.ideas))
    }

    /// Applies one modify answer; returns whether anything moved (sent, or settled). The first
    /// answer of a push that saved something measures this clock against the remote's
    /// (`clockMeasured`): once a push is enough, and spares each batch two transactions.
    private func settle(
        _ sent: SentBatch, _ result: ModifyResult, measuringClock clockMeasured: inout Bool,
        into report: inout SyncReport
    ) async throws -> Bool {
        let byId = Dictionary(sent.changes.map { ($0.ideaId, $0) }, uniquingKeysWith: { first, _ in first })
        var acknowledged: [PendingChange] = []
        var tags: [UUID: String] = [:]
        var receivedAt: [UUID: Timestamp] = [:]
        for record in result.saved {
            guard let id = sent.ideas[record.recordID], let change = byId[id] else { continue }
            acknowledged.append(change)
            if let tag = record.changeTag { tags[id] = tag }
            if let time = record.modificationDate { receivedAt[id] = time }
        }
        // A record deleted, or found gone already (the app's shape): the delete is done.
        var removed: [UUID] = []
        let gone = result.failures.compactMap { $0.value.code == .unknownItem ? $0.key : nil }
        for recordID in result.deleted + gone {
            guard let id = sent.ideas[recordID], let change = byId[id], case .delete = change.payload else { continue }
            acknowledged.append(change)
            removed.append(id)
        }
        let answeredAt = clock.now()
        try repository.acknowledge(acknowledged, tags: tags, receivedAt: receivedAt, syncedAt: answeredAt, account: checked.account)
        if !clockMeasured, let latest = receivedAt.values.max() {
            clockMeasured = true
            try repository.noteRemoteTime(latest, at: answeredAt)
            // This clock may have been found ahead just now: what else it stamped goes out anew.
            try repository.bringBackFutureTimes()
        }
        report.sent += acknowledged.count
        if !removed.isEmpty { try repository.forgetRemoteTags(removed) }

        var serverVersions: [RemoteChange] = []
        var serverTags: [UUID: String] = [:]
        var serverNames: [DeviceNaming] = []
        var staleTags: [UUID] = []
        var failed: [PendingChange] = []
        for (recordID, error) in result.failures {
            guard let id = sent.ideas[recordID], let change = byId[id], !removed.contains(id) else { continue }
            switch error {
            case .serverRecordChanged(let server?):
                if case .change(let version, let naming) = try await reading(server), version.ideaId == id {
                    serverVersions.append(version)
                    if let naming { serverNames.append(naming) }
                    if let tag = server.changeTag { serverTags[id] = tag }
                } else {
                    failed.append(change)
                }
            case .unknownItem:
                staleTags.append(id)
            case .quotaExceeded:
                throw SyncFailure.quotaExceeded
            default:
                failed.append(change)
            }
        }
        if !serverVersions.isEmpty {
            let summary = try repository.applyRemoteChanges(
                serverVersions, tags: serverTags, deviceNames: serverNames, changeToken: .keep, syncedAt: clock.now(),
                account: checked.account,
                rule: ConflictRule.decide)
            report.received += summary.applied
            report.conflicts += summary.conflicts
        }
        if !staleTags.isEmpty {
            try repository.forgetRemoteTags(staleTags)
        }
        try repository.recordFailedAttempt(failed)
        return !acknowledged.isEmpty || !serverVersions.isEmpty || !staleTags.isEmpty
    }

    func recreateZone() async throws {
        try repository.logSyncEvent(.zoneMissing, at: clock.now())
        try await database.createZone(shape.zone)
        try repository.forgetRemoteTags()
        try repository.requeueEverything()
        _ = try repository.applyRemoteChanges([], changeToken: .set(nil), syncedAt: clock.now(), rule: ConflictRule.decide)
    }
}
