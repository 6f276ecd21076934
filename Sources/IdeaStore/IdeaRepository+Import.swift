import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// An idea as an export file holds it: the idea, and the stamps of its fields when the file
/// carries them (an export written before stamps, or a hand-made file, has none).
public struct ExportedIdea: Sendable, Equatable {
    /// The idea.
    public var idea: Idea
    /// When and by whom each field was last written, as the exporting device held it.
    public var stamps: FieldStamps?

    /// An idea of an export file, with its field stamps if the file has them.
    public init(idea: Idea, stamps: FieldStamps? = nil) {
        self.idea = idea
        self.stamps = stamps
    }
}

/// What an import does with a value the file holds that differs from this device's where no
/// stamp can say which is newer: a file edited by hand.
public enum HandEditPolicy: Sendable, Equatable {
    /// The value is written as a new edit of this device, so it wins and syncs out.
    case apply
    /// The value is only reported; this device's stays.
    case skip
}

/// What an import did (or, dry, would do).
public struct ImportSummary: Sendable, Equatable {
    /// Ideas that were not here before.
    public var inserted = 0
    /// Ideas that were here and took fields the import had written later (all of them, or
    /// some: each field goes to whichever side wrote it later, as in a sync), or values
    /// edited by hand in the file.
    public var updated = 0
    /// Ideas left as they were: this device had the same or a newer version, or a newer delete.
    public var unchanged = 0
    /// Each idea the import changes, in file order: what it does to it.
    public var changes: [ImportChange] = []

    /// A summary with no idea imported yet.
    public init() {}

    /// What an import of `ideas` does to a profile that has no ideas and no deletes: adds them all.
    public init(addingAll ideas: [ExportedIdea]) {
        inserted = ideas.count
        changes = ideas.map { ImportChange(id: $0.idea.id, title: $0.idea.title, kind: .inserted) }
    }

    /// The ideas with values edited by hand in the file, and those values' fields.
    public var handEdits: [ImportChange] {
        changes.filter(\.isHandEdit)
    }
}

/// One thing an import does to one idea.
public struct ImportChange: Sendable, Equatable {
    /// What it does.
    public enum Kind: Sendable, Equatable {
        /// Adds the idea, which was not here.
        case inserted
        /// Takes these fields from the file, whose stamps are later than this device's.
        case updated([IdeaField])
        /// Finds these fields edited by hand in the file: applied as a new edit, or skipped.
        case handEdited([IdeaField])
    }

    /// The idea.
    public var id: UUID
    /// Its title in the file.
    public var title: String
    /// What the import does to it.
    public var kind: Kind

    /// One thing an import does to the idea `id`.
    public init(id: UUID, title: String, kind: Kind) {
        self.id = id
        self.title = title
        self.kind = kind
    }

    /// The fields it takes or found edited by hand; none for a new idea.
    public var fields: [IdeaField] {
        switch kind {
        case .inserted: []
        case .updated(let fields), .handEdited(let fields): fields
        }
    }

    /// Whether it is values edited by hand in the file.
    public var isHandEdit: Bool {
        if case .handEdited = kind { true } else { false }
    }
}

extension IdeaRepository {
    /// Imports ideas exactly as given (every field kept, each read as written at its
    /// `updatedAt`), all or nothing: what a benchmark or a test loads.
    ///
    /// Every idea is checked first; one invalid idea or a repeated id imports nothing.
    /// An idea already here is replaced only if the imported one is newer in the sync order
    /// (`updatedAt`, then `deviceId`), and a newer local delete keeps it deleted.
    public func importIdeas(_ ideas: [Idea]) throws -> ImportSummary {
        try importIdeas(ideas.map { ExportedIdea(idea: $0) }, handEdits: nil, dryRun: false)
    }

    /// Imports an export file's ideas, all or nothing, merged field by field by their stamps
    /// as a sync merges (`ConflictRule`), so an import never beats a newer edit.
    ///
    /// A value that differs from this device's where no stamp says which is newer was edited
    /// by hand: the file gives the field the very stamp this device holds for it, or the file
    /// has no stamps and the idea's `updatedAt` is not older than this device's stamp of the
    /// field. `handEdits` says what becomes of those; each is in the summary. With `dryRun`
    /// nothing is written: the summary says what the import would do.
    public func importExport(
        _ ideas: [ExportedIdea], handEdits: HandEditPolicy = .apply, dryRun: Bool = false
    ) throws -> ImportSummary {
        try importIdeas(ideas, handEdits: handEdits, dryRun: dryRun)
    }

