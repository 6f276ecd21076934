import Foundation
import ProcessTestSupport
import Testing

/// `ideabox edit ID [--title T] [--description D] [--json]`.
@Suite(.takesTurns) struct EditCommandTests {
    @Test func titleChangesOnlyTheTitleAndStampsTheEdit() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Draft", description: "keep me", done: true)
        let before = try await sandbox.idea(id)
        #expect(try await sandbox.succeed(["edit", String(id.prefix(8)), "--title", "  Final 靈感  "]) == id + "\n")
        let after = try await sandbox.idea(id)
        var expected = before
        expected.title = "Final 靈感"
        expected.version = 1
        expected.updatedAt = after.updatedAt
        #expect(after == expected)
        #expect(after.updatedAt > before.updatedAt)
    }

    @Test(arguments: ["-d", "--description"])
    func descriptionChangesOnlyTheDescription(option: String) async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Title", description: "old")
        let before = try await sandbox.idea(id)
        try await sandbox.succeed(["edit", id, option, "new\nmulti-line 👍🏽"])
        let after = try await sandbox.idea(id)
        #expect(after.title == "Title")
        #expect(after.description == "new\nmulti-line 👍🏽")
        #expect(after.version == 1 && after.createdAt == before.createdAt && after.updatedAt > before.updatedAt)
    }

    @Test func descriptionCanBeCleared() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Title", description: "old")
        try await sandbox.succeed(["edit", id, "-d", ""])
        #expect(try await sandbox.idea(id).description == "")
    }

    @Test func bothAtOnceIsOneEdit() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("a", description: "b")
        let output = try await sandbox.succeed(["edit", id, "--title", "c", "--description", "d", "--json"])
        let idea = try await sandbox.idea(id)
        #expect(idea.title == "c" && idea.description == "d" && idea.version == 1)
        #expect(output == Expected.json(idea) + "\n")
    }

    @Test func theSameValuesChangeNothing() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Same", description: "text")
        let before = try await sandbox.succeed(["export"])
        #expect(try await sandbox.succeed(["edit", id, "--title", "Same", "-d", "text"]) == id + "\n")
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    @Test func nothingToChangeIsRefused() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Untouched")
        let before = try await sandbox.succeed(["export"])
        try await sandbox.expectRejection(
            ["edit", id],
            message: "Nothing to change: pass --title and/or --description (on a terminal, `ideabox edit ID` alone opens $EDITOR).")
        try await sandbox.expectRejection(
            ["edit", id], message: "沒有要變更的內容：請使用 --title 或 --description（在終端機中，只寫 `ideabox edit ID` 會開啟 $EDITOR）",
            environment: ["LANG": "zh_TW.UTF-8"])
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    @Test(arguments: [
        (["--title", ""], "The title can't be empty."),
        (["--title", "   "], "The title can't be empty."),
        (["--title", "two\nlines"], "The title must be one line, without newlines or control characters."),
        (["--title", String(repeating: "靈", count: 257)], "The title is 257 characters long; the limit is 256."),
        (["--title", "fine", "-d", String(repeating: "x", count: 4097)],
         "The description is 4097 characters long; the limit is 4096."),
        (["-d", "nul\u{01}"], "The description may hold newlines and tabs, but no other control characters."),
    ])
    func invalidChangesAreRefusedAndLeaveTheIdeaUnchanged(changes: [String], message: String) async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Original", description: "as it was")
        let before = try await sandbox.succeed(["export"])
        try await sandbox.expectRejection(["edit", id] + changes, message: message)
        #expect(try await sandbox.succeed(["export"]) == before)
        #expect(try await sandbox.idea(id).title == "Original")
    }

    @Test func twoHundredFiftySixCharactersAreAccepted() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("short")
        let title = String(repeating: "👍🏽", count: 256)
        try await sandbox.succeed(["edit", id, "--title", title])
        #expect(try await sandbox.idea(id).title == title)
    }

    @Test func eachEditIncrementsTheVersion() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("v0")
        for version in 1...3 {
            try await sandbox.succeed(["edit", id, "--title", "v\(version)"])
            #expect(try await sandbox.idea(id).version == version)
        }
    }
}
