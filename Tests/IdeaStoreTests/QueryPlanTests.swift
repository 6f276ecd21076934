import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// Every statement the repository runs for everyday work is answered through an index on a
/// database that SQLite's planner believes holds a million ideas (issue 65): a change of
/// schema or SQL that turns a page, a search or an edit into a walk of the whole table fails
/// here, without a benchmark.
///
/// No million rows are written: a few ideas are added, `ANALYZE` runs, and `sqlite_stat1` is
/// then overwritten with what `ANALYZE` would write for a profile of a million ideas and
/// reloaded (`ANALYZE sqlite_schema`). The statements are the ones the repository really
/// runs, caught with GRDB's trace while its public API does each everyday operation; each is
/// then explained (`EXPLAIN QUERY PLAN`) with its values written in.
@Suite struct QueryPlanTests {
    /// The tables that grow with the ideas: no statement may read one of them whole
    /// (`SCAN idea`), only through an index.
    static let bigTables: Set<String> = ["idea", "ideaHistory", "tombstone", "outbox", "remoteTag", "remoteRecordName"]

    /// What `ANALYZE` writes to `sqlite_stat1` for a profile of a million ideas: the rows of
    /// each index, then how many rows share a value of its first column, of its first two…
    /// Every index of a big table must have its line (checked), so a new index is planned
    /// with a million rows too.
    static let millionIdeaStats: [(table: String, index: String, stat: String)] = [
        ("idea", "sqlite_autoindex_idea_1", "1000000 1"), // id, unique
        ("idea", "idea_by_createdAt", "1000000 1"),
        ("idea", "idea_by_completion", "1000000 500000 1"), // isCompleted has two values
        ("idea", "idea_by_updatedAt", "1000000 1"),
        ("idea", "idea_by_foldedTitle", "1000000 2"),
        // A few versions of each idea that was ever edited.
        ("ideaHistory", "ideaHistory_by_idea", "3000000 3 1"),
        ("tombstone", "sqlite_autoindex_tombstone_1", "100000 1"),
        // A first upload queues every idea, most of them at one time (`requeueEverything`).
        ("outbox", "sqlite_autoindex_outbox_1", "1000000 1"),
        ("outbox", "outbox_by_enqueuedAt", "1000000 1000 1"),
        ("outbox", "outbox_by_pendingSince", "1000000 1000"),
        ("remoteTag", "sqlite_autoindex_remoteTag_1", "1000000 1"),
        ("remoteRecordName", "sqlite_autoindex_remoteRecordName_1", "1000000 1"),
        ("remoteRecordName", "remoteRecordName_by_name", "1000000 1"),
    ]

    /// Statements that do read a big table whole today, by a fragment of their SQL, with why
    /// and what would fix them. The test fails once one of them no longer scans (or is no
    /// longer run): then its line goes.
    /// (`staleIdeaIds()`'s whole outbox was one until `outbox_by_pendingSince`.)
    static let knownScans: [String: String] = [:]

    @Test func everyEverydayStatementIsAnsweredThroughAnIndexOnAMillionIdeas() throws {
        let fixture = try StoreFixture()
        let repository = fixture.repository
        let clock = fixture.clock
        var ideas: [Idea] = []
        for (index, title) in Self.titles.enumerated() {
            clock.advance(by: 1000)
            ideas.append(try repository.addIdea(
                title: title, description: "notes on \(title)", isCompleted: index.isMultiple(of: 3)))
        }
        try Self.pretendAMillionIdeas(fixture.database.writer)

        let log = StatementLog()
        try fixture.database.writer.writeWithoutTransaction { db in
            db.trace(options: .statement) { event in
                guard case .statement(let statement) = event else { return }
                log.record(sql: statement.sql, expandedSQL: statement.expandedSQL)
            }
        }
        defer { try? fixture.database.writer.writeWithoutTransaction { db in db.trace(options: []) } }
        try Self.driveEverydayWork(repository, clock: clock, ideas: ideas, log: log)
        try fixture.database.writer.writeWithoutTransaction { db in db.trace(options: []) }

        let checked = try Self.plans(of: log, fixture.database.writer)
        #expect(checked.count > 40, "the everyday operations ran \(checked.count) statements: is the trace catching them?")
        var knownScansSeen: Set<String> = []
        for statement in checked {
            let scans = statement.plans.flatMap { $0.filter(Self.readsABigTableWhole) }
            let sorts = statement.plans.flatMap { $0.filter(Self.sortsWithATemporaryTree) }
            let known = Self.knownScans.keys.first { statement.sql.contains($0) }
            if let known, !scans.isEmpty {
                knownScansSeen.insert(known)
            } else {
                #expect(scans.isEmpty, "\(statement.description)")
            }
            // A search sorts its hits (a few hundred at most, `searchSortLimit`); a list page
            // or anything else reads its order from an index.
            if !statement.sql.contains("WHERE localId IN (SELECT rowid FROM") {
                #expect(sorts.isEmpty, "\(statement.description)")
            }
        }
        for (fragment, reason) in Self.knownScans where !knownScansSeen.contains(fragment) {
            Issue.record("a known scan (\(reason)) no longer scans or no longer runs: remove it from knownScans (\(fragment))")
        }
    }

