import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// Remote changes with the search text of their ideas worked out, ready to apply.
/// Preparing needs no database, so a sync prepares the next page on another thread while
/// it applies one.
public struct PreparedRemoteChanges: Sendable {
    /// The changes, in the order they are applied.
    public let changes: [RemoteChange]
    /// The search text of each saved idea, by position.
    let indexed: [SearchText.Indexed?]

    /// Works out the search text of the ideas among `changes`.
    public init(_ changes: [RemoteChange]) {
        self.changes = changes
        indexed = changes.map { change in
            guard case .saved(let idea, _) = change else { return nil }
            return SearchText.Indexed(title: idea.title, description: idea.description)
        }
    }
}

/// What applying remote changes did.
public struct MergeSummary: Sendable, Equatable {
    /// Remote changes that are now the local state.
    public var applied = 0
    /// Remote changes older than what this device has, which stays (and is sent).
    public var keptLocal = 0
    /// Remote changes this device already had.
    public var alreadyKnown = 0
    /// Changes made on both sides since they last agreed; each is in the conflict log.
    public var conflicts = 0

    /// A summary with these counts.
    public init(applied: Int = 0, keptLocal: Int = 0, alreadyKnown: Int = 0, conflicts: Int = 0) {
        self.applied = applied
        self.keptLocal = keptLocal
        self.alreadyKnown = alreadyKnown
        self.conflicts = conflicts
    }
}

/// What applying remote changes does to the stored change token.
public enum ChangeTokenUpdate: Sendable, Equatable {
    /// Leave it: the changes did not come from a pull (a conflict answer to a save).
    case keep
    /// Store this token (nil: start over) in the same transaction as the changes.
    case set(Data?)
}

/// The profile was signed in to another account (its ideas carried there) while a sync of
/// the one before was under way: what that sync fetched or had acknowledged is the other
/// account's and is not written; the next sync starts afresh with the new one.
public struct AccountMovedDuringSync: Error, Equatable, Sendable, CustomStringConvertible {
    public init() {}

    public var description: String { "the profile was signed in to another account meanwhile; the rest was not done" }
}

extension IdeaRepository {
    /// Throws `AccountMovedDuringSync` unless this device's ideas still belong to `account`
    /// (nil: no check).
    func checkStillBound(to account: String?, _ db: Database) throws {
        guard let account else { return }
        let bound = try db.cachedValue(String.self, sql: "SELECT accountName FROM syncMetadata WHERE id = 1")
        if bound != account { throw AccountMovedDuringSync() }
    }

    /// Applies what the remote holds, by last write wins in the one sync order, and stores
    /// `changeToken` in the same transaction, so a crash never skips or repeats a change.
    ///
    /// What becomes of each change is `rule`'s decision (the sync layer's conflict rule, a
    /// pure function of the two sides and whether a local change is pending); the store
    /// only applies it: the remote's version replaces this device's, or this device's stays
    /// and is queued again, and a conflict is logged where the rule says so.
    /// With `account`, nothing is written if this device's ideas no longer belong to it
    /// (`AccountMovedDuringSync`).
    /// The names of the devices that wrote them (`deviceNames`) are kept first, so that a
    /// conflict among them is logged with its devices' names.
    public func applyRemoteChanges(
        _ changes: [RemoteChange], tags: [UUID: String] = [:], deviceNames: [DeviceNaming] = [],
        changeToken: ChangeTokenUpdate, syncedAt: Timestamp, account: String? = nil,
        rule: @escaping (MergeCase) -> MergeDecision
    ) throws -> MergeSummary {
        try applyRemoteChanges(
            PreparedRemoteChanges(changes), tags: tags, deviceNames: deviceNames, changeToken: changeToken,
            syncedAt: syncedAt, account: account, rule: rule)
    }

