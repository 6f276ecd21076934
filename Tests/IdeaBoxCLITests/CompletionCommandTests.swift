import Foundation
import Testing

/// `ideabox done ID` and `ideabox undone ID`.
@Suite struct CompletionCommandTests {
    @Test func doneAndUndoneFlipTheFlagAndPrintTheId() throws {
        let sandbox = try Sandbox()
        let other = try sandbox.add("other")
        let id = try sandbox.add("To finish", description: "details")
        let added = try sandbox.idea(id)

        #expect(try sandbox.succeed(["done", String(id.prefix(6))]) == id + "\n")
        let done = try sandbox.idea(id)
        var expected = added
        expected.isCompleted = true
        expected.version = 1
        expected.updatedAt = done.updatedAt
        #expect(done == expected)
        #expect(done.updatedAt > added.updatedAt)
        #expect(try sandbox.succeed(["list", "--completed"]) == "\(id.prefix(8))  [x] To finish\n")
        #expect(try sandbox.succeed(["list"]) == "\(id.prefix(8))  [x] To finish\n\(other.prefix(8))  [ ] other\n")

        #expect(try sandbox.succeed(["undone", id]) == id + "\n")
        let undone = try sandbox.idea(id)
        #expect(!undone.isCompleted && undone.version == 2 && undone.updatedAt > done.updatedAt)
        #expect(try sandbox.succeed(["list", "--completed"]) == "")
    }

    @Test func markingTwiceChangesNothingTheSecondTime() throws {
        let sandbox = try Sandbox()
        let id = try sandbox.add("Twice")
        try sandbox.succeed(["done", id])
        let once = try sandbox.succeed(["export"])
        #expect(try sandbox.succeed(["done", id]) == id + "\n")
        #expect(try sandbox.succeed(["export"]) == once)

        let notDone = try sandbox.add("Never done")
        let before = try sandbox.succeed(["export"])
        try sandbox.succeed(["undone", notDone])
        #expect(try sandbox.succeed(["export"]) == before)
    }

    @Test func jsonPrintsTheIdeaAsStored() throws {
        let sandbox = try Sandbox()
        let id = try sandbox.add("Json")
        let output = try sandbox.succeed(["done", id, "--json"])
        let idea = try sandbox.idea(id)
        #expect(idea.isCompleted)
        #expect(output == Expected.json(idea) + "\n")
        let undone = try sandbox.succeed(["undone", id, "--json"])
        #expect(undone == Expected.json(try sandbox.idea(id)) + "\n")
    }

    @Test func samplesCanBeMarked() throws {
        let sandbox = try Sandbox(samples: true)
        try sandbox.succeed(["done", "1dea0001"])
        try sandbox.succeed(["undone", "1dea0002"])
        #expect(try sandbox.succeed(["list", "--completed"]) == """
            1dea0005  [x] Write a blog post about CloudKit sync
            1dea0001  [x] Learn SwiftData

            """)
        let sample = try sandbox.idea("1dea0001")
        #expect(sample.version == 1 && sample.deviceId != "sample-en")
    }
}