    @Test func theStatisticsOfAMillionIdeasAreWhatThePlannerUses() throws {
        let fixture = try StoreFixture()
        for title in Self.titles { _ = try fixture.repository.addIdea(title: title) }
        try Self.pretendAMillionIdeas(fixture.database.writer)
        try fixture.database.writer.read { db in
            // A skip-scan of the done flag's index is planned only where the statistics say
            // that each value of the flag is shared by many rows (at least 18): not by the few
            // ideas the table really holds, nor without statistics.
            let plan = try Self.plan(
                of: "SELECT isCompleted FROM idea INDEXED BY idea_by_completion WHERE createdAt = 5", db)
            #expect(plan.contains { $0.contains("ANY(isCompleted)") }, "\(plan)")
        }
    }

    // MARK: The workload

    private static let titles = [
        "apple pie recipe", "Apple orchard visit", "茶道", "喝一杯茶", "一個想法", "read the paper",
        "call the plumber", "Ébène box", "apricot jam", "plan the trip", "10 apples", "茶葉蛋",
    ]

    /// Runs, through the repository's public API, what the app and the command line do every
    /// day: refresh, list pages in every order, search, show, add, edit, done, delete, undo and
    /// redo, history, and a sync's reads and writes.
    private static func driveEverydayWork(
        _ repository: IdeaRepository, clock: ManualClock, ideas: [Idea], log: StatementLog
    ) throws {
        func tick() { clock.advance(by: 1000) }

        log.operation = "refresh"
        _ = try repository.revision()
        _ = try repository.listOrder()
        _ = try repository.deviceNames()
        _ = try repository.counts()
        _ = try repository.pendingChangeCount()
        _ = try repository.staleIdeaIds()
        _ = try repository.remoteClockEstimate()
        _ = try repository.syncMetadata()

        log.operation = "list"
        for key in IdeaOrder.Key.allCases {
            for reversed in [false, true] {
                let order = IdeaOrder(key, isReversed: reversed)
                try repository.setListOrder(order)
                for filter in [IdeaFilter.all, .completed] {
                    _ = try repository.count(filter)
                    _ = try repository.ideas(filter, limit: 50, order: order)
                    _ = try repository.ideas(filter, offset: 50, limit: 50, total: 1_000_000, order: order)
                    // `End`: a page near the end is read from the other end.
                    _ = try repository.ideas(filter, offset: 999_950, limit: 50, total: 1_000_000, order: order)
                    try repository.forEachIdea(filter, order: order, limit: 50) { _ in }
                }
            }
        }

        log.operation = "search"
        // Three letters or more: the trigram index; one or two characters: the short grams.
        for query in ["apple", "pie recipe", "ap", "茶", "一個", "茶道的"] {
            let filter = IdeaFilter.search(query)
            _ = try repository.count(filter)
            _ = try repository.count(filter, upTo: 101)
            _ = try repository.ideas(filter, limit: 50)
            try repository.forEachIdea(filter, limit: 50) { _ in }
            // As many hits as a million ideas give: sorted (up to 300), read along the
            // `createdAt` index (up to 1000), a walk comparing the text (more, a small page)
            // or every hit (more, a long read).
            for hits in [200, 800, 5000] {
                _ = try repository.ideas(filter, limit: 50, total: hits)
                _ = try repository.ideas(filter, offset: 2000, limit: 50, total: hits)
            }
        }

        log.operation = "show"
        _ = try repository.idea(id: ideas[0].id)
        _ = try repository.idea(matching: ideas[0].idString)
        _ = try repository.idea(matching: ideas[1].idString.uppercased())
        #expect(throws: IdeaStoreError.self) { try repository.idea(matching: "0000") }

        log.operation = "add"
        tick()
        let added = try repository.addIdea(title: "a new thought", description: "with a description")
        tick()
        let addedChinese = try repository.addIdea(title: "新的想法")

        log.operation = "edit"
        tick()
        let edited = try repository.editIdea(id: ideas[1].id, IdeaChanges(title: "Apple orchard visit, again"))
        tick()
        _ = try repository.editIdeaKeepingPrevious(id: ideas[2].id, IdeaChanges(description: "點茶"))

        log.operation = "done/undone"
        tick()
        _ = try repository.setCompleted(true, id: ideas[4].id)
        tick()
        _ = try repository.setCompleted(false, id: ideas[4].id)
        tick()
        _ = try repository.toggleCompleted(id: ideas[5].id)
        tick()
        _ = try repository.setCompleted(true, ids: [ideas[6].id, ideas[7].id])

        log.operation = "rm"
        tick()
        let deleted = try repository.deleteIdea(id: ideas[8].id)
        tick()
        let deletedTogether = try repository.deleteIdeas(ids: [ideas[9].id, ideas[10].id])

        log.operation = "undo/redo"
        tick()
        _ = try repository.restoreIdea(deleted)
        tick()
        _ = try repository.revert(id: edited.id, fields: [.title], from: edited, to: ideas[1], reason: .undone)
        tick()
        _ = try repository.revert(id: edited.id, fields: [.title], from: ideas[1], to: edited, reason: .redone)
        tick()
        _ = try repository.deleteUnlessChanged(added, reason: .undone)
        tick()
        _ = try repository.revertAll(deletedTogether.map(RevertStep.restore), reason: .undone)
        tick()
        _ = try repository.revertAll([.delete(addedChinese)], reason: .undone)

        log.operation = "history"
        let versions = try repository.history(of: ideas[1].id)
        _ = try repository.history(of: added.id)
        _ = try repository.ideaIdWithHistory(matching: added.idString)
        if let number = versions.compactMap(\.number).last {
            tick()
            _ = try repository.restoreVersion(number, of: ideas[1].id)
        }
        if let number = try repository.history(of: addedChinese.id).compactMap(\.number).first {
            tick()
            _ = try repository.restoreVersionKeepingPrevious(number, of: addedChinese.id)
        }
        tick()
        try repository.keepInHistory(ideas[3], fields: [.title], reason: .setAside)

        log.operation = "sync"
        tick()
        try repository.recordSyncSuccess(at: clock.now)
        let pending = try repository.pendingChanges(limit: 4)
        _ = try repository.pendingChanges(after: pending.last, limit: 4)
        _ = try repository.settledStates(of: ideas.map(\.id))
        try repository.recordFailedAttempt(Array(pending.prefix(2)))
        _ = try repository.recordNames(of: ideas.map(\.id))
        try repository.rememberRecordNames([ideas[0].id: "RECORD-0"])
        _ = try repository.ideaIds(ofRecordNames: ["RECORD-0", "RECORD-9"])
        tick()
        try repository.acknowledge(
            pending, tags: Dictionary(uniqueKeysWithValues: pending.map { ($0.ideaId, "tag-\($0.ideaId)") }), syncedAt: clock.now)
        // An edit here and one on another device since: a conflict, logged.
        tick()
        _ = try repository.editIdea(id: ideas[0].id, IdeaChanges(title: "apple pie, my way"))
        tick()
        let other = "ffffffff-other-device"
        var theirs = ideas[0]
        theirs.title = "apple pie, their way"
        theirs.updatedAt = clock.now
        theirs.deviceId = other
        theirs.version += 1
        let newIdea = Idea(id: uuid("00000000-0000-4000-8000-0000000000aa"), title: "from another device",
                           createdAt: clock.now, deviceId: other)
        let remote: [RemoteChange] = [
            .saved(theirs, FieldStamps(legacy: theirs)),
            .saved(newIdea, FieldStamps(legacy: newIdea)),
            .deleted(ideaId: ideas[11].id, order: SyncOrder(timestamp: clock.now, deviceId: other)),
        ]
        _ = try repository.applyRemoteChanges(
            remote, tags: [theirs.id: "tag-theirs", newIdea.id: "tag-new"], deviceNames: [DeviceNaming(deviceId: other, name: "Laptop", namedAt: clock.now)],
            changeToken: .set(Data([1])), syncedAt: clock.now, rule: ConflictRule.decide)
        try repository.requeue([ideas[0].id, ideas[11].id])
        try repository.forgetRemoteTags([ideas[0].id])
        try repository.logSyncEvent(.applied(count: 3), at: clock.now)
        _ = try repository.syncLog()
        _ = try repository.conflicts()
        _ = try repository.bringBackFutureTimes()

        log.operation = "refresh"
        _ = try repository.counts()
        _ = try repository.staleIdeaIds()
        _ = try repository.staleChangeCount()
        _ = try repository.pendingChangeCount()
    }