    /// Checks every idea, then merges them in one transaction (in one read, `dryRun`);
    /// `handEdits` nil looks for none.
    private func importIdeas(_ ideas: [ExportedIdea], handEdits: HandEditPolicy?, dryRun: Bool) throws -> ImportSummary {
        var seen = Set<UUID>()
        var checked: [ExportedIdea] = []
        checked.reserveCapacity(ideas.count)
        for (index, entry) in ideas.enumerated() {
            do {
                checked.append(ExportedIdea(idea: try entry.idea.validated(), stamps: entry.stamps))
            } catch {
                throw IdeaStoreError.invalidImportedIdea(position: index + 1, id: entry.idea.idString, reason: error)
            }
            guard seen.insert(entry.idea.id).inserted else {
                throw IdeaStoreError.duplicateImportId(entry.idea.idString)
            }
        }
        if dryRun {
            return try connection.read { db in try merge(checked, handEdits: handEdits, dryRun: true, rowsFrom: nil, db) }
        }
        return try write { db in
            // A command's connection keeps a small cache; this transaction may be big. The
            // cache is the connection's own again after it.
            let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? IdeaDatabase.bigTransactionCacheSize
            try db.execute(sql: "PRAGMA cache_size = \(Self.importCacheSize(ideas: checked.count))")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
            // A bulk load into a profile with no idea: the search entries are built beside the
            // rows (`SearchIndexBuild`), every idea at the row id after the last.
            var build: SearchIndexBuild?
            var firstLocalId: Int64?
            if checked.count >= Self.bulkImportSize, try Self.holdsNothing(db) {
                let first = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(localId), 0) + 1 FROM idea")!
                let location = searchBuildLocation
                build = try SearchIndexBuild.start(checked, firstLocalId: first, declaredBy: db) { _ in location }
                firstLocalId = build == nil ? nil : first
            }
            defer { build?.cancel() }
            // The ideas' own indexes stay through a bulk load. Dropped and made again after
            // it, by sorting, they took 7 s less CPU at a million, but the first delete of
            // 10,000 after took 3.8–5.9 s, not 1.9 (BENCHMARKS.md, "The `million` run").
            let summary = try merge(checked, handEdits: handEdits, dryRun: false, rowsFrom: firstLocalId, db)
            // The index segments written for the import are merged as part of it
            // (IdeaSchema.Migration.searchMergesApart). A bulk load leaves each index one
            // segment: left beside the small ones later edits write, its big segments would
            // be merged again with sixteen of those, in one edit.
            if let build {
                try build.finish(into: db)
            } else if checked.count >= Self.bulkImportSize {
                try SearchText.optimize(db)
            } else {
                try SearchText.merge(db, pages: max(IdeaDatabase.upkeepMergePages, checked.count))
            }
            return summary
        }
    }

    /// Queues a save of every idea from row id `firstLocalId` on, at `time`: a bulk load's,
    /// whose rows `merge` wrote without their outbox entries. In the order of the ideas' ids,
    /// which is the outbox's: each entry goes in after the last, where one at a time in the
    /// file's order each landed on a page of the outbox's three B-trees anywhere (a quarter of
    /// the rows' thread in an import of 200,000; BENCHMARKS.md, "The `million` run").
    private func enqueueSaves(from firstLocalId: Int64, at time: Timestamp, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO outbox (ideaId, operation, enqueuedAt, attempts)
            SELECT id, ?, ?, 0 FROM idea WHERE localId >= ? ORDER BY id
            \(Self.requeueSQL)
            """, arguments: [OutboxOperation.save.rawValue, time, firstLocalId])
    }

    /// Whether the profile holds no idea and no delete: an import meets nothing here.
    private static func holdsNothing(_ db: Database) throws -> Bool {
        try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM idea) OR EXISTS (SELECT 1 FROM tombstone)")!
    }

    /// From this many ideas on, an import is a bulk load that leaves each search index one
    /// segment.
    static let bulkImportSize = 1000

    /// The page cache (a `cache_size` value) of an import of `count` ideas: a kibibyte an
    /// idea, at least a sync page's (`bigTransactionCacheSize`) and at most a gibibyte.
    /// A million ideas write 2 GB of pages in one transaction, and an id, a title and an
    /// outbox entry each land on a page of an index anywhere: with 32 MiB those pages went to
    /// the write-ahead log and were read back from it all through the import (277 s at a
    /// million, 201 s with a gibibyte; BENCHMARKS.md, "The `million` run"). SQLite takes the
    /// pages as it needs them, so a small import uses little of it.
    static func importCacheSize(ideas count: Int) -> Int {
        -min(max(count, -IdeaDatabase.bigTransactionCacheSize), 1 << 20)
    }

    /// Seeds checked ideas inside a write transaction, each read as written at its `updatedAt`.
    func merge(_ ideas: [Idea], _ db: Database) throws -> ImportSummary {
        try merge(ideas.map { ExportedIdea(idea: $0) }, handEdits: nil, dryRun: false, rowsFrom: nil, db)
    }

    /// Imports or seeds checked ideas inside a transaction. Each meets what this device
    /// holds of it as a remote change would: `ConflictRule` decides, field by field, and a
    /// delete competes whole. An import has no pending change of its own and logs no conflict:
    /// its summary is its report. Values edited by hand in the file (looked for unless
    /// `handEdits` is nil) stay out of the merge and are then written as a new edit, or
    /// skipped. With `dryRun` it writes nothing. With `firstLocalId` (a profile that holds
    /// nothing) the idea at offset `k` is added at row id `firstLocalId + k`, without search
    /// entries (`SearchIndexBuild` writes them), and all are queued after the last.
    private func merge(
        _ ideas: [ExportedIdea], handEdits: HandEditPolicy?, dryRun: Bool, rowsFrom firstLocalId: Int64?, _ db: Database
    ) throws -> ImportSummary {
        var summary = ImportSummary()
        var highest: Timestamp?
        // Now, or the latest time this device made or saw, if its clock has since gone back.
        let highestSeen = try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.highestTimestamp])
        let clockNow = RemoteClockEstimate.remoteTime(on: clock, by: try remoteClockEstimate(db))
        let now = highestSeen.map { max(clockNow, Timestamp(milliseconds: $0)) } ?? clockNow
        // Into a profile with no idea and no delete (a restore onto a new device), no idea of
        // the file can meet one here (its ids were checked distinct): nothing to look up.
        let meetsNothing = try Self.holdsNothing(db)
        for (offset, entry) in ideas.enumerated() {
            // Stamps that can't be this idea's (a file whose `updatedAt` or `deviceId` was
            // changed by hand) tell nothing: the idea reads as a file without stamps.
            var fileStamps = entry.stamps.flatMap { $0.checked(for: entry.idea) == $0 ? $0 : nil }
            // A file written under a clock that ran ahead arrives now, as a version from the
            // future arrives at the remote (`ArrivalRule`): its times taken as they are would
            // move this device's clock, and every device's after it, into the future.
            var (idea, arrived) = ArrivalRule.arrived(entry.idea, fileStamps ?? FieldStamps(legacy: entry.idea), receivedAt: now)
            if fileStamps != nil { fileStamps = arrived }
            highest = max(highest ?? idea.updatedAt, idea.updatedAt)
            let stored = meetsNothing ? nil : try fetchStoredRow(id: idea.id, db)
            // Without stamps each field reads as written at the idea's `updatedAt`, except one
            // it holds as this device does, which was not written by it and keeps this device's stamp.
            var stamps = fileStamps ?? FieldStamps(legacy: idea)
            var handEdited: [IdeaField] = []
            if let stored {
                for field in IdeaField.allCases {
                    let mine = stored.stamps[field]
                    if idea.value(of: field) == stored.idea.value(of: field) {
                        stamps[field] = mine
                        continue
                    }
                    guard handEdits != nil else { continue }
                    // The same stamp for another value, or no stamp that is older than this
                    // device's: nothing says this device's value is the newer one.
                    let isHandEdit = fileStamps == nil ? stamps[field] >= mine : stamps[field] == mine
                    guard isHandEdit else { continue }
                    handEdited.append(field)
                    // Out of the merge: the field as this device holds it.
                    idea = idea.taking(field, from: stored.idea)
                    stamps[field] = mine
                }
                if !handEdited.isEmpty {
                    // The idea's own place follows its stamps, some of them this device's now.
                    idea.updatedAt = max(stamps.latest.timestamp, idea.createdAt)
                    idea.deviceId = stamps.latest.deviceId
                }
            }
            // A tombstone matters only where the idea is not here (an idea and its tombstone
            // never stand together): one read per idea, as before.
            let local: MergeCase.Side?
            if let stored {
                local = .idea(stored.idea, stored.stamps)
            } else if meetsNothing {
                local = nil
            } else {
                local = try db.cachedRow(sql: "SELECT deletedAt, deviceId FROM tombstone WHERE ideaId = ?", arguments: [idea.idString])
                    .map { .deleted(SyncOrder(timestamp: $0["deletedAt"], deviceId: $0["deviceId"])) }
            }
            let decision = ConflictRule.decide(
                MergeCase(local: local, remote: .idea(idea, stamps), hasPendingChange: false, thisDevice: deviceId))
            var merged: (idea: Idea, stamps: FieldStamps)?
            switch decision.action {
            case .alreadyHave, .keepLocal:
                break
            case .takeRemote:
                merged = (idea, stamps)
            case let .merged(mergedIdea, mergedStamps):
                merged = (mergedIdea, mergedStamps)
            }
            if let merged {
                let kind: ImportChange.Kind
                if let stored {
                    kind = .updated(merged.idea.fieldsDiffering(from: stored.idea))
                    summary.updated += 1
                } else {
                    kind = .inserted
                    summary.inserted += 1
                }
                summary.changes.append(ImportChange(id: idea.id, title: entry.idea.title, kind: kind))
                if !dryRun {
                    try apply(
                        merged.idea, stamps: merged.stamps, over: stored, mayHaveTombstone: !meetsNothing, queuedAt: now,
                        at: firstLocalId.map { $0 + Int64(offset) }, db)
                }
            }
            if let stored, !handEdited.isEmpty {
                summary.changes.append(ImportChange(id: idea.id, title: entry.idea.title, kind: .handEdited(handEdited)))
                if handEdits == .apply {
                    if merged == nil { summary.updated += 1 }
                    if !dryRun { try applyHandEdits(handEdited, from: entry.idea, over: stored, db) }
                }
            }
            if merged == nil, handEdited.isEmpty || handEdits == .skip {
                summary.unchanged += 1
            }
        }
        if let firstLocalId, !dryRun {
            try enqueueSaves(from: firstLocalId, at: now, db)
        }
        if let highest, !dryRun {
            try noteSeen(highest, db)
        }
        return summary
    }

    /// Writes an imported or merged version of an idea over `stored` (or adds it, over its
    /// tombstone if it `mayHaveTombstone`), the version it replaces kept in the history, and
    /// queues it at `queuedAt`, the import's time: a change made now, whatever the idea's own
    /// times (a backup of old ideas is not a month of changes the remote never confirmed).
    /// A new idea with a `localId` is added there without search entries and not queued:
    /// `merge` queues the whole bulk load after it.
    private func apply(
        _ idea: Idea, stamps: FieldStamps, over stored: StoredRow?, mayHaveTombstone: Bool, queuedAt: Timestamp,
        at localId: Int64?, _ db: Database
    ) throws {
        if let stored {
            try recordHistory(
                of: stored.idea, stamps: stored.stamps, reason: .received,
                fields: idea.fieldsDiffering(from: stored.idea), at: clock.now(), db)
            try updateRow(stored, to: idea, stamps: stamps, db)
        } else if let localId {
            // Queued with the rest of the bulk load, after it (`enqueueSaves`).
            try insertRowUnindexed(idea, stamps: stamps, at: localId, db)
            return
        } else {
            try insertRow(idea, stamps: stamps, db)
            if mayHaveTombstone { try db.run(sql: "DELETE FROM tombstone WHERE ideaId = ?", arguments: [idea.idString]) }
        }
        try enqueue(.save, ideaId: idea.idString, at: queuedAt, db)
    }

    /// Writes the values of `fields` that `file` holds as a new edit of this device over the
    /// idea as it now stands here, so they win and sync out.
    private func applyHandEdits(_ fields: [IdeaField], from file: Idea, over stored: StoredRow, _ db: Database) throws {
        let current = try fetchStoredRow(id: stored.idea.id, db) ?? stored
        var edited = current.idea
        for field in fields { edited = edited.taking(field, from: file) }
        _ = try saveEdit(of: current, to: edited, reason: .edited, db)
    }
}
