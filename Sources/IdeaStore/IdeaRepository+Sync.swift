import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// A change waiting in the outbox, as the sync engine sends it.
public struct PendingChange: Sendable, Equatable {
    /// What to send.
    public enum Payload: Sendable, Equatable {
        /// The idea as it is now, with the stamps of its fields.
        case save(Idea, FieldStamps)
        /// The idea was deleted at this point of the sync order.
        case delete(ideaId: UUID, order: SyncOrder)
    }

    /// What to send.
    public var payload: Payload
    /// When the change was queued. Acknowledging compares it, so an edit made while the
    /// change was on its way stays queued.
    public var enqueuedAt: Timestamp
    /// How many times sending it has failed.
    public var attempts: Int
    /// The remote's version tag of the idea when this device last saw it there, if ever.
    public var remoteTag: String?

    /// The idea the change is about.
    public var ideaId: UUID {
        switch payload {
        case .save(let idea, _): idea.id
        case .delete(let ideaId, _): ideaId
        }
    }
}

/// One idea's state as the remote has it.
public enum RemoteChange: Sendable, Equatable {
    /// The remote holds this version of the idea, its fields stamped so.
    case saved(Idea, FieldStamps)
    /// The remote holds a delete of the idea made at `order`.
    case deleted(ideaId: UUID, order: SyncOrder)

    /// The idea the change is about.
    public var ideaId: UUID {
        switch self {
        case .saved(let idea, _): idea.id
        case .deleted(let ideaId, _): ideaId
        }
    }

    /// Where the change stands in the sync order: its latest field stamp, or its delete.
    public var order: SyncOrder {
        switch self {
        case .saved(_, let stamps): stamps.latest
        case .deleted(_, let order): order
        }
    }

    /// The latest time the change shows: its place in the sync order, or the idea's
    /// `updatedAt` if later (an untouched sample shows the time it was seeded). A device
    /// that saw the change stamps what it does next after it.
    public var latestTime: Timestamp {
        switch self {
        case let .saved(idea, stamps): max(stamps.latest.timestamp, idea.updatedAt)
        case .deleted(_, let order): order.timestamp
        }
    }

    /// The change as the conflict rule sees it.
    public var side: MergeCase.Side {
        switch self {
        case .saved(let idea, let stamps): .idea(idea, stamps)
        case .deleted(_, let order): .deleted(order)
        }
    }
}

extension PendingChange.Payload {
    fileprivate var operation: IdeaRepository.OutboxOperation {
        switch self {
        case .save: .save
        case .delete: .delete
        }
    }
}

