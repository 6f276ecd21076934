import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// Why a version of an idea left the current state on this device.
public enum HistoryReason: String, Sendable, Codable, CaseIterable {
    /// An edit on this device replaced it.
    case edited
    /// A newer version from another device replaced it.
    case received
    /// A merge of this device's and another device's fields replaced it.
    case merged
    /// It lost a merge: the other side's fields were newer.
    case lost
    /// A value typed in the form that the person set aside for another device's (`t`).
    case setAside
    /// A delete, here or on another device, removed it.
    case deleted
    /// An undo on this device replaced it.
    case undone
    /// A redo on this device replaced it.
    case redone
    /// A restore of an older version on this device replaced it.
    case restored

    /// Why the version left, as the history shows it.
    public func text(in language: Language) -> String {
        switch (self, language) {
        case (.edited, .english): "replaced by an edit"
        case (.received, .english): "replaced by another device's"
        case (.merged, .english): "merged with another device's"
        case (.lost, .english): "lost a merge"
        case (.setAside, .english): "set aside for another device's"
        case (.deleted, .english): "deleted"
        case (.undone, .english): "undone"
        case (.redone, .english): "redone"
        case (.restored, .english): "replaced by a restore"
        case (.edited, .traditionalChinese): "被編輯取代"
        case (.received, .traditionalChinese): "被其他裝置的版本取代"
        case (.merged, .traditionalChinese): "與其他裝置的版本合併"
        case (.lost, .traditionalChinese): "合併時落敗"
        case (.setAside, .traditionalChinese): "改用其他裝置的版本而擱置"
        case (.deleted, .traditionalChinese): "已刪除"
        case (.undone, .traditionalChinese): "已復原"
        case (.redone, .traditionalChinese): "已重做"
        case (.restored, .traditionalChinese): "被還原取代"
        }
    }
}

/// One version of an idea as this device knew it.
public struct IdeaVersion: Sendable, Equatable {
    /// The number `ideabox restore` takes; nil for the current version.
    public var number: Int64?
    /// The idea.
    public var ideaId: UUID
    /// When the version was written: its latest field stamp.
    public var writtenAt: Timestamp
    /// The device that wrote it last.
    public var writtenBy: String
    /// When it left the current state here (nil for the current version).
    public var replacedAt: Timestamp?
    /// Why it left (nil for the current version).
    public var reason: HistoryReason?
    /// The fields in which it differs from what replaced it.
    public var fields: [IdeaField]
    /// Its values.
    public var title: String
    /// Its values.
    public var description: String
    /// Its values.
    public var isCompleted: Bool
    /// Whether the idea is deleted (the current state of a deleted idea).
    public var isDeleted: Bool
}

/// What an undo, a redo or a restore did.
public enum RevertOutcome: Sendable, Equatable {
    /// The fields were put back, as this new edit.
    case reverted(Idea)
    /// Another device changed these fields since the action: nothing was changed.
    case changedElsewhere([IdeaField])
    /// The idea is gone (deleted on another device).
    case gone
}

extension IdeaRepository {
    /// How many versions of each idea the history keeps at least.
    public static let historyVersionsKept = 50
    /// How long every version is kept, whatever their number: 30 days.
    public static let historyDaysKept: Int64 = 30

