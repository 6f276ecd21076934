import DatabaseDamage
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// `DatabaseRepair`: what it keeps of a damaged database, and what it leaves alone.
@Suite struct DatabaseRepairTests {
    private static let firstLaunch = IdeaDatabase.FirstLaunch(seedsSamples: true, language: .english, clock: .fixed(StoreFixture.start))

    @Test func theHistoryTheLogsAndTheDeletesOnWholePagesAreKept() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let clock = ManualClock(start: StoreFixture.start)
            let database = try IdeaDatabase.open(
                directory: directory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), use: .app)
            let repository = database.repository(clock: clock.wallClock, ids: .random)
            var ideas: [Idea] = []
            for number in 1...600 {
                ideas.append(try repository.addIdea(title: "Idea \(number)", description: "About \(number)"))
            }
            clock.advance(by: 1000)
            let edited = try repository.editIdea(id: ideas[0].id, IdeaChanges(title: "Idea 1, edited"))
            let deleted = try repository.deleteIdea(id: ideas[599].id)
            try repository.logSyncEvent(.sent(count: 3), at: clock.wallClock.now())
            let history = try repository.history(of: edited.id)
            let deletedHistory = try repository.history(of: deleted.id)
            let log = try repository.syncLog()
            try database.close()

            let pages = try DatabaseDamage.leafPages(of: "idea", in: file)
            let page = pages[pages.count / 2]
            let lost = try DatabaseDamage.values(of: "id", in: "idea", onLeafPage: page, of: file)
            try DatabaseDamage.overwrite(pages: [page], of: file)
            let outcome = try DatabaseRepair.repair(directory: directory, clock: clock.wallClock, wait: 0)
            guard case let .repaired(_, _, kept) = outcome else {
                Issue.record("expected a repair, got \(outcome)")
                return
            }
            #expect(kept == DatabaseRepair.Kept(
                ideas: 599 - lost.count, deletes: 1, pendingChanges: 600 - lost.count, unreadableIdeas: lost.count,
                countsEveryUnreadableIdea: true))

            let repaired = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .app)
            let after = repaired.repository(clock: clock.wallClock, ids: .random)
            #expect(repaired.deviceId == database.deviceId)
            #expect(try after.history(of: edited.id) == history)
            #expect(try after.history(of: deleted.id) == deletedHistory)
            #expect(try after.idea(id: deleted.id) == nil)
            #expect(try after.syncLog().dropFirst().elementsEqual(log))
            #expect(try after.syncLog().first?.message.hasPrefix("repair: kept \(599 - lost.count) idea(s)") == true)
            // The repaired database is the same as any other: it takes edits, and the clock
            // keeps moving forward.
            let next = try after.editIdea(id: edited.id, IdeaChanges(title: "Idea 1, edited again"))
            #expect(next.updatedAt > edited.updatedAt)
        }
    }

    /// Two pages damaged far apart in one table: the rows of the whole pages between them
    /// are found too, in a table of rowids (the ideas) as in one keyed by UUID (the deletes).
    @Test(arguments: ["idea", "tombstone"])
    func theRowsBetweenTwoDamagedPagesAreKept(table: String) throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let database = try IdeaDatabase.open(
                directory: directory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), use: .app)
            let repository = database.repository(clock: .fixed(StoreFixture.start), ids: .random)
            var random = SeededRandomNumberGenerator(seed: 5)
            let imported = (0..<1_500).map { number in
                Idea(
                    id: UUID.random(using: &random), title: "Idea \(number)",
                    createdAt: StoreFixture.start.adding(milliseconds: Int64(number) * 1000), deviceId: "elsewhere", version: 0)
            }
            _ = try repository.importIdeas(imported)
            for idea in imported.prefix(1_200) {
                _ = try repository.deleteIdea(id: idea.id)
            }
            // All sent: no delete waiting in the outbox could stand in for a lost tombstone.
            try repository.acknowledge(repository.pendingChanges(limit: .max), syncedAt: StoreFixture.start)
            let before = try Self.state(repository)
            try database.close()

            let pages = try DatabaseDamage.leafPages(of: table, in: file)
            try #require(pages.count >= 9, "\(table) has \(pages.count) leaf pages")
            let damaged = [pages[pages.count / 3], pages[2 * pages.count / 3]]
            let rowsOnThem = try damaged.reduce(0) { $0 + (try DatabaseDamage.cellCount(onLeafPage: $1, of: file)) }
            try DatabaseDamage.overwrite(pages: damaged, of: file)
            _ = try DatabaseRepair.repair(directory: directory, wait: 0)

            let repaired = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .app)
            let after = try Self.state(repaired.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1)))
            let (kept, whole) = table == "idea" ? (after.ideas, before.ideas) : (after.deletes, before.deletes)
            #expect(kept.isSubset(of: whole))
            #expect(whole.count - kept.count == rowsOnThem)
            #expect(after.ideas.isSubset(of: before.ideas) && after.deletes.isSubset(of: before.deletes))
        }
    }

    /// A damaged page of the upper levels of the ideas' b-tree hides every leaf page below
    /// it from SQLite, but not from a read of every page: each idea on a whole page is kept,
    /// as it was, and none is counted as unreadable (the indexes of the ideas are whole).
    @Test func everyIdeaOnAWholePageIsKeptBelowADamagedInteriorPage() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let database = try IdeaDatabase.open(
                directory: directory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), use: .app)
            let repository = database.repository(clock: .fixed(StoreFixture.start), ids: .random)
            var random = SeededRandomNumberGenerator(seed: 57)
            // Long enough that the ideas take some 600 leaf pages, and so two levels of
            // interior pages above them.
            let imported = (0..<3_000).map { number in
                Idea(
                    id: UUID.random(using: &random), title: "Idea \(number)",
                    description: String(repeating: "Something worth keeping, number \(number). ", count: 15),
                    createdAt: StoreFixture.start.adding(milliseconds: Int64(number) * 1000), deviceId: "elsewhere", version: 0)
            }
            _ = try repository.importIdeas(imported)
            let before = try repository.ideas(.all, limit: .max)
            try database.close()

            let interior = try DatabaseDamage.interiorPages(of: "idea", in: file)
            try #require(interior.count >= 3, "the ideas' b-tree has \(interior.count) interior pages")
            let leaves = try DatabaseDamage.leafPages(of: "idea", in: file)
            try DatabaseDamage.overwrite(pages: [interior[1]], of: file)
            let outcome = try DatabaseRepair.repair(directory: directory, clock: .fixed(StoreFixture.start), wait: 0)
            guard case let .repaired(_, _, kept) = outcome else {
                Issue.record("expected a repair, got \(outcome)")
                return
            }
            let copy = URL(fileURLWithPath: file.path + ".damaged-20261120-081530")
            #expect(try leaves.allSatisfy { try !DatabaseDamage.isOverwritten(page: $0, of: copy) })
            #expect(kept.ideas == 3_000)
            #expect(kept.unreadableIdeas == 0 && kept.countsEveryUnreadableIdea)

            let repaired = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .app)
            let after = try repaired.repository(clock: .fixed(StoreFixture.start), ids: .random).ideas(.all, limit: .max)
            let afterById = Dictionary(uniqueKeysWithValues: after.map { ($0.id, $0) })
            #expect(after.count == before.count)
            #expect(before.filter { afterById[$0.id] != $0 }.map(\.title) == [])
        }
    }

    /// A first page overwritten: SQLite opens nothing of the file (its header and schema are
    /// gone), but the ideas' pages are whole, and each idea on them is kept.
    @Test func theIdeasOfAFileWhoseFirstPageIsDamagedAreKept() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let database = try IdeaDatabase.open(
                directory: directory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english), use: .app)
            let repository = database.repository(clock: .fixed(StoreFixture.start), ids: .random)
            for number in 1...300 {
                _ = try repository.addIdea(title: "Idea \(number)", description: "About \(number)")
            }
            let before = try repository.ideas(.all, limit: .max)
            try database.close()

            try DatabaseDamage.overwrite(pages: [1], of: file)
            let outcome = try DatabaseRepair.repair(directory: directory, clock: .fixed(StoreFixture.start), wait: 0)
            guard case let .repaired(_, _, kept) = outcome else {
                Issue.record("expected a repair, got \(outcome)")
                return
            }
            #expect(kept.ideas == 300)
            let repaired = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .app)
            let after = repaired.repository(clock: .fixed(StoreFixture.start), ids: .random)
            #expect(try after.ideas(.all, limit: .max).map(\.title) == before.map(\.title))
            #expect(try after.ideas(.search("About 217"), limit: 10).map(\.title) == ["Idea 217"])
        }
    }

    /// The ids of the ideas and of the deletes a repository holds.
    private static func state(_ repository: IdeaRepository) throws -> (ideas: Set<UUID>, deletes: Set<UUID>) {
        var ideas: Set<UUID> = [], deletes: Set<UUID> = []
        try repository.forEachSyncState { change in
            if case .saved = change { ideas.insert(change.ideaId) } else { deletes.insert(change.ideaId) }
        }
        return (ideas, deletes)
    }

    /// A delete leaves its search entries for later; the trigram index's check, which compares
    /// it with the ideas' rows, must not take that for damage.
    @Test func aWholeDatabaseWithDeletedIdeasSearchEntriesLeftIsHealthy() throws {
        try withTemporaryDirectory { directory in
            let database = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .app)
            let repository = database.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1))
            let ideas = try (1...3).map { try repository.addIdea(title: "茶會 tea workshop \($0)") }
            _ = try repository.deleteIdeas(ids: ideas.map(\.id))
            #expect(try repository.leftSearchEntryCount() == 3)
            try database.close()
            let file = directory.appendingPathComponent("ideabox.sqlite")
            #expect(try DatabaseRepair.repair(directory: directory, wait: 0) == .healthy(path: file.path))
            let reopened = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .app)
            defer { try? reopened.close() }
            #expect(try reopened.repository(clock: .fixed(StoreFixture.start), ids: .random).leftSearchEntryCount() == 3,
                    "the check wrote nothing")
        }
    }

    @Test func aDatabaseAnotherConnectionHasOpenIsLeftAlone() throws {
        try withTemporaryDirectory { directory in
            let database = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .app)
            _ = try database.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1)).addIdea(title: "The app is running")
            let file = directory.appendingPathComponent("ideabox.sqlite")
            #expect(throws: StorageError.inUse(path: file.path, options: ["--profile", "phone"])) {
                try DatabaseRepair.repair(directory: directory, options: ["--profile", "phone"], wait: 0)
            }
            #expect(try database.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1)).ideas(.all, limit: 10).count == 8)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains("damaged") })
        }
    }

    @Test func aFileThatIsNotADatabaseIsSetAsideAndNoSamplesComeBack() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ideabox.sqlite")
            let text = Data(String(repeating: "These are my notes, not a database.\n", count: 200).utf8)
            try text.write(to: file)
            let outcome = try DatabaseRepair.repair(directory: directory, clock: .fixed(StoreFixture.start), wait: 0)
            let copy = file.path + ".damaged-20261120-081530"
            #expect(outcome == .repaired(path: file.path, damagedCopy: copy, kept: DatabaseRepair.Kept(
                ideas: 0, deletes: 0, pendingChanges: 0, unreadableIdeas: 0, countsEveryUnreadableIdea: false)))
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == text)
            let database = try IdeaDatabase.open(directory: directory, firstLaunch: Self.firstLaunch, use: .command)
            #expect(try database.repository(clock: .fixed(StoreFixture.start), ids: .counting(from: 1)).ideas(.all, limit: 10).isEmpty)
            #expect(try DatabaseDamage.integrityCheck(file) == ["ok"])
        }
    }

    @Test func aFolderWithoutADatabaseIsLeftEmpty() throws {
        try withTemporaryDirectory { directory in
            let outcome = try DatabaseRepair.repair(directory: directory, wait: 0)
            #expect(outcome == .noDatabase(path: directory.appendingPathComponent("ideabox.sqlite").path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }
}
