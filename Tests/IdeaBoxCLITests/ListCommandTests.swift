import Foundation
import IdeaBoxFoundation
import IdeaModel
import ProcessTestSupport
import Testing

/// `ideabox list [--completed] [--json] [--limit N | --all]`.
@Suite(.takesTurns) struct ListCommandTests {
    /// Adds first, second (done), third and fourth (done), in that order, and returns them as stored.
    private func addFour(_ sandbox: Sandbox) async throws -> [Idea] {
        let ids = [
            try await sandbox.add("first"),
            try await sandbox.add("second", description: "two\nlines", done: true),
            try await sandbox.add("third 靈感"),
            try await sandbox.add("fourth 👍🏽", done: true),
        ]
        var ideas: [Idea] = []
        for id in ids { ideas.append(try await sandbox.idea(id)) }
        return ideas
    }

    @Test func emptyListPrintsNothing() async throws {
        let sandbox = try Sandbox()
        try await sandbox.launch()
        #expect(try await sandbox.succeed(["list"]) == "")
        #expect(try await sandbox.succeed(["list", "--completed"]) == "")
        #expect(try await sandbox.succeed(["list", "--json"]) == "[]\n")
    }

    @Test func newestFirst() async throws {
        let sandbox = try Sandbox()
        let ideas = try await addFour(sandbox)
        #expect(try await sandbox.succeed(["list"]) == Expected.lines(ideas.reversed()))
        let created = ideas.map(\.createdAt)
        #expect(created == created.sorted() && Set(created).count == created.count)
    }

    @Test func completedShowsOnlyDoneIdeasNewestFirst() async throws {
        let sandbox = try Sandbox()
        let ideas = try await addFour(sandbox)
        #expect(try await sandbox.succeed(["list", "--completed"]) == Expected.lines([ideas[3], ideas[1]]))
    }

    @Test func limitCapsTheListFromTheTop() async throws {
        let sandbox = try Sandbox()
        let ideas = try await addFour(sandbox)
        #expect(try await sandbox.succeed(["list", "--limit", "2"]) == Expected.lines([ideas[3], ideas[2]]))
        #expect(try await sandbox.succeed(["list", "--limit", "1", "--completed"]) == Expected.lines([ideas[3]]))
        #expect(try await sandbox.succeed(["list", "--limit", "100"]) == Expected.lines(ideas.reversed()))
    }

