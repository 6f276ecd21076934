import Foundation
import IdeaModel
import ProcessTestSupport
import Testing

/// `ideabox show ID [--json]`, and how every command taking an ID resolves it.
@Suite(.takesTurns) struct ShowCommandTests {
    /// The time a first launch stamped sample `prefix` with, read back, after checking that
    /// it is the time of the launch (the product spec's research decision Q3).
    private func stampedTime(of prefix: String, in sandbox: Sandbox, launchedBetween start: Date, and end: Date) async throws -> String {
        let idea = try await sandbox.idea(prefix)
        #expect(idea.createdAt == idea.updatedAt)
        let time = Date(timeIntervalSince1970: Double(idea.createdAt.milliseconds) / 1000)
        #expect(time >= start.addingTimeInterval(-1) && time <= end, "stamped at the first launch: \(idea.createdAt.iso8601)")
        return idea.createdAt.iso8601
    }

    @Test func textShowsEveryFieldOfASample() async throws {
        let sandbox = try Sandbox(samples: true)
        let start = Date()
        try await sandbox.launch()
        let shown = try await sandbox.succeed(["show", "1dea0001"])
        let time = try await stampedTime(of: "1dea0001", in: sandbox, launchedBetween: start, and: Date())
        #expect(shown == """
            id: 1dea0001-5a3e-4000-8000-5a3e1dea5a3e
            title: Learn SwiftData
            completed: no
            created: \(time)
            updated: \(time)
            device: the samples
            version: 0
            last synced: never
            description:
              Work through the persistence guide and move the app's in-memory list onto a real store.

            """)
    }

    @Test func textIsLabelledInTraditionalChineseUnderZhTW() async throws {
        let sandbox = try Sandbox(samples: true, language: "zh_TW.UTF-8")
        let start = Date()
        try await sandbox.launch()
        let shown = try await sandbox.succeed(["show", "1dea0005"])
        let time = try await stampedTime(of: "1dea0005", in: sandbox, launchedBetween: start, and: Date())
        #expect(shown == """
            識別碼: 1dea0005-5a3e-4000-8000-5a3e1dea5a3e
            標題: 寫一篇關於 CloudKit 同步的文章
            已完成: 是
            建立時間: \(time)
            更新時間: \(time)
            裝置: 範例
            版本: 0
            上次同步: 從未
            描述:
              變更權杖、衝突處理，以及「最後寫入獲勝」對使用者的意義。

            """)
    }

    @Test func jsonShowsEveryFieldOfASample() async throws {
        let sandbox = try Sandbox(samples: true)
        let start = Date()
        try await sandbox.launch()
        let shown = try await sandbox.succeed(["show", "1dea0002", "--json"])
        let time = try await stampedTime(of: "1dea0002", in: sandbox, launchedBetween: start, and: Date())
        #expect(shown == """
            {
              "createdAt" : "\(time)",
              "description" : "Redo the tab bar and the cards with the new materials.",
              "deviceId" : "sample-en",
              "id" : "1dea0002-5a3e-4000-8000-5a3e1dea5a3e",
              "isCompleted" : true,
              "lastSyncedAt" : null,
              "title" : "Finish the Liquid Glass tutorial",
              "updatedAt" : "\(time)",
              "version" : 0
            }

            """)
    }

    @Test func textIndentsEachLineOfAMultiLineDescription() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Plan", description: "first\n\n  indented\nlast")
        let idea = try await sandbox.idea(id)
        let expected = [
            "id: \(id)",
            "title: Plan",
            "completed: no",
            "created: \(idea.createdAt.iso8601)",
            "updated: \(idea.createdAt.iso8601)",
            "device: this device",
            "version: 0",
            "last synced: never",
            "description:",
            "  first",
            "  ",
            "    indented",
            "  last",
        ]
        #expect(try await sandbox.succeed(["show", id]) == expected.map { $0 + "\n" }.joined())
    }

    @Test func jsonOfAnAddedIdeaMatchesWhatAddPrinted() async throws {
        let sandbox = try Sandbox()
        let added = try await sandbox.succeed(["add", "靈感 👩‍👩‍👧‍👦", "-d", "tab\there \"quoted\" back\\slash /path", "--json"])
        let idea = try JSONDecoder().decode(Idea.self, from: Data(added.utf8))
        #expect(try await sandbox.succeed(["show", idea.idString, "--json"]) == added)
        #expect(added == Expected.json(idea) + "\n")
    }

    @Test(arguments: ["whole", "short", "upper", "oneCharacter", "spaces"])
    func findsAnIdeaByAUniquePrefix(form: String) async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.launch()
        let id = "1dea0004-5a3e-4000-8000-5a3e1dea5a3e"
        let text = switch form {
        case "whole": id
        case "short": "1dea0004"
        case "upper": "1DEA0004-5A3E"
        case "oneCharacter": try await uniqueOneCharacterPrefix(sandbox)
        default: " 1dea0004 "
        }
        let expectedId = form == "oneCharacter" ? try await sandbox.ideas().first { $0.idString.hasPrefix(text) }!.idString : id
        #expect(try await sandbox.idea(text).idString == expectedId)
    }

    /// A hexadecimal digit that starts exactly one id, after adding ideas until there is one.
    private func uniqueOneCharacterPrefix(_ sandbox: Sandbox) async throws -> String {
        for _ in 0..<40 {
            let id = try await sandbox.add("random id")
            let first = String(id.prefix(1))
            if try await sandbox.ideas().filter({ $0.idString.hasPrefix(first) }).count == 1 { return first }
            try await sandbox.succeed(["rm", id])
        }
        Issue.record("no unique one-character prefix after 40 tries")
        return "1"
    }

    static let idCommands: [[String]] = [
        ["show"], ["show", "--json"], ["edit", "--title", "x"], ["done"], ["undone"], ["rm"],
    ]

    @Test(arguments: idCommands)
    func anAmbiguousPrefixIsRefused(command: [String]) async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.launch()
        let before = try await sandbox.succeed(["export"])
        try await sandbox.expectRejection(
            withId("1dea", command), message: "The id \"1dea\" matches 7 ideas; type more of it.")
        try await sandbox.expectRejection(
            withId("1DEA000", command), message: "The id \"1DEA000\" matches 7 ideas; type more of it.")
        try await sandbox.expectRejection(
            withId("1dea", command), message: "識別碼「1dea」符合 7 筆靈感，請輸入更多字元",
            environment: ["LANG": "zh_TW.UTF-8"])
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    @Test(arguments: idCommands)
    func anUnknownIdIsRefused(command: [String]) async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.launch()
        let before = try await sandbox.succeed(["export"])
        try await sandbox.expectRejection(withId("ffff", command), message: "No idea has the id \"ffff\".")
        try await sandbox.expectRejection(
            withId("1dea0008-5a3e-4000-8000-5a3e1dea5a3e", command),
            message: "No idea has the id \"1dea0008-5a3e-4000-8000-5a3e1dea5a3e\".")
        try await sandbox.expectRejection(
            withId("ffff", command), message: "找不到識別碼為「ffff」的靈感", environment: ["LANG": "zh_TW.UTF-8"])
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    @Test(arguments: idCommands)
    func aMalformedIdIsRefused(command: [String]) async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.launch()
        let before = try await sandbox.succeed(["export"])
        for text in ["xyz", "1dea*", "1dea?", "", "1dea0001-5a3e-4000-8000-5a3e1dea5a3e0", "靈感"] {
            try await sandbox.expectRejection(
                withId(text, command),
                message: "\"\(text)\" is not an idea id: use hexadecimal digits and dashes, as `ideabox list` shows them.")
        }
        try await sandbox.expectRejection(
            withId("xyz", command), message: "「xyz」不是靈感識別碼：請使用 `ideabox list` 顯示的十六進位字元與連字號",
            environment: ["LANG": "zh_TW.UTF-8"])
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    /// `command` with `id` as its argument, right after the subcommand name.
    private func withId(_ id: String, _ command: [String]) -> [String] {
        [command[0], id] + command.dropFirst()
    }
}
