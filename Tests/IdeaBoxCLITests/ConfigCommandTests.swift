import Foundation
import ProcessTestSupport
import Testing

/// `ideabox config path|show|check`, through `ideabox` (which hands it to `ideabox-full`)
/// and through `ideabox-full` itself.
@Suite(.takesTurns) struct ConfigCommandTests {
    /// Both binaries: `ideabox` and the `ideabox-full` beside it.
    static let binaries = ["ideabox", "ideabox-full"]

    private func run(_ binary: String, _ arguments: [String], in sandbox: Sandbox, configHome: URL) async throws -> CommandResult {
        var environment = sandbox.environment
        environment["XDG_CONFIG_HOME"] = configHome.path
        let executable = try IdeaBoxBinary.url().deletingLastPathComponent().appendingPathComponent(binary)
        return try await IdeaBoxBinary.run(
            executable: executable, arguments: arguments, environment: environment, currentDirectory: sandbox.directory, input: nil)
    }

    private func write(_ text: String, in sandbox: Sandbox) throws -> URL {
        let home = sandbox.directory.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("ideabox"), withIntermediateDirectories: true)
        try text.write(to: home.appendingPathComponent("ideabox/config.toml"), atomically: true, encoding: .utf8)
        return home
    }

    @Test(arguments: binaries)
    func pathNamesTheFileUnderXDGConfigHomeElseHome(binary: String) async throws {
        let sandbox = try Sandbox()
        let home = sandbox.directory.appendingPathComponent("config")
        let result = try await run(binary, ["config", "path"], in: sandbox, configHome: home)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        #expect(result.stdout == home.path + "/ideabox/config.toml\n")
        #expect(try await sandbox.succeed(["config", "path"]) == sandbox.home.path + "/.config/ideabox/config.toml\n")
    }

    @Test(arguments: binaries)
    func showPrintsTheSettingsInEffect(binary: String) async throws {
        let sandbox = try Sandbox()
        let home = try write("theme = \"light\"\n[keys]\ncopy = \"c\"\n", in: sandbox)
        let result = try await run(binary, ["config", "show"], in: sandbox, configHome: home)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "# from \(home.path)/ideabox/config.toml")
        #expect(lines.contains("theme = \"light\""))
        #expect(lines.contains("accent = \"blue\""))
        #expect(lines.contains("copy = [\"c\"]"))
        #expect(lines.contains("open-link = [\"g x\"]"))
        #expect(lines.contains("sort = \"created\""))
    }

    @Test(arguments: binaries)
    func checkListsEveryProblemWithItsLineAndFails(binary: String) async throws {
        let sandbox = try Sandbox()
        let home = try write("sort = \"newest\"\nshade = 1\n[keys]\ndelete = \"x\"\n", in: sandbox)
        let result = try await run(binary, ["config", "check"], in: sandbox, configHome: home)
        let file = home.path + "/ideabox/config.toml"
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr == """
            \(file): line 1: sort must be "created", "updated", "title", not "newest"
            \(file): line 2: no setting named “shade”
            \(file): line 4: “x” is bound to both toggle-done and delete

            """)
        let show = try await run(binary, ["config", "show"], in: sandbox, configHome: home)
        #expect(show.stdout.hasPrefix("# \(file) has problems (ideabox config check): the defaults\n"))
        #expect(show.stdout.contains("sort = \"created\""))
    }

    /// Each context's keys are checked on their own: the same key in [keys] and [form-keys]
    /// is fine, two actions of one table on one key are a clash at its line.
    @Test func checkReportsClashesInTheFormAndSearchFieldTablesWithTheirLines() async throws {
        let sandbox = try Sandbox()
        let home = try write("""
            [keys]
            copy = "ctrl-o"
            [form-keys]
            save = "ctrl-o"
            next-field = "ctrl-x"

            [search-keys]
            leave = "tab"
            results = "z"

            """, in: sandbox)
        let result = try await run("ideabox", ["config", "check"], in: sandbox, configHome: home)
        let file = home.path + "/ideabox/config.toml"
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == """
            \(file): line 5: “ctrl-x ctrl-e” is bound to both next-field and open-in-editor
            \(file): line 9: “z” (for results in [search-keys]) would no longer type: use ctrl-, f1…f12 or a named key

            """)
        let show = try await run("ideabox", ["config", "show"], in: sandbox, configHome: home)
        #expect(show.stdout.contains("[form-keys]\nsave = [\"ctrl-s\", \"f2\"]"), "a file with a problem: the defaults")
    }

    @Test func checkOfAGoodFileOrNoneSaysSoInEnglishAndChinese() async throws {
        let sandbox = try Sandbox()
        let home = sandbox.directory.appendingPathComponent("config")
        let none = try await run("ideabox", ["config", "check"], in: sandbox, configHome: home)
        #expect(none.status == 0)
        #expect(none.stdout == "No config file at \(home.path)/ideabox/config.toml: the defaults are in effect.\n")
        _ = try write("mouse = false\n", in: sandbox)
        let good = try await run("ideabox", ["config", "check"], in: sandbox, configHome: home)
        #expect(good.stdout == "\(home.path)/ideabox/config.toml: no problems.\n")
        let chinese = try Sandbox(language: "zh_TW.UTF-8")
        let broken = try write("mouse = \n", in: chinese)
        let result = try await run("ideabox", ["config", "check"], in: chinese, configHome: broken)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(broken.path)/ideabox/config.toml: 第 1 行：不是有效的 TOML："), "\(result)")
    }
}