    @Test(arguments: [(["--limit=0"], "0"), (["--limit=-1"], "-1"), (["--limit", "-3"], "-3"), (["--limit", "0"], "0")])
    func limitBelowOneIsRefused(options: [String], value: String) async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(["list"] + options)
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr == "ideabox: --limit must be a positive number (1 or more), not \(value). (see `ideabox help`)\n")
        let chinese = try await sandbox.run(["list"] + options, environment: ["LANG": "zh_TW.UTF-8"])
        #expect(chinese.stderr == "ideabox: --limit 必須是正整數（1 以上），而不是 \(value)（請見 `ideabox help`）\n")
    }

    @Test func limitMustBeANumber() async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(["list", "--limit", "many"])
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("ideabox: "))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func jsonIsAnArrayOfEveryFieldNewestFirst() async throws {
        let sandbox = try Sandbox()
        let ideas = try await addFour(sandbox)
        let output = try await sandbox.succeed(["list", "--json"])

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

    @Test func jsonHonoursCompletedAndLimit() async throws {
        let sandbox = try Sandbox()
        let ideas = try await addFour(sandbox)
        #expect(try await sandbox.succeed(["list", "--json", "--completed"]) == Expected.jsonArray([ideas[3], ideas[1]]))
        #expect(try await sandbox.succeed(["list", "--json", "--limit", "1"]) == Expected.jsonArray([ideas[3]]))
    }

    @Test func aNewIdeaAppearsAtTheTopEvenWhenOthersWereEditedLater() async throws {
        let sandbox = try Sandbox()
        let old = try await sandbox.add("old")
        let middle = try await sandbox.add("middle")
        try await sandbox.succeed(["edit", old, "--title", "old, edited"])
        let new = try await sandbox.add("new")
        #expect(try await sandbox.succeed(["list"]) == """
            \(new.prefix(8))  [ ] new
            \(middle.prefix(8))  [ ] middle
            \(old.prefix(8))  [ ] old, edited

            """)
    }

    @Test func outsideATerminalTextIsAPageOf50TheRestNamedOnStandardErrorAndJSONIsWhole() async throws {
        let sandbox = try Sandbox()
        let ideas = (0..<60).map { index in
            Idea(
                id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index))!, title: "idea \(index)",
                createdAt: Timestamp(milliseconds: 1_790_000_000_000 + Int64(index) * 1000), deviceId: "test")
        }
        let export = try JSONEncoder().encode(ideas)
        try await sandbox.succeed(["import", "-"], input: export)
        let newestFirst = Array(ideas.reversed())

        let page = try await sandbox.run(["list"])
        #expect(page.status == 0)
        #expect(page.stdout == Expected.lines(Array(newestFirst.prefix(50))))
        #expect(page.stderr == "… more not shown: --all prints every one, --limit N that many.\n")
        let search = try await sandbox.run(["search", "idea"])
        #expect(search.stdout.split(separator: "\n").count == 50 && search.stderr.hasPrefix("… more not shown"))
        #expect(try await sandbox.succeed(["list", "--all"]) == Expected.lines(newestFirst))
        #expect(try await sandbox.succeed(["list", "--limit", "55"]) == Expected.lines(Array(newestFirst.prefix(55))))
        #expect(try await sandbox.ideas().count == 60)
        try await sandbox.expectRejection(["list", "--all", "--limit", "3"], message: "--all and --limit don't go together. (see `ideabox help`)")
    }
}

/// `ideabox list --sort created|updated|title [--reverse]`, in both binaries.
@Suite(.takesTurns) struct ListSortTests {
    static let binaries = ["ideabox", "ideabox-full"]

    private func run(_ sandbox: Sandbox, _ arguments: [String], binary: String) async throws -> CommandResult {
        let executable = try IdeaBoxBinary.url().deletingLastPathComponent().appendingPathComponent(binary)
        return try await IdeaBoxBinary.run(
            executable: executable, arguments: arguments, environment: sandbox.environment,
            currentDirectory: sandbox.directory, input: nil)
    }

    @Test(arguments: binaries)
    func eachOrderAndItsReverse(binary: String) async throws {
        let sandbox = try Sandbox()
        let banana = try await sandbox.add("banana")
        for (title, done) in [("Apple", true), ("茶", false), ("zebra 2", false), ("一 ant", false)] {
            _ = try await sandbox.add(title, done: done)
        }
        try await sandbox.succeed(["edit", banana, "-d", "changed last"])
        let titles = { (arguments: [String]) async throws -> [String] in
            let result = try await run(sandbox, ["list"] + arguments, binary: binary)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
            return result.stdout.split(separator: "\n").map { String($0.dropFirst(14)) }
        }
        #expect(try await titles([]) == ["一 ant", "zebra 2", "茶", "Apple", "banana"])
        #expect(try await titles(["--sort", "created"]) == ["一 ant", "zebra 2", "茶", "Apple", "banana"])
        #expect(try await titles(["--reverse"]) == ["banana", "Apple", "茶", "zebra 2", "一 ant"])
        #expect(try await titles(["--sort", "updated"]) == ["banana", "一 ant", "zebra 2", "茶", "Apple"])
        // Latin without case first, then Chinese by radical and strokes (一 before 茶).
        #expect(try await titles(["--sort", "title"]) == ["Apple", "banana", "zebra 2", "一 ant", "茶"])
        #expect(try await titles(["--sort", "title", "--reverse"]) == ["茶", "一 ant", "zebra 2", "banana", "Apple"])
        #expect(try await titles(["--sort", "title", "--completed"]) == ["Apple"])
        let json = try await run(sandbox, ["list", "--sort", "title", "--json"], binary: binary).stdout
        #expect(try JSONDecoder().decode([Idea].self, from: Data(json.utf8)).map(\.title) == ["Apple", "banana", "zebra 2", "一 ant", "茶"])
    }

    @Test(arguments: binaries)
    func anUnknownOrderIsOneClearErrorInEnglishOrChinese(binary: String) async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("x")
        let english = try await run(sandbox, ["list", "--sort", "size"], binary: binary)
        #expect(english.status != 0 && english.stdout.isEmpty)
        #expect(english.stderr == "ideabox: --sort must be created, updated or title, not \"size\". (see `ideabox help`)\n", "\(english)")
        let chinese = try await IdeaBoxBinary.run(
            executable: IdeaBoxBinary.url().deletingLastPathComponent().appendingPathComponent(binary),
            arguments: ["list", "--sort", "size"], environment: sandbox.environment.merging(["LANG": "zh_TW.UTF-8"]) { $1 },
            currentDirectory: sandbox.directory, input: nil)
        #expect(chinese.stderr == "ideabox: --sort 必須是 created、updated 或 title，而不是「size」（請見 `ideabox help`）\n", "\(chinese)")
    }
}