    /// Applies remote changes prepared beforehand; see `applyRemoteChanges(_:tags:deviceNames:changeToken:syncedAt:account:rule:)`.
    public func applyRemoteChanges(
        _ prepared: PreparedRemoteChanges, tags: [UUID: String] = [:], deviceNames: [DeviceNaming] = [],
        changeToken: ChangeTokenUpdate, syncedAt: Timestamp, account: String? = nil,
        rule: @escaping (MergeCase) -> MergeDecision
    ) throws -> MergeSummary {
        try write { db in
            try checkStillBound(to: account, db)
            try noteDeviceNames(deviceNames, db)
            var summary = MergeSummary()
            var highest: Timestamp?
            var known = try idsWithLocalState(prepared.changes.map(\.ideaId), db)
            for (change, indexed) in zip(prepared.changes, prepared.indexed) {
                highest = max(highest ?? change.latestTime, change.latestTime)
                guard known.contains(change.ideaId) else {
                    // Nothing here to compare with (every idea of a first sync): no reads needed.
                    let decision = rule(
                        MergeCase(local: nil, remote: change.side, hasPendingChange: false, thisDevice: deviceId))
                    if decision.action == .takeRemote {
                        try adopt(change, indexed: indexed, replacing: nil, hasTombstone: false, syncedAt: syncedAt, db)
                        summary.applied += 1
                    }
                    known.insert(change.ideaId)
                    continue
                }
                // A record carrying the very tag this device already holds is the remote's
                // copy of what this device sent or fetched before, not news: without this,
                // a device's own upload would come back as a conflict with its next edit.
                if let tag = tags[change.ideaId], try db.cachedValue(String.self, sql: "SELECT tag FROM remoteTag WHERE ideaId = ?", arguments: [change.ideaId.lowercasedString]) == tag {
                    summary.alreadyKnown += 1
                    continue
                }
                try merge(change, indexed: indexed, syncedAt: syncedAt, rule: rule, summary: &summary, db)
            }
            try saveTags(tags, db)
            if let highest {
                try noteSeen(highest, db)
            }
            if case .set(let token) = changeToken {
                try db.run(sql: "UPDATE syncMetadata SET changeToken = ? WHERE id = 1", arguments: [token])
            }
            if summary.applied > 0 {
                try appendLog(
                    SyncLogEntry(occurredAt: syncedAt, event: .applied(count: summary.applied)),
                    db)
                // A page of a sync is a bulk write: it merges the index segments it wrote, as
                // FTS5's automatic merge did before edits stopped paying for it
                // (IdeaSchema.Migration.searchMergesApart).
                try SearchText.merge(db, pages: summary.applied)
            }
            return summary
        }
    }