extension IdeaRepository {
    /// The oldest changes waiting to be sent, at most `limit` of them; after `previous`
    /// in the outbox's order (oldest first), if given.
    public func pendingChanges(after previous: PendingChange? = nil, limit: Int) throws -> [PendingChange] {
        try connection.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT outbox.ideaId, outbox.operation, outbox.enqueuedAt, outbox.attempts,
                           tombstone.deletedAt, tombstone.deviceId AS deletedBy, remoteTag.tag
                    FROM outbox
                    LEFT JOIN tombstone ON tombstone.ideaId = outbox.ideaId
                    LEFT JOIN remoteTag ON remoteTag.ideaId = outbox.ideaId
                    WHERE (outbox.enqueuedAt, outbox.ideaId) > (?, ?)
                    ORDER BY outbox.enqueuedAt, outbox.ideaId
                    LIMIT ?
                    """,
                arguments: [previous?.enqueuedAt.milliseconds ?? Int64.min, previous?.ideaId.lowercasedString ?? "", limit])
            return try rows.compactMap { row -> PendingChange? in
                let idText: String = row["ideaId"]
                guard let id = UUID(hexText: idText) else { return nil }
                let payload: PendingChange.Payload
                if row["operation"] == OutboxOperation.save.rawValue {
                    guard let row = try db.cachedRow(
                        sql: "SELECT \(Idea.selectedColumns), \(FieldStamps.columns) FROM idea WHERE id = ?",
                        arguments: [idText])
                    else { return nil }
                    let idea = try Idea(row: row)
                    payload = .save(idea, FieldStamps(row: row, at: 9, of: idea))
                } else {
                    guard let deletedAt: Timestamp = row["deletedAt"], let deletedBy: String = row["deletedBy"] else {
                        return nil
                    }
                    payload = .delete(ideaId: id, order: SyncOrder(timestamp: deletedAt, deviceId: deletedBy))
                }
                return PendingChange(
                    payload: payload, enqueuedAt: row["enqueuedAt"], attempts: row["attempts"], remoteTag: row["tag"])
            }
        }
    }

    /// Takes changes the remote accepted out of the outbox, unless the idea changed again
    /// meanwhile, marks the saved ideas as synced, and remembers the remote's new tags. A
    /// change the remote received (`receivedAt`) before its own times (this device's clock
    /// runs ahead) is ordered as every other device reads it (`ArrivalRule`), here too. With
    /// `account`, nothing is written if the ideas no longer belong to it (`AccountMovedDuringSync`):
    /// carried to another account meanwhile, they stay queued for it.
    public func acknowledge(
        _ changes: [PendingChange], tags: [UUID: String] = [:], receivedAt: [UUID: Timestamp] = [:], syncedAt: Timestamp,
        account: String? = nil
    ) throws {
        guard !changes.isEmpty else { return }
        try write { db in
            try checkStillBound(to: account, db)
            try saveTags(tags, db)
            for change in changes {
                try db.run(
                    sql: "DELETE FROM outbox WHERE ideaId = ? AND operation = ? AND enqueuedAt = ?",
                    arguments: [change.ideaId.lowercasedString, change.payload.operation.rawValue, change.enqueuedAt])
                // Nothing deleted: a newer edit still waits, but what came before it is
                // confirmed. (Checked only then, to keep a sync batch at one statement a change.)
                if db.changesCount == 0 {
                    try db.run(
                        sql: "UPDATE outbox SET pendingSince = NULL WHERE ideaId = ? AND pendingSince IS NOT NULL",
                        arguments: [change.ideaId.lowercasedString])
                } else if let time = receivedAt[change.ideaId] {
                    try orderAsArrived(change.payload, receivedAt: time, db)
                }
                if case .save(let idea, _) = change.payload {
                    try db.run(
                        sql: "UPDATE idea SET lastSyncedAt = ? WHERE id = ? AND updatedAt = ? AND deviceId = ?",
                        arguments: [syncedAt, idea.idString, idea.updatedAt, idea.deviceId])
                }
            }
        }
    }

    /// Orders `payload`, which the remote received at `receivedAt`, as the remote's copy now
    /// reads (`ArrivalRule`), and this device's clock no later than that; nothing if it came
    /// from no future.
    private func orderAsArrived(_ payload: PendingChange.Payload, receivedAt: Timestamp, _ db: Database) throws {
        switch payload {
        case let .save(idea, stamps):
            let (arrived, arrivedStamps) = ArrivalRule.arrived(idea, stamps, receivedAt: receivedAt)
            guard arrived != idea || arrivedStamps != stamps else { return }
            try db.run(
                sql: """
                    UPDATE idea SET createdAt = ?, updatedAt = ?, titleAt = ?, descriptionAt = ?, completedAt = ?
                    WHERE id = ? AND updatedAt = ? AND deviceId = ?
                    """,
                arguments: [
                    arrived.createdAt, arrived.updatedAt, arrivedStamps.title.timestamp, arrivedStamps.description.timestamp,
                    arrivedStamps.isCompleted.timestamp, idea.idString, idea.updatedAt, idea.deviceId,
                ])
        case let .delete(ideaId, order):
            let arrived = ArrivalRule.arrived(order, receivedAt: receivedAt)
            guard arrived != order else { return }
            try db.run(
                sql: "UPDATE tombstone SET deletedAt = ? WHERE ideaId = ? AND deletedAt = ? AND deviceId = ?",
                arguments: [arrived.timestamp, ideaId.lowercasedString, order.timestamp, order.deviceId])
        }
        try lowerClockToWhatIsHeld(atLeast: receivedAt, db)
    }

    /// Sets this device's clock (`highestTimestamp`) back to the latest time it still holds
    /// (an idea's, a delete's), or `floor` if later: after times from the future were brought
    /// back, so the next stamp follows what this device holds, not what it no longer does.
    func lowerClockToWhatIsHeld(atLeast floor: Timestamp, _ db: Database) throws {
        try db.run(
            sql: """
                UPDATE meta SET value = max(?, COALESCE((SELECT max(updatedAt) FROM idea), 0),
                    COALESCE((SELECT max(deletedAt) FROM tombstone), 0))
                WHERE key = ? AND value > ?
                """,
            arguments: [floor, MetaKey.highestTimestamp, floor])
    }

    /// Counts a failed attempt to send each of `changes`.
    public func recordFailedAttempt(_ changes: [PendingChange]) throws {
        guard !changes.isEmpty else { return }
        try connection.write { db in
            for change in changes {
                try db.run(
                    sql: "UPDATE outbox SET attempts = attempts + 1 WHERE ideaId = ? AND enqueuedAt = ?",
                    arguments: [change.ideaId.lowercasedString, change.enqueuedAt])
            }
        }
    }

    /// Forgets the remote's tags of `ids` (nil: of every idea), so their next saves go
    /// out as new records.
    public func forgetRemoteTags(_ ids: [UUID]? = nil) throws {
        try connection.write { db in
            guard let ids else {
                try db.run(sql: "DELETE FROM remoteTag")
                return
            }
            for id in ids {
                try db.run(sql: "DELETE FROM remoteTag WHERE ideaId = ?", arguments: [id.lowercasedString])
            }
        }
    }

    /// Remembers the remote's current tags of some ideas.
    public func rememberRemoteTags(_ tags: [UUID: String]) throws {
        try connection.write { db in try saveTags(tags, db) }
    }

    /// Appends a line to the sync log.
    public func logSyncEvent(_ event: SyncLogEvent, at time: Timestamp) throws {
        try appendSyncLog(SyncLogEntry(occurredAt: time, event: event))
    }

    /// Appends a line to the sync log whose words belong to another layer (the library),
    /// in both languages, as `kind`.
    public func logSyncEvent(_ kind: SyncLogEntry.Kind, english: String, chinese: String, at time: Timestamp) throws {
        var entry = SyncLogEntry(occurredAt: time, event: .words(english: english, chinese: chinese))
        entry.kind = kind
        try appendSyncLog(entry)
    }

    /// Queues every idea and every delete to be sent again: for a remote that lost them
    /// (its zone was deleted).
    public func requeueEverything() throws {
        let now = clock.now()
        try write { db in try queueEverything(at: now, db) }
    }

    /// Queues every idea and delete here that is not queued yet, or (`replacingQueued`) every
    /// one, a queued change taking the new time and starting its attempts again.
    func queueEverything(at now: Timestamp, replacingQueued: Bool = false, _ db: Database) throws {
        let onConflict = replacingQueued
            ? """
                DO UPDATE SET operation = excluded.operation, enqueuedAt = excluded.enqueuedAt, attempts = 0,
                    pendingSince = COALESCE(outbox.pendingSince, outbox.enqueuedAt)
                """
            : "DO NOTHING"
        try db.run(
            sql: """
                INSERT INTO outbox (ideaId, operation, enqueuedAt, attempts)
                SELECT id, 'save', ?, 0 FROM idea
                UNION ALL
                SELECT ideaId, 'delete', ?, 0 FROM tombstone
                -- Without a WHERE, SQLite reads ON CONFLICT as a join constraint.
                WHERE true
                ON CONFLICT (ideaId) \(onConflict)
                """,
            arguments: [now, now])
    }

    /// Queues the ideas and deletes among `ids` that this device holds to be sent again,
    /// unless already queued: for records the remote no longer has.
    public func requeue(_ ids: [UUID]) throws {
        guard !ids.isEmpty else { return }
        let now = clock.now()
        try write { db in
            for id in ids {
                try db.run(
                    sql: """
                        INSERT INTO outbox (ideaId, operation, enqueuedAt, attempts)
                        SELECT id, 'save', ?, 0 FROM idea WHERE id = ?
                        UNION ALL
                        SELECT ideaId, 'delete', ?, 0 FROM tombstone WHERE ideaId = ?
                        ON CONFLICT (ideaId) DO NOTHING
                        """,
                    arguments: [now, id.lowercasedString, now, id.lowercasedString])
            }
        }
    }

    /// Every idea and delete this device holds, with its place in the sync order, read as
    /// it goes: for comparing with the remote.
    public func forEachSyncState(_ body: (RemoteChange) throws -> Void) throws {
        try connection.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT \(Idea.selectedColumns), \(FieldStamps.columns) FROM idea")
            while let row = try rows.next() {
                let idea = try Idea(row: row)
                try body(.saved(idea, FieldStamps(row: row, at: 9, of: idea)))
            }
            let tombstones = try Row.fetchCursor(db, sql: "SELECT ideaId, deletedAt, deviceId FROM tombstone")
            while let row = try tombstones.next() {
                let idText: String = row["ideaId"]
                guard let id = UUID(hexText: idText) else { continue }
                try body(.deleted(ideaId: id, order: SyncOrder(timestamp: row["deletedAt"], deviceId: row["deviceId"])))
            }
        }
    }

    /// Moves this device's clock past every version among `changes` (read from the remote
    /// for any reason), so whatever it does next is ordered after what it saw.
    public func noteSeen(_ changes: [RemoteChange]) throws {
        guard let highest = changes.map(\.latestTime).max() else { return }
        try connection.write { db in try noteSeen(highest, db) }
    }

    /// Notes that a pull from the start of the account's history begins (a first sync, or
    /// one after the change token was lost): once it is done, `finishPullFromStart()`
    /// settles this device's samples. Kept in the database, so a pull cut off and picked up
    /// again by the next sync still settles them.
    public func beginPullFromStart() throws {
        try connection.write { db in
            try db.run(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, 1)", arguments: [MetaKey.pullFromStart])
        }
    }

    /// After a pull from the start: if the account holds ideas (this device knows remote
    /// tags), this device's untouched samples the account does not have are forgotten, as
    /// if never seeded; the account keeps its own samples, or none.
    public func finishPullFromStart() throws {
        try write { db in
            guard try db.cachedValue(Int64.self, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.pullFromStart]) != nil
            else { return }
            try db.run(sql: "DELETE FROM meta WHERE key = ?", arguments: [MetaKey.pullFromStart])
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM remoteTag)") == true else { return }
            for id in SampleIdeas.ids {
                let idText = id.lowercasedString
                guard try db.cachedValue(String.self, sql: "SELECT tag FROM remoteTag WHERE ideaId = ?", arguments: [idText]) == nil,
                      let stored = try fetchStoredRow(id: id, db), stored.stamps.isUntouchedSample
                else { continue }
                try deleteRow(stored, db)
                try db.run(sql: "DELETE FROM outbox WHERE ideaId = ?", arguments: [idText])
            }
        }
    }

    /// Records a finished sync: its time, and no error.
    public func recordSyncSuccess(at time: Timestamp) throws {
        try connection.write { db in
            try db.run(
                sql: "UPDATE syncMetadata SET lastSyncAt = ?, lastSyncError = NULL, isSyncEnabled = 1 WHERE id = 1",
                arguments: [time])
        }
    }

    /// Records why the last sync failed (in English, what `status` shows), and logs it in
    /// both languages.
    public func recordSyncFailure(english: String, chinese: String, at time: Timestamp) throws {
        try connection.write { db in
            try db.run(sql: "UPDATE syncMetadata SET lastSyncError = ? WHERE id = 1", arguments: [english])
            var entry = SyncLogEntry(occurredAt: time, event: .words(english: english, chinese: chinese))
            entry.kind = .error
            try appendLog(entry, db)
        }
    }

    /// Binds this device's ideas to `account` the first time it syncs.
    public func bindAccount(_ account: String) throws {
        try connection.write { db in
            try db.run(
                sql: "UPDATE syncMetadata SET accountName = ? WHERE id = 1 AND accountName IS NULL", arguments: [account])
        }
    }

    /// How many of this device's ideas a person made: all of them but the untouched samples.
    public func ownIdeaCount() throws -> Int {
        try connection.read { db in
            var count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM idea") ?? 0
            for id in SampleIdeas.ids {
                if let stored = try fetchStoredRow(id: id, db), stored.stamps.isUntouchedSample { count -= 1 }
            }
            return count
        }
    }

    /// Binds this device's ideas to `account` instead of the one they were synced with, to be
    /// merged with what `account` holds: the old account's place in its history and its tags
    /// are forgotten, and every idea and delete here is queued, so the next sync pulls
    /// `account`'s ideas from the start, merges them field by field (untouched samples never
    /// win, and are dropped where the account has ideas), and sends these. The old account
    /// keeps its copy. An overwrite left unfinished for the old account is taken back first.
    public func carryIdeas(to account: String) throws {
        _ = try abandonOverwrite()
        let now = clock.now()
        try write { db in
            try db.run(sql: "UPDATE syncMetadata SET accountName = ?, changeToken = NULL WHERE id = 1", arguments: [account])
            try db.run(sql: "DELETE FROM remoteTag")
            try db.run(sql: "DELETE FROM remoteRecordName")
            try queueEverything(at: now, db)
        }
    }

    func saveTags(_ tags: [UUID: String], _ db: Database) throws {
        for (id, tag) in tags {
            try db.run(
                sql: "INSERT INTO remoteTag (ideaId, tag) VALUES (?, ?) ON CONFLICT (ideaId) DO UPDATE SET tag = excluded.tag",
                arguments: [id.lowercasedString, tag])
        }
    }
}
