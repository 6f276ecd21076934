import Foundation
import IdeaBoxFoundation
import IdeaModel
import Testing

/// `ideabox list [--completed] [--json] [--limit N | --all]`.
@Suite struct ListCommandTests {
    /// Adds first, second (done), third and fourth (done), in that order, and returns them as stored.
    private func addFour(_ sandbox: Sandbox) throws -> [Idea] {
        let ids = [
            try sandbox.add("first"),
            try sandbox.add("second", description: "two\nlines", done: true),
            try sandbox.add("third 靈感"),
            try sandbox.add("fourth 👍🏽", done: true),
        ]
        return try ids.map { try sandbox.idea($0) }
    }

    @Test func emptyListPrintsNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.launch()
        #expect(try sandbox.succeed(["list"]) == "")
        #expect(try sandbox.succeed(["list", "--completed"]) == "")
        #expect(try sandbox.succeed(["list", "--json"]) == "[]\n")
    }

    @Test func newestFirst() throws {
        let sandbox = try Sandbox()
        let ideas = try addFour(sandbox)
        #expect(try sandbox.succeed(["list"]) == Expected.lines(ideas.reversed()))
        let created = ideas.map(\.createdAt)
        #expect(created == created.sorted() && Set(created).count == created.count)
    }

    @Test func completedShowsOnlyDoneIdeasNewestFirst() throws {
        let sandbox = try Sandbox()
        let ideas = try addFour(sandbox)
        #expect(try sandbox.succeed(["list", "--completed"]) == Expected.lines([ideas[3], ideas[1]]))
    }

    @Test func limitCapsTheListFromTheTop() throws {
        let sandbox = try Sandbox()
        let ideas = try addFour(sandbox)
        #expect(try sandbox.succeed(["list", "--limit", "2"]) == Expected.lines([ideas[3], ideas[2]]))
        #expect(try sandbox.succeed(["list", "--limit", "1", "--completed"]) == Expected.lines([ideas[3]]))
        #expect(try sandbox.succeed(["list", "--limit", "100"]) == Expected.lines(ideas.reversed()))
    }

    @Test(arguments: [(["--limit=0"], "0"), (["--limit=-1"], "-1"), (["--limit", "-3"], "-3"), (["--limit", "0"], "0")])
    func limitBelowOneIsRefused(options: [String], value: String) throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["list"] + options)
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr == "ideabox: --limit must be a positive number (1 or more), not \(value). (see `ideabox help`)\n")
        let chinese = try sandbox.run(["list"] + options, environment: ["LANG": "zh_TW.UTF-8"])
        #expect(chinese.stderr == "ideabox: --limit 必須是正整數（1 以上），而不是 \(value)（請見 `ideabox help`）\n")
    }

    @Test func limitMustBeANumber() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["list", "--limit", "many"])
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("ideabox: "))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func jsonIsAnArrayOfEveryFieldNewestFirst() throws {
        let sandbox = try Sandbox()
        let ideas = try addFour(sandbox)
        let output = try sandbox.succeed(["list", "--json"])

        let array = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(array.count == 4)
        for object in array {
            #expect(Set(object.keys) == [
                "id", "title", "description", "isCompleted", "createdAt", "updatedAt", "deviceId", "version", "lastSyncedAt",
            ])
        }
        #expect(try JSONDecoder().decode([Idea].self, from: Data(output.utf8)) == ideas.reversed())
        #expect(output == Expected.jsonArray(ideas.reversed()))
    }

    @Test func jsonHonoursCompletedAndLimit() throws {
        let sandbox = try Sandbox()
        let ideas = try addFour(sandbox)
        #expect(try sandbox.succeed(["list", "--json", "--completed"]) == Expected.jsonArray([ideas[3], ideas[1]]))
        #expect(try sandbox.succeed(["list", "--json", "--limit", "1"]) == Expected.jsonArray([ideas[3]]))
    }

    @Test func aNewIdeaAppearsAtTheTopEvenWhenOthersWereEditedLater() throws {
        let sandbox = try Sandbox()
        let old = try sandbox.add("old")
        let middle = try sandbox.add("middle")
        try sandbox.succeed(["edit", old, "--title", "old, edited"])
        let new = try sandbox.add("new")
        #expect(try sandbox.succeed(["list"]) == """
            \(new.prefix(8))  [ ] new
            \(middle.prefix(8))  [ ] middle
            \(old.prefix(8))  [ ] old, edited

            """)
    }

    @Test func outsideATerminalTextIsAPageOf50TheRestNamedOnStandardErrorAndJSONIsWhole() throws {
        let sandbox = try Sandbox()
        let ideas = (0..<60).map { index in
            Idea(
                id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index))!, title: "idea \(index)",
                createdAt: Timestamp(milliseconds: 1_790_000_000_000 + Int64(index) * 1000), deviceId: "test")
        }
        let export = try JSONEncoder().encode(ideas)
        try sandbox.succeed(["import", "-"], input: export)
        let newestFirst = Array(ideas.reversed())

        let page = try sandbox.run(["list"])
        #expect(page.status == 0)
        #expect(page.stdout == Expected.lines(Array(newestFirst.prefix(50))))
        #expect(page.stderr == "… more not shown: --all prints every one, --limit N that many.\n")
        let search = try sandbox.run(["search", "idea"])
        #expect(search.stdout.split(separator: "\n").count == 50 && search.stderr.hasPrefix("… more not shown"))
        #expect(try sandbox.succeed(["list", "--all"]) == Expected.lines(newestFirst))
        #expect(try sandbox.succeed(["list", "--limit", "55"]) == Expected.lines(Array(newestFirst.prefix(55))))
        #expect(try sandbox.ideas().count == 60)
        try sandbox.expectRejection(["list", "--all", "--limit", "3"], message: "--all and --limit don't go together. (see `ideabox help`)")
    }
}
