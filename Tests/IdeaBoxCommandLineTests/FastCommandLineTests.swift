import ArgumentParser
import IdeaBoxCommandLine
import Testing

/// `FastCommandLine` reads only lines that ArgumentParser reads the same way, and reads the
/// everyday ones.
@Suite struct FastCommandLineTests {
    /// The root `ideabox` builds: the local commands under `ideabox`.
    struct Root: ParsableCommand {
        static let configuration = CommandLineMain.rootConfiguration(subcommands: LocalCommands.all)
        @OptionGroup var store: StoreOptions
    }

    /// What ArgumentParser makes of `arguments`, or nil if it refuses them.
    static func argumentParserReading(_ arguments: [String]) -> (LocalCommand, StoreSelection)? {
        guard let command = try? Root.parseAsRoot(arguments), let local = command as? any LocalSubcommand else { return nil }
        return (local.command, local.store.selection)
    }

    static let id = "6f1c2b3a-4d5e-4f60-8172-839405a6b7c8"

    @Test("The everyday lines are read without ArgumentParser, as ArgumentParser reads them", arguments: [
        ["add", "Buy milk"], ["add", "x", "--done"], ["add", "x", "--json"], ["add", "靈感 咖啡", "-d", "兩行\n描述", "--done", "--json"],
        ["add", "x", "--data-dir", "/tmp/a b", "--profile", "laptop", "--no-samples"],
        ["list"], ["list", "--completed", "--json"], ["list", "--limit", "5"], ["list", "--all"],
        ["list", "--sort", "title"], ["list", "--sort", "updated", "--reverse", "--completed"], ["list", "--reverse"],
        ["search", "garden"], ["search", "咖啡", "--limit", "20", "--json"], ["search", "", "--all"],
        ["show", id], ["show", "6f1c", "--json"], ["edit", id, "--title", "New"], ["edit", id, "--description", ""],
        ["edit", id], ["done", id], ["undone", id, "--json"], ["rm", id], ["export"], ["import", "ideas.json"],
        ["export", "--profile", "phone"], ["export", "--output", "ideas.json"], ["export", "-o", "backup/ideas.json", "--data-dir", "/d"],
        ["import", "ideas.json", "--dry-run"], ["import", "--skip-hand-edits", "ideas.json"],
        ["import", "ideas.json", "--skip-hand-edits", "--dry-run", "--profile", "phone"],
    ])
    func everydayLines(_ arguments: [String]) throws {
        let fast = try #require(FastCommandLine.parse(arguments))
        let slow = try #require(Self.argumentParserReading(arguments))
        #expect(fast.command == slow.0)
        #expect(fast.store == slow.1)
    }

    @Test("Help, mistakes and unusual spellings are left to ArgumentParser", arguments: [
        ["add"], ["add", "a", "b"], ["add", "--help"], ["add", "-h"], ["add", "x", "--description=y"], ["add", "x", "-d"],
        ["add", "x", "-d", "-y"], ["add", "-x"], ["add", "x", "--done", "--done"], ["add", "--", "-x"], ["list", "--limit", "0"],
        ["list", "--limit", "-1"], ["list", "--limit", "+5"], ["list", "--limit", "5", "--all"], ["list", "--bogus"],
        ["list", "--sort", "size"], ["list", "--sort"], ["list", "--reverse", "--reverse"],
        ["show"], ["export", "x"], ["export", "--output"], ["export", "-o", "a", "--output", "b"], ["import", "-"], ["help"], ["sync"], [], ["list", "--profile", "a", "--profile", "b"],
    ])
    func leftToArgumentParser(_ arguments: [String]) {
        #expect(FastCommandLine.parse(arguments) == nil)
    }

    @Test("On 4,000 random lines, every line read without ArgumentParser is read as ArgumentParser reads it")
    func randomLines() throws {
        let names = ["add", "list", "search", "show", "edit", "done", "undone", "rm", "export", "import"]
        let tokens = [
            "--json", "--done", "--completed", "--all", "--limit", "--title", "-d", "--description", "--data-dir", "--profile",
            "--no-samples", "3", "0", "-1", "x", "咖啡 靈感", "", " ", "-", "--", "-x", "--json=true", "--help", Self.id, "6f1c",
            "--sort", "title", "--reverse", "-o", "--output", "--dry-run", "--skip-hand-edits",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var readFast = 0
        for _ in 0..<4_000 {
            let arguments = [names[next(names.count)]] + (0..<next(6)).map { _ in tokens[next(tokens.count)] }
            guard let fast = FastCommandLine.parse(arguments) else { continue }
            readFast += 1
            let slow = try #require(Self.argumentParserReading(arguments), "ArgumentParser refuses \(arguments)")
            #expect(fast.command == slow.0, "\(arguments)")
            #expect(fast.store == slow.1, "\(arguments)")
        }
        #expect(readFast > 40)
    }
}
