import Foundation
import ProcessTestSupport
import Testing

/// `ideabox repair`: a damaged database gives way to a fresh one holding what can still be
/// read, the damaged file kept beside it; the next sync brings back the rest.
@Suite(.takesTurns) struct RepairCommandTests {
    @Test func repairKeepsWhatCanBeReadAndTheSyncBringsBackTheRest() async throws {
        let sandbox = try Sandbox()
        let ideas = try await sandbox.importIdeas(profile: "phone")
        try await sandbox.succeed(["sync", "--profile", "phone"])
        let lost = try sandbox.damageIdeas(profile: "phone")
        try await sandbox.expectRejection(
            ["export", "--profile", "phone"], message: sandbox.damagedSentence(profile: "phone", options: " --profile phone"))

        let database = sandbox.databaseFile(profile: "phone")
        let output = try await sandbox.succeed(["repair", "--profile", "phone"])
        let copies = try FileManager.default.contentsOfDirectory(atPath: database.deletingLastPathComponent().path)
            .filter { $0.hasPrefix("ideabox.sqlite.damaged-") }
        try #require(copies.count == 1, "\(copies)")
        let copy = database.deletingLastPathComponent().appendingPathComponent(copies[0]).path
        #expect(output == """
            Repaired \(database.path): kept \(ideas.count - lost.count) ideas, 0 deletes and 0 changes waiting to be sent; \
            \(lost.count) ideas could not be read.
            The damaged file is kept beside it as \(copy).
            The next sync fetches everything from the remote again and fills in the rest.

            """)
        let kept = try await sandbox.ideas(["--profile", "phone"])
        #expect(Set(kept.map(\.idString)) == Set(ideas.map(\.idString)).subtracting(lost))

        try await sandbox.succeed(["sync", "--profile", "phone"])
        let synced = try await sandbox.ideas(["--profile", "phone"])
        #expect(synced.map(\.idString) == ideas.reversed().map(\.idString))
        #expect(synced.map(\.title) == ideas.reversed().map(\.title))

        #expect(try await sandbox.succeed(["repair", "--profile", "phone"])
            == "\(database.path) is healthy: nothing to repair, nothing was changed.\n")
        #expect(try await sandbox.succeed(["repair", "--profile", "phone"], environment: ["LANG": "zh_TW.UTF-8"])
            == "「\(database.path)」完好無損：不需要修復，沒有變更任何資料\n")
    }

    @Test func aFileThatIsNotADatabaseIsSetAsideForAFreshOne() async throws {
        let sandbox = try Sandbox()
        let database = sandbox.databaseFile()
        try FileManager.default.createDirectory(at: database.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = Data("These are my notes, not a database.\n".utf8)
        try text.write(to: database)
        let output = try await sandbox.succeed(["repair"])
        #expect(output.hasPrefix("Repaired \(database.path): kept 0 ideas, 0 deletes and 0 changes waiting to be sent;"))
        let copies = try FileManager.default.contentsOfDirectory(atPath: database.deletingLastPathComponent().path)
            .filter { $0.hasPrefix("ideabox.sqlite.damaged-") }
        try #require(copies.count == 1)
        #expect(try Data(contentsOf: database.deletingLastPathComponent().appendingPathComponent(copies[0])) == text)
        #expect(try await sandbox.succeed(["list"]) == "")
        _ = try await sandbox.add("A fresh start")
    }

    @Test func thereIsNothingToRepairWithoutADatabase() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.succeed(["repair"])
            == "There is no database at \(sandbox.databaseFile().path) yet: nothing to repair.\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path))
    }
}
