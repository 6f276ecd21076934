import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// One settled conflict, with both sides as they were. Nil stands for a deleted side.
public struct ConflictRecord: Sendable, Equatable, Codable {
    /// The idea both sides changed.
    public var ideaId: UUID
    /// When the conflict was settled.
    public var occurredAt: Timestamp
    /// This device's version, or nil if it had deleted the idea.
    public var local: Idea?
    /// The remote's version, or nil if it had deleted the idea.
    public var remote: Idea?
    /// Which side won, and why (by the sides' latest stamps).
    public var resolution: ConflictResolution
    /// The fields whose values differed, and which side each went to (empty for a delete
    /// against an edit, which is settled whole).
    public var fields: [IdeaField: ConflictResolution]
    /// The device whose value each field kept, as the sync log says it (not stored with the
    /// conflict: its snapshots name their writers).
    public var keptFrom: [IdeaField: String] = [:]
    /// For a conflict settled whole, the version it kept.
    public var keptVersion: SyncLogEvent.KeptVersion? = nil

    /// A conflict record.
    public init(
        ideaId: UUID, occurredAt: Timestamp, local: Idea?, remote: Idea?, resolution: ConflictResolution,
        fields: [IdeaField: ConflictResolution] = [:], keptFrom: [IdeaField: String] = [:],
        keptVersion: SyncLogEvent.KeptVersion? = nil
    ) {
        self.ideaId = ideaId
        self.occurredAt = occurredAt
        self.local = local
        self.remote = remote
        self.resolution = resolution
        self.fields = fields
        self.keptFrom = keptFrom
        self.keptVersion = keptVersion
    }

    enum CodingKeys: String, CodingKey { case ideaId, occurredAt, local, remote, resolution, fields }

    /// The idea's title on whichever side has one (the local side first).
    public var title: String { local?.title ?? remote?.title ?? "" }

    /// The differing fields, in the order of `IdeaField.allCases`.
    public var orderedFields: [IdeaField] { IdeaField.allCases.filter { fields[$0] != nil } }
}

/// One line of the sync log.
public struct SyncLogEntry: Sendable, Equatable, Codable {
    /// What kind of event this was.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case upload, download, conflict, error, warning, info
    }

    /// When it happened.
    public var occurredAt: Timestamp
    /// What kind of event it was.
    public var kind: Kind
    /// What happened, in a line of English (what `log --json` prints).
    public var message: String
    /// What happened, with its values, for each language's words; nil on lines written
    /// before events were kept (shown by their English, or the patterns that translate it).
    public var event: SyncLogEvent?

    /// A sync log entry with only its words.
    public init(occurredAt: Timestamp, kind: Kind, message: String) {
        self.occurredAt = occurredAt
        self.kind = kind
        self.message = message
    }

    /// The entry of `event`, its kind and English words taken from it.
    public init(occurredAt: Timestamp, event: SyncLogEvent) {
        self.init(occurredAt: occurredAt, kind: event.kind, message: event.text(in: .english))
        self.event = event
    }

    /// The line in `language`, if it was kept as an event.
    public func text(in language: Language) -> String? {
        event?.text(in: language)
    }

    enum CodingKeys: String, CodingKey { case occurredAt, kind, message }
}

/// This device's sync bookkeeping.
public struct SyncMetadata: Sendable, Equatable {
    /// Whether sync is on for this device.
    public var isSyncEnabled: Bool
    /// When the last sync completed.
    public var lastSyncAt: Timestamp?
    /// Why the last sync failed, if it did.
    public var lastSyncError: String?
    /// The remote's change token after the last pull.
    public var changeToken: Data?
    /// The account this device's ideas belong to, once it first synced.
    public var accountName: String?

    /// Sync bookkeeping.
    public init(
        isSyncEnabled: Bool = false, lastSyncAt: Timestamp? = nil, lastSyncError: String? = nil,
        changeToken: Data? = nil, accountName: String? = nil
    ) {
        self.isSyncEnabled = isSyncEnabled
        self.lastSyncAt = lastSyncAt
        self.lastSyncError = lastSyncError
        self.changeToken = changeToken
        self.accountName = accountName
    }
}

extension IdeaRepository {
    /// How many conflicts the conflict log keeps.
    public static let conflictLogLimit = 100
    /// How many lines the sync log keeps.
    public static let syncLogLimit = 1000

    /// Records a settled conflict and its sync log line, keeping only the newest 100 conflicts.
    public func logConflict(_ conflict: ConflictRecord) throws {
        try connection.write { db in try insertConflict(conflict, db) }
    }