    // MARK: Statistics and plans

    /// Overwrites the planner's statistics with those of a profile of a million ideas
    /// (`millionIdeaStats`) and has SQLite read them again.
    private static func pretendAMillionIdeas(_ writer: any DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "ANALYZE")
            // `index_list` names a WITHOUT ROWID table's primary key too, which is the table.
            let indexes = try Set(bigTables.flatMap { table in
                try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?)", arguments: [table])
            })
            let given = Set(millionIdeaStats.map(\.index))
            #expect(indexes == given, "indexes of the big tables without a million-idea statistic, or statistics of no index")
            for table in bigTables {
                try db.execute(sql: "DELETE FROM sqlite_stat1 WHERE tbl = ?", arguments: [table])
            }
            if try db.tableExists("sqlite_stat4") {
                // Samples of the few real rows would override the statistics.
                try db.execute(sql: "DELETE FROM sqlite_stat4")
            }
            for row in millionIdeaStats {
                try db.execute(
                    sql: "INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)", arguments: [row.table, row.index, row.stat])
            }
            // Reads the statistics tables again, as opening the database would.
            try db.execute(sql: "ANALYZE sqlite_schema")
        }
    }

    /// A statement the repository ran, with the plan of each time it ran with other values.
    struct CheckedStatement: CustomStringConvertible {
        var sql: String
        var operations: [String]
        var plans: [[String]]

        var description: String {
            let shown = Set(plans.map { $0.joined(separator: " | ") }).sorted().joined(separator: "\n  plan: ")
            return "\(operations.joined(separator: ", ")): \(sql)\n  plan: \(shown)"
        }
    }

    /// The plan of every statement of `log` that reads or writes the tables (not SQLite's,
    /// GRDB's or FTS5's own, nor transactions and pragmas), once for each set of values it ran with.
    private static func plans(of log: StatementLog, _ writer: any DatabaseWriter) throws -> [CheckedStatement] {
        let statements = log.entries.filter { isChecked($0.sql) }
        var order: [String] = []
        var byTemplate: [String: (operations: [String], expanded: [String])] = [:]
        for entry in statements {
            if byTemplate[entry.sql] == nil {
                order.append(entry.sql)
                byTemplate[entry.sql] = ([], [])
            }
            if !byTemplate[entry.sql]!.operations.contains(entry.operation) {
                byTemplate[entry.sql]!.operations.append(entry.operation)
            }
            if !byTemplate[entry.sql]!.expanded.contains(entry.expandedSQL) {
                byTemplate[entry.sql]!.expanded.append(entry.expandedSQL)
            }
        }
        return try writer.read { db in
            try order.map { sql in
                let (operations, expanded) = byTemplate[sql]!
                return CheckedStatement(
                    sql: normalized(sql), operations: operations, plans: try expanded.map { try plan(of: $0, db) })
            }
        }
    }

    private static func plan(of sql: String, _ db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
    }

    private static func isChecked(_ sql: String) -> Bool {
        let text = normalized(sql)
        let verb = text.prefix { $0.isLetter }.uppercased()
        guard ["SELECT", "WITH", "INSERT", "REPLACE", "UPDATE", "DELETE"].contains(verb) else { return false }
        // SQLite's and GRDB's own tables, and the statements FTS5 runs on its shadow tables.
        return !["sqlite_", "grdb_", "pragma_", "ideaTrigram_", "ideaShortGram_"].contains { text.contains($0) }
    }

    /// A plan line that reads a big table row by row without an index: `SCAN idea`, not
    /// `SCAN idea USING INDEX …` (an index walked in order) nor `SEARCH idea …`.
    static func readsABigTableWhole(_ line: String) -> Bool {
        let words = line.split(separator: " ")
        guard words.count >= 2, words[0] == "SCAN", bigTables.contains(String(words[1])) else { return false }
        return !line.contains(" USING ")
    }

    /// A plan line that sorts the rows read instead of reading them in order from an index.
    static func sortsWithATemporaryTree(_ line: String) -> Bool {
        line.contains("TEMP B-TREE") && line.contains("ORDER BY")
    }

    private static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// The statements a connection ran, each with the operation that ran it. Written by the
/// trace, on the connection's queue, while the test waits for the repository's call.
private final class StatementLog: @unchecked Sendable {
    var operation = "setup"
    private(set) var entries: [(operation: String, sql: String, expandedSQL: String)] = []

    func record(sql: String, expandedSQL: String) {
        entries.append((operation, sql, expandedSQL))
    }
}
