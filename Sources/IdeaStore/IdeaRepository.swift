import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// What to change in an idea; nil leaves a field as it is.
public struct IdeaChanges: Sendable, Equatable {
    /// The new title, if it changes.
    public var title: String?
    /// The new description, if it changes.
    public var description: String?
    /// The new done flag, if it changes.
    public var isCompleted: Bool?

    /// Changes to some fields of an idea.
    public init(title: String? = nil, description: String? = nil, isCompleted: Bool? = nil) {
        self.title = title
        self.description = description
        self.isCompleted = isCompleted
    }
}

/// Every read and write of ideas. Each edit is one transaction that also writes the
/// outbox entry the sync engine will send, so a crash right after an edit loses nothing.
///
/// Nobody above this type writes SQL.
public struct IdeaRepository: Sendable {
    /// The device this repository stamps edits with.
    public let deviceId: String
    let connection: StoreConnection
    let clock: WallClock
    private let ids: IdGenerator
    /// Where a bulk import builds its search entries (`SearchIndexBuild.start`): SQLite's own
    /// temporary database unless a test says otherwise.
    var searchBuildLocation = ""

    /// A repository over an opened IdeaBox database.
    public init(writer: any DatabaseWriter, deviceId: String, clock: WallClock, ids: IdGenerator) {
        self.init(connection: StoreConnection(base: writer, options: []), deviceId: deviceId, clock: clock, ids: ids)
    }

    /// A repository over an opened IdeaBox database, through `connection`.
    init(connection: StoreConnection, deviceId: String, clock: WallClock, ids: IdGenerator) {
        self.connection = connection
        self.deviceId = deviceId
        self.clock = clock
        self.ids = ids
    }

    // MARK: Edits

    /// Adds a new idea and returns it as stored.
    public func addIdea(title: String, description: String = "", isCompleted: Bool = false) throws -> Idea {
        let title = try IdeaRules.normalizedTitle(title)
        let description = try IdeaRules.normalizedDescription(description)
        return try write { db in
            let now = try stamp(db)
            let idea = Idea(
                id: ids.next(), title: title, description: description, isCompleted: isCompleted,
                createdAt: now, updatedAt: now, deviceId: deviceId, version: 0)
            try insertRow(idea, stamps: FieldStamps(all: SyncOrder(idea)), db)
            try enqueue(.save, ideaId: idea.idString, at: now, db)
            return idea
        }
    }

    /// Applies `changes` to an idea and returns it as stored. Changing nothing writes nothing.
    public func editIdea(id: UUID, _ changes: IdeaChanges) throws -> Idea {
        try editIdeaKeepingPrevious(id: id, changes).idea
    }

    /// Applies `changes` to an idea; returns it as it was just before, read in the same
    /// transaction (what an undo puts back), and as stored.
    public func editIdeaKeepingPrevious(id: UUID, _ changes: IdeaChanges) throws -> (previous: Idea, idea: Idea) {
        let title = try changes.title.map { title throws(IdeaValidationError) in try IdeaRules.normalizedTitle(title) }
        let description = try changes.description.map { text throws(IdeaValidationError) in
            try IdeaRules.normalizedDescription(text)
        }
        return try write { db in
            let stored = try storedRow(id: id, db)
            var idea = stored.idea
            idea.title = title ?? idea.title
            idea.description = description ?? idea.description
            idea.isCompleted = changes.isCompleted ?? idea.isCompleted
            return (stored.idea, try saveEdit(of: stored, to: idea, reason: .edited, db))
        }
    }

    /// Writes `idea` over `stored` as a new edit of this device: the fields whose values
    /// changed get a new stamp, the version it replaces goes to the history, and the change
    /// is queued. Changing nothing writes nothing.
    func saveEdit(of stored: StoredRow, to edited: Idea, reason: HistoryReason, _ db: Database) throws -> Idea {
        let changed = edited.fieldsDiffering(from: stored.idea)
        guard !changed.isEmpty else { return stored.idea }
        var idea = edited
        idea.updatedAt = try stamp(db, after: stored.idea.createdAt)
        idea.deviceId = deviceId
        idea.version = stored.idea.version + 1
        let stamps = stored.stamps.setting(changed, to: SyncOrder(idea))
        try recordHistory(of: stored.idea, stamps: stored.stamps, reason: reason, fields: changed, at: idea.updatedAt, db)
        try updateRow(stored, to: idea, stamps: stamps, db)
        try enqueue(.save, ideaId: idea.idString, at: idea.updatedAt, db)
        return idea
    }