    /// Keeps `idea` (with its `stamps`) in the history: it left the current state for
    /// `reason`, differing in `fields` from what replaced it. A version already held is not
    /// kept twice. Versions beyond the newest 50 of the idea and older than 30 days go.
    func recordHistory(
        of idea: Idea, stamps: FieldStamps, reason: HistoryReason, fields: [IdeaField], at time: Timestamp,
        _ db: Database
    ) throws {
        let latest = stamps.latest
        let writtenAt = max(latest.timestamp, latest.isSample ? idea.createdAt : latest.timestamp)
        let alreadyKept = try db.cachedValue(
            Bool.self,
            sql: """
                SELECT EXISTS (SELECT 1 FROM ideaHistory WHERE ideaId = ? AND writtenAt = ? AND writtenBy = ?
                    AND title = ? AND description = ? AND isCompleted = ?)
                """,
            arguments: [idea.idString, writtenAt, latest.deviceId, idea.title, idea.description, idea.isCompleted]) ?? false
        guard !alreadyKept else { return }
        try db.cachedStatement(sql: """
            INSERT INTO ideaHistory (ideaId, recordedAt, reason, writtenAt, writtenBy, fields, isCompleted, title, description)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
            .execute(arguments: [
                idea.idString, time, reason.rawValue, writtenAt, latest.deviceId,
                fields.map(\.rawValue).joined(separator: ","), idea.isCompleted, idea.title, idea.description,
            ])
        try db.cachedStatement(sql: """
            DELETE FROM ideaHistory
            WHERE ideaId = ?1 AND recordedAt < ?2
              AND id <= (SELECT id FROM ideaHistory WHERE ideaId = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?3)
            """)
            .execute(arguments: [
                idea.idString, time.milliseconds - Self.historyDaysKept * 86_400_000, Self.historyVersionsKept,
            ])
    }

    /// Keeps `idea`'s values in its history as a version that never became current here
    /// (a form's typed value the person chose not to keep), differing in `fields`.
    public func keepInHistory(_ idea: Idea, fields: [IdeaField], reason: HistoryReason) throws {
        try write { db in
            let now = try stamp(db)
            let order = SyncOrder(timestamp: now, deviceId: deviceId)
            try recordHistory(of: idea, stamps: FieldStamps(all: order), reason: reason, fields: fields, at: now, db)
        }
    }

    /// Every version of the idea this device knows, the current one first (or the delete,
    /// for a deleted idea), then the history, newest first.
    public func history(of id: UUID) throws -> [IdeaVersion] {
        try connection.read { db in
            var versions: [IdeaVersion] = []
            if let stored = try fetchStoredRow(id: id, db) {
                let latest = stored.stamps.latest
                versions.append(IdeaVersion(
                    number: nil, ideaId: id, writtenAt: latest.isSample ? stored.idea.createdAt : latest.timestamp,
                    writtenBy: latest.deviceId, replacedAt: nil, reason: nil, fields: [],
                    title: stored.idea.title, description: stored.idea.description,
                    isCompleted: stored.idea.isCompleted, isDeleted: false))
            } else if let row = try Row.fetchOne(
                db, sql: "SELECT deletedAt, deviceId FROM tombstone WHERE ideaId = ?", arguments: [id.lowercasedString]) {
                versions.append(IdeaVersion(
                    number: nil, ideaId: id, writtenAt: row["deletedAt"], writtenBy: row["deviceId"], replacedAt: nil,
                    reason: nil, fields: [], title: "", description: "", isCompleted: false, isDeleted: true))
            }
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM ideaHistory WHERE ideaId = ? ORDER BY id DESC", arguments: [id.lowercasedString])
            for row in rows {
                let fields: String = row["fields"]
                let reason: String = row["reason"]
                versions.append(IdeaVersion(
                    number: row["id"], ideaId: id, writtenAt: row["writtenAt"], writtenBy: row["writtenBy"],
                    replacedAt: row["recordedAt"], reason: HistoryReason(rawValue: reason) ?? .edited,
                    fields: fields.split(separator: ",").compactMap { IdeaField(rawValue: String($0)) },
                    title: row["title"], description: row["description"], isCompleted: row["isCompleted"],
                    isDeleted: false))
            }
            return versions
        }
    }

    /// The id of the one idea, live or deleted, whose id is `text` or starts with it: what
    /// `ideabox history` takes, since a deleted idea keeps its history.
    public func ideaIdWithHistory(matching text: String) throws -> UUID {
        let prefix = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !prefix.isEmpty, prefix.count <= 36,
              prefix.unicodeScalars.allSatisfy({ $0 == "-" || $0.properties.isASCIIHexDigit })
        else { throw IdeaStoreError.malformedId(text) }
        let matches = try connection.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM idea WHERE id GLOB ?1
                    UNION SELECT ideaId FROM tombstone WHERE ideaId GLOB ?1
                    UNION SELECT ideaId FROM ideaHistory WHERE ideaId GLOB ?1
                    LIMIT 2
                    """,
                arguments: [prefix + "*"])
        }
        switch matches.count {
        case 0: throw IdeaStoreError.unknownId(text)
        case 1:
            guard let id = UUID(hexText: matches[0]) else { throw IdeaStoreError.unknownId(text) }
            return id
        default: throw IdeaStoreError.ambiguousId(text, matches: matches.count)
        }
    }

    /// Makes version `number` of the idea's history the current one, as a new edit of the
    /// fields that differ (bringing the idea back if it was deleted), and returns it.
    public func restoreVersion(_ number: Int64, of id: UUID) throws -> Idea {
        try restoreVersionKeepingPrevious(number, of: id).idea
    }

    /// Like `restoreVersion(_:of:)`; also returns the idea as it was just before, read in
    /// the same transaction (nil if it was deleted): what an undo puts back.
    public func restoreVersionKeepingPrevious(_ number: Int64, of id: UUID) throws -> (previous: Idea?, idea: Idea) {
        try write { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT title, description, isCompleted FROM ideaHistory WHERE id = ? AND ideaId = ?",
                arguments: [number, id.lowercasedString])
            else { throw IdeaStoreError.unknownVersion(id: id.lowercasedString, version: number) }
            let title: String = row["title"]
            let description: String = row["description"]
            let isCompleted: Bool = row["isCompleted"]
            if let stored = try fetchStoredRow(id: id, db) {
                var idea = stored.idea
                idea.title = title
                idea.description = description
                idea.isCompleted = isCompleted
                return (stored.idea, try saveEdit(of: stored, to: idea, reason: .restored, db))
            }
            let now = try stamp(db)
            let createdAt = try db.cachedValue(
                Int64.self, sql: "SELECT min(writtenAt) FROM ideaHistory WHERE ideaId = ?",
                arguments: [id.lowercasedString]).map(Timestamp.init(milliseconds:)) ?? now
            let idea = Idea(
                id: id, title: title, description: description, isCompleted: isCompleted,
                createdAt: min(createdAt, now), updatedAt: now, deviceId: deviceId, version: 0)
            try insertRow(idea, stamps: FieldStamps(all: SyncOrder(idea)), db)
            try db.run(sql: "DELETE FROM tombstone WHERE ideaId = ?", arguments: [idea.idString])
            try enqueue(.save, ideaId: idea.idString, at: now, db)
            return (nil, idea)
        }
    }

    /// Undo or redo of an edit, as a new edit against the present: puts `target`'s values
    /// back in `fields`, but only if each still holds what `expected` has (what the action
    /// wrote). Where another device changed one since, nothing changes.
    public func revert(
        id: UUID, fields: [IdeaField], from expected: Idea, to target: Idea, reason: HistoryReason
    ) throws -> RevertOutcome {
        try write { db in try revert(.edit(id: id, fields: fields, from: expected, to: target), reason: reason, db) }
    }

    /// Undo of an add (or redo of a delete): deletes the idea, unless another device changed
    /// it since it was `added`.
    public func deleteUnlessChanged(_ added: Idea, reason: HistoryReason) throws -> RevertOutcome {
        try write { db in try revert(.delete(added), reason: reason, db) }
    }

    /// Undo or redo of an action on many ideas (a selection), in one transaction: every step
    /// is taken back or made again, or, if one of them cannot be (another device changed or
    /// deleted its idea), none is, and that step's outcome is returned.
    public func revertAll(_ steps: [RevertStep], reason: HistoryReason) throws -> RevertOutcome {
        do {
            return try write { db in
                var last = RevertOutcome.gone
                for step in steps {
                    last = try revert(step, reason: reason, db)
                    if case .reverted = last { continue }
                    throw RevertRefused(outcome: last)
                }
                return last
            }
        } catch let refused as RevertRefused {
            return refused.outcome
        }
    }

    /// One step of an undo or redo, inside the caller's transaction.
    private func revert(_ step: RevertStep, reason: HistoryReason, _ db: Database) throws -> RevertOutcome {
        switch step {
        case .restore(let deleted):
            return .reverted(try restoreIdea(deleted, db))
        case .delete(let added):
            guard let stored = try fetchStoredRow(id: added.id, db) else { return .gone }
            let moved = stored.idea.fieldsDiffering(from: added)
            guard moved.isEmpty else { return .changedElsewhere(moved) }
            let now = try stamp(db)
            try recordHistory(of: stored.idea, stamps: stored.stamps, reason: reason, fields: [], at: now, db)
            try deleteRow(stored, db)
            try upsertTombstone(added.id, SyncOrder(timestamp: now, deviceId: deviceId), db)
            try enqueue(.delete, ideaId: added.idString, at: now, db)
            return .reverted(stored.idea)
        case let .edit(id, fields, expected, target):
            guard let stored = try fetchStoredRow(id: id, db) else { return .gone }
            let moved = fields.filter { stored.idea.value(of: $0) != expected.value(of: $0) }
            guard moved.isEmpty else { return .changedElsewhere(moved) }
            var idea = stored.idea
            for field in fields { idea = idea.taking(field, from: target) }
            return .reverted(try saveEdit(of: stored, to: idea, reason: reason, db))
        }
    }
}

/// One idea's part of an undo or redo (`IdeaRepository.revertAll`).
public enum RevertStep: Sendable, Equatable {
    /// Bring back a deleted idea as a new edit.
    case restore(Idea)
    /// Delete the idea, unless another device changed it since it was as given.
    case delete(Idea)
    /// Put `target`'s values back in `fields`, if each still holds what `expected` has.
    case edit(id: UUID, fields: [IdeaField], from: Idea, to: Idea)
}

/// A step of `revertAll` that could not be made: the transaction is rolled back.
private struct RevertRefused: Error {
    let outcome: RevertOutcome
}