    /// Which of `ids` this device holds anything about: an idea, a delete or a remote tag.
    /// One query for a whole page, so that a first sync doesn't look each idea up four times.
    private func idsWithLocalState(_ ids: [UUID], _ db: Database) throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        // Ids are hex and dashes: the JSON array needs no escaping.
        let list = "[\"" + ids.map(\.lowercasedString).joined(separator: "\",\"") + "\"]"
        let found = try String.fetchAll(
            db.cachedStatement(sql: """
                SELECT requested.value FROM json_each(?) AS requested
                WHERE EXISTS (SELECT 1 FROM idea WHERE id = requested.value)
                   OR EXISTS (SELECT 1 FROM tombstone WHERE ideaId = requested.value)
                   OR EXISTS (SELECT 1 FROM remoteTag WHERE ideaId = requested.value)
                """),
            arguments: [list])
        return Set(found.compactMap(UUID.init(hexText:)))
    }

    private func merge(
        _ change: RemoteChange, indexed: SearchText.Indexed?, syncedAt: Timestamp, rule: (MergeCase) -> MergeDecision,
        summary: inout MergeSummary, _ db: Database
    ) throws {
        let idText = change.ideaId.lowercasedString
        let stored = try fetchStoredRow(id: change.ideaId, db)
        let tombstone = try db.cachedRow(sql: "SELECT deletedAt, deviceId FROM tombstone WHERE ideaId = ?", arguments: [idText])
            .map { SyncOrder(timestamp: $0["deletedAt"], deviceId: $0["deviceId"]) }
        let pending = try db.cachedValue(String.self, sql: "SELECT operation FROM outbox WHERE ideaId = ?", arguments: [idText])
        let local: MergeCase.Side? = stored.map { .idea($0.idea, $0.stamps) } ?? tombstone.map { .deleted($0) }
        let decision = rule(MergeCase(local: local, remote: change.side, hasPendingChange: pending != nil, thisDevice: deviceId))
        if let resolution = decision.conflict {
            let remoteIdea: Idea? = if case .saved(let idea, _) = change { idea } else { nil }
            // Whose value each field kept: the writer of the winning side's stamp.
            let remoteStamps: FieldStamps? = if case .saved(_, let stamps) = change { stamps } else { nil }
            var keptFrom: [IdeaField: String] = [:]
            for field in decision.conflictFields.keys {
                let lostHere = decision.lostHere.contains(field)
                keptFrom[field] = lostHere ? remoteStamps?[field].deviceId : stored?.stamps[field].deviceId
            }
            // A conflict settled whole kept the remote's state or this device's.
            let keptSide: MergeCase.Side? = decision.action == .takeRemote ? change.side : local
            let keptVersion = decision.conflictFields.isEmpty
                ? keptSide.map { SyncLogEvent.KeptVersion(deviceId: $0.order.deviceId, isDelete: $0.isDelete) } : nil
            try insertConflict(
                ConflictRecord(
                    ideaId: change.ideaId, occurredAt: syncedAt, local: stored?.idea, remote: remoteIdea,
                    resolution: resolution, fields: decision.conflictFields, keptFrom: keptFrom, keptVersion: keptVersion),
                db)
            summary.conflicts += 1
        }
        if decision.replacedThisDevicesEdit, let stored {
            try appendLog(SyncLogEntry(occurredAt: syncedAt, event: .editReplaced(title: stored.idea.title)), db)
        }
        // A version is kept as having lost a merge only in the fields the rule says it lost,
        // which are the logged conflict's: the history and the conflict log agree.
        switch decision.action {
        case .alreadyHave:
            try db.run(sql: "DELETE FROM outbox WHERE ideaId = ?", arguments: [idText])
            if let stored, case .saved = change {
                try db.run(
                    sql: "UPDATE idea SET lastSyncedAt = ? WHERE localId = ?", arguments: [syncedAt, stored.localId])
            }
            summary.alreadyKnown += 1
        case .takeRemote:
            try db.run(sql: "DELETE FROM outbox WHERE ideaId = ?", arguments: [idText])
            if let stored {
                switch change {
                case .saved(let idea, _):
                    let fields = stored.idea.fieldsDiffering(from: idea)
                    let lost = decision.lostHere.filter(fields.contains)
                    if !fields.isEmpty {
                        try recordHistory(
                            of: stored.idea, stamps: stored.stamps, reason: lost.isEmpty ? .received : .lost,
                            fields: lost.isEmpty ? fields : lost, at: syncedAt, db)
                    }
                case .deleted:
                    try recordHistory(of: stored.idea, stamps: stored.stamps, reason: .deleted, fields: [], at: syncedAt, db)
                }
            }
            try adopt(change, indexed: indexed, replacing: stored, hasTombstone: tombstone != nil, syncedAt: syncedAt, db)
            summary.applied += 1
        case .keepLocal(let resend):
            if case .saved(let remoteIdea, let remoteStamps) = change, let stored {
                let lost = decision.lostThere.filter(remoteIdea.fieldsDiffering(from: stored.idea).contains)
                if !lost.isEmpty {
                    try recordHistory(of: remoteIdea, stamps: remoteStamps, reason: .lost, fields: lost, at: syncedAt, db)
                }
            }
            if resend {
                try enqueue(stored == nil ? .delete : .save, ideaId: idText, at: syncedAt, db)
            }
            summary.keptLocal += 1
        case let .merged(idea, stamps):
            if let stored {
                let fields = stored.idea.fieldsDiffering(from: idea)
                let lostHere = decision.lostHere.filter(fields.contains)
                if !fields.isEmpty {
                    try recordHistory(
                        of: stored.idea, stamps: stored.stamps, reason: lostHere.isEmpty ? .merged : .lost,
                        fields: lostHere.isEmpty ? fields : lostHere, at: syncedAt, db)
                }
                if case .saved(let remoteIdea, let remoteStamps) = change {
                    let lostThere = decision.lostThere.filter(remoteIdea.fieldsDiffering(from: idea).contains)
                    if !lostThere.isEmpty {
                        try recordHistory(
                            of: remoteIdea, stamps: remoteStamps, reason: .lost, fields: lostThere, at: syncedAt, db)
                    }
                }
                try updateRow(stored, to: idea, stamps: stamps, db)
            } else {
                try insertRow(idea, stamps: stamps, db)
                try db.run(sql: "DELETE FROM tombstone WHERE ideaId = ?", arguments: [idText])
            }
            try enqueue(.save, ideaId: idText, at: syncedAt, db)
            summary.applied += 1
        }
    }

    /// Makes a remote change the local state, in place of the idea `stored` or the delete
    /// this device holds, if any.
    private func adopt(
        _ change: RemoteChange, indexed: SearchText.Indexed?, replacing stored: StoredRow?, hasTombstone: Bool,
        syncedAt: Timestamp, _ db: Database
    ) throws {
        switch change {
        case .saved(var idea, let stamps):
            idea.lastSyncedAt = syncedAt
            if let stored {
                try updateRow(stored, to: idea, stamps: stamps, indexed: indexed, db)
            } else {
                try insertRow(idea, stamps: stamps, indexed: indexed, db)
            }
            if hasTombstone {
                try db.run(sql: "DELETE FROM tombstone WHERE ideaId = ?", arguments: [idea.idString])
            }
        case let .deleted(_, order):
            if let stored {
                try deleteRow(stored, db)
            }
            try upsertTombstone(change.ideaId, order, db)
        }
    }
}