    /// Marks an idea done or not done.
    public func setCompleted(_ isCompleted: Bool, id: UUID) throws -> Idea {
        try editIdea(id: id, IdeaChanges(isCompleted: isCompleted))
    }

    /// Flips an idea's done flag in one transaction and returns it as stored.
    public func toggleCompleted(id: UUID) throws -> Idea {
        try write { db in
            let stored = try storedRow(id: id, db)
            var idea = stored.idea
            idea.isCompleted.toggle()
            return try saveEdit(of: stored, to: idea, reason: .edited, db)
        }
    }

    /// Deletes an idea, leaving a tombstone so it can't come back by accident, and returns
    /// what was deleted (for undo).
    public func deleteIdea(id: UUID) throws -> Idea {
        try write { db in try delete(id: id, db) }
    }

    /// Deletes the idea `id` inside the caller's transaction: its history, its row, a
    /// tombstone and the change to send; returns what was deleted.
    private func delete(id: UUID, _ db: Database) throws -> Idea {
        let stored = try storedRow(id: id, db)
        let now = try stamp(db)
        try recordHistory(of: stored.idea, stamps: stored.stamps, reason: .deleted, fields: [], at: now, db)
        try deleteRow(stored, db)
        try upsertTombstone(stored.idea.id, SyncOrder(timestamp: now, deviceId: deviceId), db)
        try enqueue(.delete, ideaId: stored.idea.idString, at: now, db)
        return stored.idea
    }

    /// Marks every idea of `ids` done or not done in one transaction (a selection's `x`), and
    /// returns each one that changed, as it was before and as stored.
    public func setCompleted(_ isCompleted: Bool, ids: [UUID]) throws -> [(previous: Idea, idea: Idea)] {
        try write { db in
            var changed: [(previous: Idea, idea: Idea)] = []
            for id in ids {
                let stored = try storedRow(id: id, db)
                guard stored.idea.isCompleted != isCompleted else { continue }
                var idea = stored.idea
                idea.isCompleted = isCompleted
                changed.append((stored.idea, try saveEdit(of: stored, to: idea, reason: .edited, db)))
            }
            return changed
        }
    }

    /// Deletes every idea of `ids` in one transaction (a selection's `d`), each leaving a
    /// tombstone, and returns what was deleted (for undo).
    public func deleteIdeas(ids: [UUID]) throws -> [Idea] {
        try write { db in try ids.map { id in try delete(id: id, db) } }
    }

    /// Brings back a deleted idea (undo) as a new edit, so it wins over its own tombstone
    /// everywhere. Returns the idea as stored.
    public func restoreIdea(_ deleted: Idea) throws -> Idea {
        try write { db in try restoreIdea(deleted, db) }
    }

    /// `restoreIdea(_:)` inside the caller's transaction.
    func restoreIdea(_ deleted: Idea, _ db: Database) throws -> Idea {
        if let existing = try fetchIdea(id: deleted.id, db) {
            return existing
        }
        var idea = deleted
        idea.updatedAt = try stamp(db)
        // Made before this device knew its clock ran ahead, it may be later than this stamp.
        idea.createdAt = min(idea.createdAt, idea.updatedAt)
        idea.deviceId = deviceId
        idea.version += 1
        try insertRow(idea, stamps: FieldStamps(all: SyncOrder(idea)), db)
        try db.run(sql: "DELETE FROM tombstone WHERE ideaId = ?", arguments: [idea.idString])
        try enqueue(.save, ideaId: idea.idString, at: idea.updatedAt, db)
        return idea
    }

    // MARK: Rows

    /// An idea with where it lives in the table and the text the search index holds for it.
    struct StoredRow {
        var localId: Int64
        var idea: Idea
        var stamps: FieldStamps
        var foldedTitle: String
        var foldedDescription: String
    }

    enum OutboxOperation: String {
        case save, delete
    }

    /// Runs `body` in one write transaction and, if it changed anything, marks the database
    /// as changed, so every process watching it (`revision()`) notices. A request that
    /// changes nothing (an edit to the same text) leaves the revision alone. A full disk or
    /// a database that can't be written throws a `StorageError` (see `StoreConnection`), the
    /// transaction undone.
    func write<T>(_ body: @escaping (Database) throws -> T) throws -> T {
        try connection.write { db in
            let changesBefore = db.totalChangesCount
            let result = try body(db)
            if db.totalChangesCount != changesBefore {
                try bumpRevision(db)
            }
            return result
        }
    }

    /// Marks the database as changed for every process watching `revision()`.
    func bumpRevision(_ db: Database) throws {
        try db.run(sql: Self.bumpRevisionSQL, arguments: [MetaKey.revision])
    }