    func insertConflict(_ conflict: ConflictRecord, _ db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let local = String(decoding: try encoder.encode(conflict.local), as: UTF8.self)
        let remote = String(decoding: try encoder.encode(conflict.remote), as: UTF8.self)
        let fields = conflict.orderedFields.map { "\($0.rawValue)=\(conflict.fields[$0]!.rawValue)" }.joined(separator: ",")
        try db.execute(
            sql: """
                INSERT INTO conflictLog (ideaId, occurredAt, localSnapshot, remoteSnapshot, resolution, fields, title)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                conflict.ideaId.lowercasedString, conflict.occurredAt, local, remote, conflict.resolution.rawValue,
                fields, conflict.title,
            ])
        try db.execute(
            sql: "DELETE FROM conflictLog WHERE id <= (SELECT max(id) FROM conflictLog) - ?",
            arguments: [Self.conflictLogLimit])
        let names = try deviceNames(db)
        let event = Self.conflictEvent(conflict)
        var entry = SyncLogEntry(occurredAt: conflict.occurredAt, event: event)
        entry.message = event.text(in: .english, names: names)
        try appendLog(entry, db)
    }

    /// The logged conflicts, newest first.
    public func conflicts(limit: Int = IdeaRepository.conflictLogLimit) throws -> [ConflictRecord] {
        let decoder = JSONDecoder()
        return try connection.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM conflictLog ORDER BY id DESC LIMIT ?", arguments: [limit]).map { row in
                let ideaId: String = row["ideaId"]
                let local: String = row["localSnapshot"]
                let remote: String = row["remoteSnapshot"]
                let resolution: String = row["resolution"]
                let fieldsText: String = row["fields"]
                var fields: [IdeaField: ConflictResolution] = [:]
                for item in fieldsText.split(separator: ",") {
                    let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2, let field = IdeaField(rawValue: parts[0]),
                       let settled = ConflictResolution(rawValue: parts[1]) {
                        fields[field] = settled
                    }
                }
                guard let id = UUID(hexText: ideaId), let resolution = ConflictResolution(rawValue: resolution) else {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "unreadable conflict log entry for \(ideaId)")
                }
                return ConflictRecord(
                    ideaId: id,
                    occurredAt: row["occurredAt"],
                    local: try decoder.decode(Idea?.self, from: Data(local.utf8)),
                    remote: try decoder.decode(Idea?.self, from: Data(remote.utf8)),
                    resolution: resolution, fields: fields)
            }
        }
    }

    /// The sync log's line for a conflict: the idea's title and the start of its id, the
    /// fields both sides wrote, whose value each kept and why, e.g. `“Plan” (1dea0001): kept
    /// laptop's title (the later edit)`.
    static func conflictEvent(_ conflict: ConflictRecord) -> SyncLogEvent {
        .conflict(
            title: conflict.title, id: String(conflict.ideaId.lowercasedString.prefix(8)),
            fields: conflict.orderedFields.map { field in
                SyncLogEvent.FieldOutcome(field, conflict.fields[field]!, keptFrom: conflict.keptFrom[field])
            },
            resolution: conflict.resolution,
            kept: conflict.keptVersion)
    }

    /// Adds a line to the sync log, keeping only the newest 1000.
    public func appendSyncLog(_ entry: SyncLogEntry) throws {
        try connection.write { db in try appendLog(entry, db) }
    }

    /// The sync log, newest first.
    public func syncLog(limit: Int = 100) throws -> [SyncLogEntry] {
        let decoder = JSONDecoder()
        return try connection.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM syncLog ORDER BY id DESC LIMIT ?", arguments: [limit]).map { row in
                let kind: String = row["kind"]
                var entry = SyncLogEntry(occurredAt: row["occurredAt"], kind: SyncLogEntry.Kind(rawValue: kind) ?? .info, message: row["message"])
                let event: String? = row["event"]
                entry.event = event.flatMap { try? decoder.decode(SyncLogEvent.self, from: Data($0.utf8)) }
                return entry
            }
        }
    }

    /// This device's sync bookkeeping.
    public func syncMetadata() throws -> SyncMetadata {
        try connection.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT * FROM syncMetadata WHERE id = 1")
            return SyncMetadata(
                isSyncEnabled: row?["isSyncEnabled"] ?? false,
                lastSyncAt: row?["lastSyncAt"],
                lastSyncError: row?["lastSyncError"],
                changeToken: row?["changeToken"],
                accountName: row?["accountName"])
        }
    }

    /// Replaces this device's sync bookkeeping.
    public func saveSyncMetadata(_ metadata: SyncMetadata) throws {
        try connection.write { db in
            try db.execute(
                sql: """
                    UPDATE syncMetadata SET isSyncEnabled = ?, lastSyncAt = ?, lastSyncError = ?, changeToken = ?,
                        accountName = ?
                    WHERE id = 1
                    """,
                arguments: [
                    metadata.isSyncEnabled, metadata.lastSyncAt, metadata.lastSyncError, metadata.changeToken,
                    metadata.accountName,
                ])
        }
    }

    func appendLog(_ entry: SyncLogEntry, _ db: Database) throws {
        let event = try entry.event.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try db.execute(
            sql: "INSERT INTO syncLog (occurredAt, kind, message, event) VALUES (?, ?, ?, ?)",
            arguments: [entry.occurredAt, entry.kind.rawValue, entry.message, event])
        try db.execute(
            sql: "DELETE FROM syncLog WHERE id <= (SELECT max(id) FROM syncLog) - ?",
            arguments: [Self.syncLogLimit])
    }
}
