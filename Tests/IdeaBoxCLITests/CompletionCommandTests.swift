import Foundation
import ProcessTestSupport
import Testing

/// `ideabox done ID` and `ideabox undone ID`.
@Suite(.takesTurns) struct CompletionCommandTests {
    @Test func doneAndUndoneFlipTheFlagAndPrintTheId() async throws {
        let sandbox = try Sandbox()
        let other = try await sandbox.add("other")
        let id = try await sandbox.add("To finish", description: "details")
        let added = try await sandbox.idea(id)

        #expect(try await sandbox.succeed(["done", String(id.prefix(6))]) == id + "\n")
        let done = try await sandbox.idea(id)
        var expected = added
        expected.isCompleted = true
        expected.version = 1
        expected.updatedAt = done.updatedAt
        #expect(done == expected)
        #expect(done.updatedAt > added.updatedAt)
        #expect(try await sandbox.succeed(["list", "--completed"]) == "\(id.prefix(8))  [x] To finish\n")
        #expect(try await sandbox.succeed(["list"]) == "\(id.prefix(8))  [x] To finish\n\(other.prefix(8))  [ ] other\n")

        #expect(try await sandbox.succeed(["undone", id]) == id + "\n")
        let undone = try await sandbox.idea(id)
        #expect(!undone.isCompleted && undone.version == 2 && undone.updatedAt > done.updatedAt)
        #expect(try await sandbox.succeed(["list", "--completed"]) == "")
    }

    @Test func markingTwiceChangesNothingTheSecondTime() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Twice")
        try await sandbox.succeed(["done", id])
        let once = try await sandbox.succeed(["export"])
        #expect(try await sandbox.succeed(["done", id]) == id + "\n")
        #expect(try await sandbox.succeed(["export"]) == once)

        let notDone = try await sandbox.add("Never done")
        let before = try await sandbox.succeed(["export"])
        try await sandbox.succeed(["undone", notDone])
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    @Test func jsonPrintsTheIdeaAsStored() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Json")
        let output = try await sandbox.succeed(["done", id, "--json"])
        let idea = try await sandbox.idea(id)
        #expect(idea.isCompleted)
        #expect(output == Expected.json(idea) + "\n")
        let undone = try await sandbox.succeed(["undone", id, "--json"])
        #expect(await undone == Expected.json(try sandbox.idea(id)) + "\n")
    }

    @Test func samplesCanBeMarked() async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.succeed(["done", "1dea0001"])
        try await sandbox.succeed(["undone", "1dea0002"])
        #expect(try await sandbox.succeed(["list", "--completed"]) == """
            1dea0005  [x] Write a blog post about CloudKit sync
            1dea0001  [x] Learn SwiftData

            """)
        let sample = try await sandbox.idea("1dea0001")
        #expect(sample.version == 1 && sample.deviceId != "sample-en")
    }
}