    /// `bumpRevision`'s statement; its one argument is `MetaKey.revision`.
    static let bumpRevisionSQL = "UPDATE meta SET value = value + 1 WHERE key = ?"

    /// A time for a new edit: now by the remote's clock (`RemoteClockEstimate`), but later
    /// than anything this device has seen (and than `floor`, an edited idea's `createdAt`), so
    /// an edit made after seeing a change wins even if this device's clock is behind: the
    /// device's hybrid clock.
    func stamp(_ db: Database, after floor: Timestamp? = nil) throws -> Timestamp {
        let highest = try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.highestTimestamp])
        let now = RemoteClockEstimate.remoteTime(on: clock, by: try remoteClockEstimate(db))
        let stamped = Self.stamp(now: now, highestSeen: highest, after: floor)
        try noteSeen(stamped, db)
        return stamped
    }

    /// The time `stamp` gives a new edit at `now`, when this device has made or seen edits up to
    /// `highestSeen` (milliseconds, if any), later than `floor` too.
    static func stamp(now: Timestamp, highestSeen: Int64?, after floor: Timestamp? = nil) -> Timestamp {
        var stamped = highestSeen.map { max(now, Timestamp(milliseconds: $0 + 1)) } ?? now
        if let floor { stamped = max(stamped, floor.adding(milliseconds: 1)) }
        return stamped
    }

    /// Reads one value of `meta`; its one argument is the key.
    static let metaValueSQL = "SELECT value FROM meta WHERE key = ?"

    func noteSeen(_ timestamp: Timestamp, _ db: Database) throws {
        try db.run(sql: Self.noteSeenSQL, arguments: [MetaKey.highestTimestamp, timestamp])
    }

    /// `noteSeen`'s statement: `MetaKey.highestTimestamp`, then the time in milliseconds.
    static let noteSeenSQL = """
        INSERT INTO meta (key, value) VALUES (?, ?)
        ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value)
        """

    private func storedRow(id: UUID, _ db: Database) throws -> StoredRow {
        guard let stored = try fetchStoredRow(id: id, db) else {
            throw IdeaStoreError.unknownId(id.lowercasedString)
        }
        return stored
    }

    func fetchStoredRow(id: UUID, _ db: Database) throws -> StoredRow? {
        guard let row = try db.cachedRow(
            sql: """
                SELECT \(Idea.selectedColumns), localId, foldedTitle, foldedDescription, \(FieldStamps.columns)
                FROM idea WHERE id = ?
                """,
            arguments: [id.lowercasedString])
        else { return nil }
        let idea = try Idea(row: row)
        return StoredRow(
            localId: row["localId"], idea: idea, stamps: FieldStamps(row: row, at: 12, of: idea),
            foldedTitle: row["foldedTitle"], foldedDescription: row["foldedDescription"])
    }

    /// Inserts a new idea and indexes it, with its search text if already worked out. An
    /// idea coming back with the text its left search entries hold (an undo of a delete)
    /// takes its old row id and those entries back (`SearchText.takeBack`).
    func insertRow(_ idea: Idea, stamps: FieldStamps, indexed: SearchText.Indexed? = nil, _ db: Database) throws {
        let text = indexed ?? SearchText.Indexed(title: idea.title, description: idea.description)
        let values = Self.rowValues(idea, foldedTitle: text.foldedTitle, foldedDescription: text.foldedDescription, stamps: stamps)
        if let localId = try SearchText.takeBack(db, ideaId: idea.idString, text) {
            try db.cachedStatement(sql: Self.insertIdeaAtSQL).execute(arguments: StatementArguments(values + [localId]))
            return
        }
        try db.cachedStatement(sql: Self.insertIdeaSQL).execute(arguments: StatementArguments(values))
        let localId = db.lastInsertedRowID
        try SearchText.clearClash(db, localId: localId)
        try SearchText.index(db, localId: localId, text)
    }

    /// Adds an idea's row at `localId`, without search entries: a bulk import's, whose
    /// entries `SearchIndexBuild` writes.
    func insertRowUnindexed(_ idea: Idea, stamps: FieldStamps, at localId: Int64, _ db: Database) throws {
        let values = Self.rowValues(
            idea, foldedTitle: SearchText.fold(idea.title), foldedDescription: SearchText.fold(idea.description), stamps: stamps)
        try db.cachedStatement(sql: Self.insertIdeaAtSQL).execute(arguments: StatementArguments(values + [localId]))
    }

    /// The values of `insertIdeaSQL`.
    private static func rowValues(
        _ idea: Idea, foldedTitle: String, foldedDescription: String, stamps: FieldStamps
    ) -> [(any DatabaseValueConvertible)?] {
        [
            idea.idString, idea.title, idea.description, idea.isCompleted, idea.createdAt, idea.updatedAt,
            idea.deviceId, idea.version, idea.lastSyncedAt, foldedTitle, foldedDescription,
        ] + stamps.databaseValues
    }

    /// `insertRow`'s statement: the columns of `Idea.selectedColumns`, the folded title and
    /// description, then those of `FieldStamps.columns`.
    static let insertIdeaSQL = """
        INSERT INTO idea (\(Idea.selectedColumns), foldedTitle, foldedDescription, \(FieldStamps.columns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// `insertIdeaSQL` with the row id last.
    static let insertIdeaAtSQL = """
        INSERT INTO idea (\(Idea.selectedColumns), foldedTitle, foldedDescription, \(FieldStamps.columns), localId)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Replaces a stored idea, indexing its text anew if it changed (with the search text
    /// if already worked out).
    func updateRow(
        _ stored: StoredRow, to idea: Idea, stamps: FieldStamps, indexed: SearchText.Indexed? = nil, _ db: Database
    ) throws {
        var foldedTitle = stored.foldedTitle
        var foldedDescription = stored.foldedDescription
        if idea.title != stored.idea.title || idea.description != stored.idea.description {
            let text = indexed ?? SearchText.Indexed(title: idea.title, description: idea.description)
            foldedTitle = text.foldedTitle
            foldedDescription = text.foldedDescription
            try SearchText.unindex(
                db, localId: stored.localId, foldedTitle: stored.foldedTitle, foldedDescription: stored.foldedDescription)
            try SearchText.index(db, localId: stored.localId, text)
        }
        try db.cachedStatement(sql: """
            UPDATE idea SET title = ?, description = ?, isCompleted = ?, createdAt = ?, updatedAt = ?,
                deviceId = ?, version = ?, lastSyncedAt = ?, foldedTitle = ?, foldedDescription = ?,
                titleAt = ?, titleBy = ?, descriptionAt = ?, descriptionBy = ?, completedAt = ?, completedBy = ?
            WHERE localId = ?
            """)
            .execute(arguments: StatementArguments([
                idea.title, idea.description, idea.isCompleted, idea.createdAt, idea.updatedAt,
                idea.deviceId, idea.version, idea.lastSyncedAt, foldedTitle, foldedDescription,
            ] + stamps.databaseValues + [stored.localId]))
    }

    /// Deletes an idea's row, leaving its search entries for later (`SearchText.leaveForLater`).
    func deleteRow(_ stored: StoredRow, _ db: Database) throws {
        try SearchText.leaveForLater(
            db, localId: stored.localId, ideaId: stored.idea.idString,
            foldedTitle: stored.foldedTitle, foldedDescription: stored.foldedDescription)
        try db.run(sql: "DELETE FROM idea WHERE localId = ?", arguments: [stored.localId])
    }

    /// Records that an idea was deleted at `order`, replacing an older record of it.
    func upsertTombstone(_ id: UUID, _ order: SyncOrder, _ db: Database) throws {
        try db.run(
            sql: """
                INSERT INTO tombstone (ideaId, deletedAt, deviceId) VALUES (?, ?, ?)
                ON CONFLICT (ideaId) DO UPDATE SET deletedAt = excluded.deletedAt, deviceId = excluded.deviceId
                """,
            arguments: [id.lowercasedString, order.timestamp, order.deviceId])
    }

    /// Records that an idea must be sent. One entry per idea: a later save or delete
    /// replaces an earlier one, so save-then-delete sends the delete.
    func enqueue(_ operation: OutboxOperation, ideaId: String, at time: Timestamp, _ db: Database) throws {
        try db.cachedStatement(sql: Self.enqueueSQL).execute(arguments: [ideaId, operation.rawValue, time])
    }

    /// `enqueue`'s statement: the idea's id, the operation, the time in milliseconds.
    static let enqueueSQL = """
        INSERT INTO outbox (ideaId, operation, enqueuedAt, attempts) VALUES (?, ?, ?, 0)
        \(requeueSQL)
        """

    /// What queuing an idea already queued does: the new operation and time, attempts from
    /// nothing, and the entry's first wait kept (`pendingSince`).
    static let requeueSQL = """
        ON CONFLICT (ideaId) DO UPDATE SET
            operation = excluded.operation, enqueuedAt = excluded.enqueuedAt, attempts = 0,
            pendingSince = COALESCE(outbox.pendingSince, outbox.enqueuedAt)
        """
}
