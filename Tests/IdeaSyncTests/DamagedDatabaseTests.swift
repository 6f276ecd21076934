import DatabaseDamage
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import Testing

/// A database damaged in the middle says so in one sentence; `ideabox repair` keeps every
/// idea on a whole page, the database passes SQLite's integrity check again, and the next
/// sync brings back the rest from the remote.
@Suite struct DamagedDatabaseTests {
    /// Which page of a 5,000-idea database is overwritten: the middle leaf page of a b-tree.
    enum Damage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A page of the ideas themselves.
        case ideaPage = "idea"
        /// A page of the index lists are read by.
        case indexPage = "idea_by_createdAt"
        /// A page of the search index.
        case searchIndexPage = "ideaTrigram_data"
        /// A page of the changes waiting to be sent.
        case outboxPage = "outbox"

        var testDescription: String { "a page of \(rawValue)" }
    }

    /// The options the person chose this device's data with.
    static let options = ["--profile", "laptop"]

    @Test(arguments: Damage.allCases)
    func repairKeepsEveryIdeaOnAWholePageAndTheSyncBringsBackTheRest(_ damage: Damage) async throws {
        let fixture = try SyncFixture()
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("ideabox.sqlite")
        let device = try Laptop(folder.url, fixture)
        _ = try device.repository.importIdeas(Self.ideas(deviceId: device.database.deviceId, from: SyncFixture.start))
        _ = try await device.session.run()
        #expect(try await fixture.remoteIdeas().count == 5_000)
        // Work not sent yet: edits, deletes and new ideas, each in the outbox.
        await fixture.scheduler.advance(by: 60_000)
        let imported = try device.repository.ideas(.all, limit: .max)
        var deleted: Set<UUID> = []
        for (index, idea) in imported.enumerated() {
            if index % 17 == 0 {
                _ = try device.repository.editIdea(id: idea.id, IdeaChanges(title: idea.title + " edited"))
            } else if index % 97 == 5 {
                _ = try device.repository.deleteIdea(id: idea.id)
                deleted.insert(idea.id)
            }
        }
        for number in 1...20 {
            _ = try device.repository.addIdea(title: "New idea \(number)", description: "not sent yet")
        }
        let before = try device.repository.ideas(.all, limit: .max)
        let pendingBefore = try device.repository.pendingChanges(limit: .max)
        let remoteBefore = Dictionary(uniqueKeysWithValues: try await fixture.remoteIdeas().map { ($0.id, $0) })
        let deviceId = device.database.deviceId
        try device.database.close()

        let pages = try DatabaseDamage.leafPages(of: damage.rawValue, in: file)
        try #require(pages.count >= 3, "\(damage.rawValue) has \(pages.count) leaf pages")
        let page = try Self.middlePageAReadReaches(pages, of: file, fixture, searching: before)
        let lost = damage == .ideaPage
            ? Set(try DatabaseDamage.values(of: "id", in: "idea", onLeafPage: page, of: file).compactMap(UUID.init(uuidString:)))
            : []
        #expect(damage != .ideaPage || !lost.isEmpty)
        try DatabaseDamage.overwrite(pages: [page], of: file)

        // Whatever reads the damage says the one sentence, naming the file and the repair.
        let damaged = try Laptop(folder.url, fixture)
        let failures = try Self.readEverything(damaged.repository, searching: before)
        #expect(!failures.isEmpty, "no read of the damaged database failed")
        for failure in failures {
            #expect(failure as? StorageError == .damaged(path: file.path, options: Self.options), "\(failure)")
        }
        if damage == .outboxPage {
            await #expect(throws: SyncFailure.storage(.damaged(path: file.path, options: Self.options))) { try await damaged.session.run() }
        }
        let sentence = StorageError.damaged(path: file.path, options: Self.options)
        #expect(sentence.message(in: .english) == """
            \(file.path) is damaged: run `ideabox repair --profile laptop`, which keeps every idea it can still read \
            and sets the damaged file aside; the next sync brings back the rest.
            """)
        #expect(sentence.message(in: .traditionalChinese) == """
            「\(file.path)」已損毀：請執行 `ideabox repair --profile laptop`，它會保留所有仍可讀取的靈感，並把損毀的檔案留在一旁；下次同步會補回其餘部分
            """)
        try damaged.database.close()

        // The repair keeps every idea on a whole page, as it was; the damaged file stays beside.
        let outcome = try DatabaseRepair.repair(
            directory: folder.url, options: Self.options, clock: fixture.scheduler.clock, wait: 0)
        guard case let .repaired(path, copy, kept) = outcome else {
            Issue.record("expected a repair, got \(outcome)")
            return
        }
        #expect(path == file.path)
        #expect(copy.hasPrefix(file.path + ".damaged-"))
        #expect(try DatabaseDamage.isOverwritten(page: page, of: URL(fileURLWithPath: copy)))
        #expect(try DatabaseDamage.integrityCheck(file) == ["ok"])
        let expected = before.filter { !lost.contains($0.id) }
        let repaired = try Laptop(folder.url, fixture)
        #expect(try repaired.repository.ideas(.all, limit: .max) == expected)
        #expect(kept.ideas == expected.count)
        #expect(repaired.database.deviceId == deviceId)
        #expect(try repaired.repository.count(.search("idea")) == expected.count)
        #expect(try deleted.allSatisfy { try repaired.repository.idea(id: $0) == nil })
        let metadata = try repaired.repository.syncMetadata()
        #expect(metadata.changeToken == nil && metadata.accountName == SimulatedCloud.defaultAccount)
        let pending = try repaired.repository.pendingChanges(limit: .max)
        if damage == .outboxPage {
            // Part of the outbox was lost: everything goes out again.
            #expect(pending.count == expected.count + deleted.count)
        } else {
            #expect(Set(pending.map(\.ideaId)) == Set(pendingBefore.map(\.ideaId)).subtracting(lost))
        }

        // The next sync fetches everything again: what was on the damaged page comes back as
        // the remote had it, and what was waiting goes out.
        _ = try await repaired.session.run()
        var restored = Dictionary(uniqueKeysWithValues: before.map { ($0.id, IdeaSnapshot($0)) })
        for id in lost {
            restored[id] = remoteBefore[id]
        }
        let after = Set(try repaired.repository.ideas(.all, limit: .max).map(IdeaSnapshot.init))
        let wanted = Set(restored.values)
        #expect(wanted.subtracting(after).map(\.summary).sorted() == [], "missing after the sync")
        #expect(after.subtracting(wanted).map(\.summary).sorted() == [], "not expected after the sync")
        let remote = Set(try await fixture.remoteIdeas())
        #expect(remote.symmetricDifference(after).map(\.summary).sorted() == [], "the remote and the device differ")
        #expect(try repaired.repository.pendingChangeCount() == 0)
    }

    @Test func aHealthyDatabaseIsLeftAsItIs() async throws {
        let fixture = try SyncFixture()
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("ideabox.sqlite")
        let device = try Laptop(folder.url, fixture)
        _ = try device.repository.importIdeas(Self.ideas(count: 500, deviceId: device.database.deviceId, from: SyncFixture.start))
        _ = try await device.session.run()
        try device.database.close()
        try DatabaseDamage.checkpoint(file)
        let bytes = try Data(contentsOf: file)
        let outcome = try DatabaseRepair.repair(directory: folder.url, options: Self.options, clock: fixture.scheduler.clock, wait: 0)
        #expect(outcome == .healthy(path: file.path))
        let unchanged = try Data(contentsOf: file) == bytes
        #expect(unchanged)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("damaged") }.isEmpty)
    }

    /// `count` ideas of this device, a second apart, with short titles and descriptions, so
    /// the search index holds few distinct words; ids from a seeded generator.
    static func ideas(count: Int = 5_000, deviceId: String, from start: Timestamp) -> [Idea] {
        var random = SeededRandomNumberGenerator(seed: 35)
        return (0..<count).map { number in
            let created = start.adding(milliseconds: Int64(number) * 1000)
            return Idea(
                id: UUID.random(using: &random), title: "Idea \(String(number + 10_000).dropFirst())",
                description: "note \(number % 97)", isCompleted: number % 5 == 0, createdAt: created, updatedAt: created,
                deviceId: deviceId, version: 0)
        }
    }

    /// The leaf page nearest the middle of `pages` whose damage a read of `file` meets (a copy
    /// damaged, then `readEverything`). Not every page is one: once the outbox's new index
    /// moved the pages about (issue 65), the middle page of the search index held only the
    /// middle of one long doclist (FTS5 segment 16, its page 35, no term on it), and no read
    /// met its damage; the page before it is met.
    static func middlePageAReadReaches(_ pages: [Int], of file: URL, _ fixture: SyncFixture, searching ideas: [Idea]) throws -> Int {
        let middle = pages.count / 2
        let candidates = (0..<pages.count).map { middle + ($0.isMultiple(of: 2) ? $0 / 2 : -($0 + 1) / 2) }
            .filter(pages.indices.contains).prefix(8).map { pages[$0] }
        for page in candidates {
            let copy = try TemporaryFolder()
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: file.path + suffix) {
                try FileManager.default.copyItem(
                    atPath: file.path + suffix, toPath: copy.url.appendingPathComponent(file.lastPathComponent + suffix).path)
            }
            try DatabaseDamage.overwrite(pages: [page], of: copy.url.appendingPathComponent(file.lastPathComponent))
            let device = try Laptop(copy.url, fixture)
            defer { try? device.database.close() }
            if try !readEverything(device.repository, searching: ideas).isEmpty { return page }
        }
        throw DamageError(description: "no page of \(candidates) is met by a read")
    }

    struct DamageError: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads every list, count and change the app and `sync` read, and searches every
    /// three-letter piece of the ideas' text; returns what each read that failed threw.
    static func readEverything(_ repository: IdeaRepository, searching ideas: [Idea]) throws -> [any Error] {
        var failures: [any Error] = []
        func attempt(_ read: () throws -> Void) {
            do { try read() } catch { failures.append(error) }
        }
        attempt { _ = try repository.counts() }
        attempt { _ = try repository.pendingChangeCount() }
        attempt { _ = try repository.pendingChanges(limit: .max) }
        attempt { try repository.forEachIdea(.all) { _ in } }
        attempt { try repository.forEachSyncState { _ in } }
        var pieces: Set<String> = []
        for idea in ideas {
            let text = Array((idea.title + " " + idea.description).lowercased())
            for start in 0..<max(0, text.count - 2) {
                pieces.insert(String(text[start..<start + 3]))
            }
        }
        for piece in pieces.sorted() where failures.isEmpty {
            attempt { _ = try repository.count(.search(piece)) }
        }
        return failures
    }
}

/// The device `laptop`: its database on disk, in `folder`, opened as the app opens it, and
/// its sync session with the fixture's remote.
private struct Laptop {
    let database: IdeaDatabase
    let repository: IdeaRepository
    let session: SyncSession

    init(_ folder: URL, _ fixture: SyncFixture) throws {
        let clock = fixture.scheduler.clock
        database = try IdeaDatabase.open(
            directory: folder, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english, clock: clock),
            use: .app, options: DamagedDatabaseTests.options)
        repository = database.repository(clock: clock, ids: .random)
        session = SyncSession(repository: repository, database: fixture.cloud.database(forDevice: "laptop"), clock: clock)
    }
}

/// A new, empty folder, removed when the test is done.
private final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("IdeaSyncTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
