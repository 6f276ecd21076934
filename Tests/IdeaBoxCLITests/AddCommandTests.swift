import Foundation
import IdeaBoxFoundation
import IdeaModel
import ProcessTestSupport
import Testing

/// `ideabox add TITLE [-d TEXT] [--done] [--json]`.
@Suite(.takesTurns) struct AddCommandTests {
    /// Grapheme clusters of several code points each: skin tones, a ZWJ family, a flag, a keycap.
    static let emoji = ["👍🏽", "👋🏻", "🧑🏿‍💻", "👩‍👩‍👧‍👦", "🇹🇼", "1️⃣", "🤌🏼"]

    static func emojiTitle(count: Int) -> String {
        (0..<count).map { emoji[$0 % emoji.count] }.joined()
    }

    @Test func printsTheNewIdOnlyAndTheIdeaIsListed() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Buy a notebook")
        #expect(try await sandbox.succeed(["list"]) == "\(id.prefix(8))  [ ] Buy a notebook\n")
        #expect(try await sandbox.idea(id).idString == id)
    }

    @Test func jsonPrintsEveryField() async throws {
        let sandbox = try Sandbox()
        let before = Timestamp(Date())
        let output = try await sandbox.succeed(["add", "  Write \"the\" 靈感 👍🏽  ", "-d", "first line\n\tsecond line", "--done", "--json"])
        let after = Timestamp(Date())

        let object = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(Set(object.keys) == [
            "id", "title", "description", "isCompleted", "createdAt", "updatedAt", "deviceId", "version", "lastSyncedAt",
        ])
        #expect(object["lastSyncedAt"] is NSNull)

        let idea = try JSONDecoder().decode(Idea.self, from: Data(output.utf8))
        #expect(idea.title == "Write \"the\" 靈感 👍🏽")
        #expect(idea.description == "first line\n\tsecond line")
        #expect(idea.isCompleted)
        #expect(idea.version == 0)
        #expect(idea.lastSyncedAt == nil)
        #expect(idea.createdAt == idea.updatedAt)
        #expect(before <= idea.createdAt && idea.createdAt <= after)
        #expect(!idea.deviceId.isEmpty)
        #expect(output == Expected.json(idea) + "\n")
        #expect(try await sandbox.succeed(["show", idea.idString, "--json"]) == output)
    }

    @Test func everyAddOfOneProfileHasTheSameDeviceId() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.idea(try sandbox.add("one"))
        let second = try await sandbox.idea(try sandbox.add("two"))
        #expect(first.deviceId == second.deviceId)
        #expect(first.id != second.id)
    }

    @Test func titleIsTrimmedOfSpacesIncludingTheIdeographicSpace() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("\u{3000}  靈感  \u{3000}")
        #expect(try await sandbox.idea(id).title == "靈感")
    }

    @Test func descriptionLineBreaksBecomeNewlines() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Line breaks", description: "a\r\nb\rc\nd")
        #expect(try await sandbox.idea(id).description == "a\nb\nc\nd")
    }

    @Test func twoHundredFiftySixChineseCharactersAreAccepted() async throws {
        let sandbox = try Sandbox()
        let title = String(repeating: "靈", count: 256)
        let id = try await sandbox.add(title)
        #expect(try await sandbox.idea(id).title == title)
    }

    @Test func twoHundredFiftySevenChineseCharactersAreRefused() async throws {
        let sandbox = try Sandbox()
        try await expectRefusalWritesNothing(sandbox, ["add", String(repeating: "靈", count: 257)],
                                       message: "The title is 257 characters long; the limit is 256.")
    }

    @Test func twoHundredFiftySixEmojiWithSkinTonesAreAccepted() async throws {
        let sandbox = try Sandbox()
        let title = Self.emojiTitle(count: 256)
        #expect(title.count == 256 && title.unicodeScalars.count > 512)
        let id = try await sandbox.add(title)
        #expect(try await sandbox.idea(id).title == title)
    }

    @Test func twoHundredFiftySevenEmojiWithSkinTonesAreRefused() async throws {
        let sandbox = try Sandbox()
        try await expectRefusalWritesNothing(sandbox, ["add", Self.emojiTitle(count: 257)],
                                       message: "The title is 257 characters long; the limit is 256.")
    }

    @Test(arguments: [
        ("", "The title can't be empty."),
        ("   ", "The title can't be empty."),
        ("\u{3000}\u{3000}", "The title can't be empty."),
        ("two\nlines", "The title must be one line, without newlines or control characters."),
        ("trailing newline\n", "The title must be one line, without newlines or control characters."),
        ("\n", "The title must be one line, without newlines or control characters."),
        ("a\tb", "The title must be one line, without newlines or control characters."),
        ("bell\u{07}", "The title must be one line, without newlines or control characters."),
        ("esc\u{1B}[31m", "The title must be one line, without newlines or control characters."),
        ("line\u{2028}separator", "The title must be one line, without newlines or control characters."),
    ])
    func invalidTitlesAreRefused(title: String, message: String) async throws {
        let sandbox = try Sandbox()
        try await expectRefusalWritesNothing(sandbox, ["add", title], message: message)
    }

    @Test func descriptionOf4096CharactersIsAccepted() async throws {
        let sandbox = try Sandbox()
        let description = String(String(repeating: "靈感👍🏽\n", count: 1024).prefix(4096))
        #expect(description.count == 4096)
        let id = try await sandbox.add("Long", description: description)
        #expect(try await sandbox.idea(id).description == description)
    }

    @Test func descriptionOf4097CharactersIsRefused() async throws {
        let sandbox = try Sandbox()
        try await expectRefusalWritesNothing(sandbox, ["add", "Long", "-d", String(repeating: "a", count: 4097)],
                                       message: "The description is 4097 characters long; the limit is 4096.")
    }

    @Test func descriptionWithAControlCharacterIsRefused() async throws {
        let sandbox = try Sandbox()
        try await expectRefusalWritesNothing(sandbox, ["add", "Bell", "--description", "ding\u{07}"],
                                       message: "The description may hold newlines and tabs, but no other control characters.")
    }

    @Test(arguments: [
        (["add", ""], "靈感標題不能為空"),
        (["add", String(repeating: "靈", count: 257)], "靈感標題超過 256 字限制（目前 257 字）"),
        (["add", "a\nb"], "靈感標題必須是單行，不能包含換行或控制字元"),
        (["add", "x", "-d", String(repeating: "字", count: 4097)], "靈感描述超過 4096 字限制（目前 4097 字）"),
    ])
    func refusalsAreInTraditionalChineseUnderZhTW(arguments: [String], message: String) async throws {
        let sandbox = try Sandbox(language: "zh_TW.UTF-8")
        try await expectRefusalWritesNothing(sandbox, arguments, message: message)
    }

    @Test func lcAllWinsOverLang() async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(["add", " "], message: "靈感標題不能為空", environment: ["LC_ALL": "zh_TW.UTF-8"])
        try await sandbox.expectRejection(["add", " "], message: "The title can't be empty.",
                                    environment: ["LC_ALL": "en_US.UTF-8", "LANG": "zh_TW.UTF-8"])
    }

    @Test func doneFlagAddsACompletedIdea() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Already done", done: true)
        #expect(try await sandbox.idea(id).isCompleted)
        #expect(try await sandbox.succeed(["list", "--completed"]) == "\(id.prefix(8))  [x] Already done\n")
    }

    /// Where no editor can run (not a terminal), a title is needed.
    @Test func missingTitleIsRefusedOffATerminal() async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(["add"])
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr == "ideabox: A title is needed: ideabox add TITLE (on a terminal, `ideabox add` alone opens $EDITOR).\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.databaseFile().path))
    }

    /// A refused command prints one line, exits non-zero and leaves the list exactly as it was.
    private func expectRefusalWritesNothing(
        _ sandbox: Sandbox, _ arguments: [String], message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let existing = try await sandbox.add("Existing idea", description: "kept", sourceLocation: sourceLocation)
        let before = try await sandbox.succeed(["export"], sourceLocation: sourceLocation)
        try await sandbox.expectRejection(arguments, message: message, sourceLocation: sourceLocation)
        #expect(try await sandbox.succeed(["export"], sourceLocation: sourceLocation) == before, sourceLocation: sourceLocation)
        #expect(try await sandbox.succeed(["list"], sourceLocation: sourceLocation) == "\(existing.prefix(8))  [ ] Existing idea\n",
                sourceLocation: sourceLocation)
    }
}
