import Foundation
import ProcessTestSupport
import Testing

/// `ideabox edit ID` and `ideabox add` with nothing to say what, on a terminal: the idea in
/// `$EDITOR`, as `git commit` does. The terminal is a pty made by `script`; `$EDITOR` is a
/// shell script standing in for a person. Both binaries behave the same.
@Suite(.takesTurns) struct EditorCommandTests {
    static let binaries = ["ideabox", "ideabox-full"]

    /// Runs `ideabox arguments…` (or `ideabox-full`) on a pty, with `EDITOR` set to a script
    /// whose body is `editor` (the file is `$1`).
    private func onTerminal(
        _ sandbox: Sandbox, _ arguments: [String], binary: String = "ideabox", editor: String,
        environment changes: [String: String] = [:]
    ) async throws -> CommandResult {
        let script = try Self.shellScript(sandbox, "editor", editor)
        let executable = try IdeaBoxBinary.url().deletingLastPathComponent().appendingPathComponent(binary).path
        let line = ([executable] + arguments).map { "'\($0)'" }.joined(separator: " ")
        var environment = sandbox.environment.merging(["EDITOR": script, "TERM": "xterm"]) { $1 }
        environment.merge(changes) { $1 }
        return try await IdeaBoxBinary.run(
            executable: URL(fileURLWithPath: "/usr/bin/script"), arguments: ["-qec", line, "/dev/null"],
            environment: environment, currentDirectory: sandbox.directory, input: nil)
    }

    /// The command that runs a shell script with `body` (the file is `$1`): `/bin/sh FILE`, so
    /// that the script is read, not executed. A script just written cannot be executed while a
    /// program another suite is starting still holds a copy of this process's descriptor of
    /// it ("Text file busy"); reading it is always allowed.
    static func shellScript(_ sandbox: Sandbox, _ name: String, _ body: String) throws -> String {
        "/bin/sh " + (try sandbox.file("\(name)-\(UUID().uuidString).sh", body + "\n"))
    }

    @Test(arguments: binaries)
    func editAloneOpensTheIdeaAsTitleBlankLineDescriptionAndSavesTheChange(binary: String) async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Old title", description: "old\ndescription")
        let seen = sandbox.directory.appendingPathComponent("seen.txt").path
        let result = try await onTerminal(sandbox, ["edit", String(id.prefix(8))], binary: binary, editor: """
            cp "$1" '\(seen)'
            ls -l "$1" | cut -c1-10 >> '\(seen)'
            printf 'New 標題\\n\\nnew\\ndescription\\n' > "$1"
            """)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains(id), "prints the id as edit does: \(result)")
        #expect(try String(contentsOfFile: seen, encoding: .utf8) == "Old title\n\nold\ndescription\n-rw-------\n")
        let idea = try await sandbox.idea(id)
        #expect(idea.title == "New 標題" && idea.description == "new\ndescription" && idea.version == 1)
    }

    @Test(arguments: binaries)
    func anEditorThatFailsChangesNothingAndSaysSo(binary: String) async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Keep", description: "me")
        let before = try await sandbox.succeed(["export"])
        let result = try await onTerminal(sandbox, ["edit", id], binary: binary, editor: "printf 'Changed\\n' > \"$1\"; exit 3")
        #expect(result.status != 0)
        #expect(result.stdout.contains("Nothing changed: the editor ("), "\(result)")
        #expect(result.stdout.contains(") exited with status 3."), "\(result)")
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    @Test func aFileLeftUnchangedChangesNothingAndSaysSoInChinese() async throws {
        let sandbox = try Sandbox(language: "zh_TW.UTF-8")
        let id = try await sandbox.add("不動", description: "原樣")
        let before = try await sandbox.succeed(["export"])
        let result = try await onTerminal(sandbox, ["edit", id], editor: "true")
        #expect(result.status != 0)
        #expect(result.stdout.contains("沒有變更：編輯器沒有改動內容"), "\(result)")
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    @Test func aTitleTheRulesRefuseIsKeptInAFileAndNothingIsSaved() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Fine")
        let before = try await sandbox.succeed(["export"])
        let result = try await onTerminal(sandbox, ["edit", id], editor: "printf '\\n\\nonly a description\\n' > \"$1\"")
        #expect(result.status != 0)
        #expect(result.stdout.contains("The title can't be empty. Nothing was saved; your text is kept in "), "\(result)")
        let path = try #require(result.stdout.split(separator: "kept in ").last?.split(separator: ".txt").first).description + ".txt"
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "\n\nonly a description\n")
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect(try await sandbox.succeed(["export"]) == before)
    }

    @Test(arguments: binaries)
    func addWithoutATitleOnATerminalWritesTheIdeaInTheEditor(binary: String) async throws {
        let sandbox = try Sandbox(samples: true)
        let result = try await onTerminal(sandbox, ["add", "--done"], binary: binary, editor: """
            test -s "$1" && exit 9
            printf 'From the editor\\n\\nwith a description\\n' > "$1"
            """)
        #expect(result.status == 0, "\(result)")
        let ideas = try await sandbox.ideas()
        #expect(ideas.count == 1, "a first command that adds seeds no samples")
        #expect(ideas.first?.title == "From the editor" && ideas.first?.description == "with a description")
        #expect(ideas.first?.isCompleted == true)
    }

    @Test func addLeftEmptyAddsNothing() async throws {
        let sandbox = try Sandbox()
        let result = try await onTerminal(sandbox, ["add"], editor: "true")
        #expect(result.status != 0)
        #expect(result.stdout.contains("Nothing added: the editor left the text as it was."), "\(result)")
    }

    /// A config file under a new XDG_CONFIG_HOME in `sandbox` holding `text`; its folder.
    private func configHome(_ text: String, in sandbox: Sandbox) throws -> String {
        let home = sandbox.directory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("ideabox"), withIntermediateDirectories: true)
        try text.write(to: home.appendingPathComponent("ideabox/config.toml"), atomically: true, encoding: .utf8)
        return home.path
    }

    /// The config file's editor comes before $VISUAL and $EDITOR, as docs/app.md says and as the
    /// app does; `ideabox`, which reads no TOML, hands the command to `ideabox-full`.
    @Test(arguments: binaries)
    func editUsesTheConfigFilesEditorBeforeEDITOR(binary: String) async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Old title")
        let configured = try Self.shellScript(sandbox, "configured", "printf 'From the config\\n' > \"$1\"")
        let home = try configHome("editor = \"\(configured)\"\n", in: sandbox)
        let result = try await onTerminal(
            sandbox, ["edit", id], binary: binary, editor: "exit 7", environment: ["XDG_CONFIG_HOME": home, "VISUAL": "false"])
        #expect(result.status == 0, "\(result)")
        #expect(try await sandbox.idea(id).title == "From the config")
    }

    @Test func addWithoutATitleUsesTheConfigFilesEditor() async throws {
        let sandbox = try Sandbox()
        let configured = try Self.shellScript(sandbox, "configured", "printf 'Added by the config\\n' > \"$1\"")
        let home = try configHome("editor = \"\(configured)\"\n", in: sandbox)
        let result = try await onTerminal(sandbox, ["add"], editor: "exit 7", environment: ["XDG_CONFIG_HOME": home])
        #expect(result.status == 0, "\(result)")
        #expect(try await sandbox.ideas().map(\.title) == ["Added by the config"])
    }

    /// A config file with a problem is the defaults whole, as in the app: $EDITOR it is.
    @Test func aConfigFileWithAProblemLeavesTheEditorToTheEnvironment() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Old title")
        let home = try configHome("editor = \"exit 5\"\nmouse = 3\n", in: sandbox)
        let result = try await onTerminal(
            sandbox, ["edit", id], editor: "printf 'From EDITOR\\n' > \"$1\"", environment: ["XDG_CONFIG_HOME": home])
        #expect(result.status == 0, "\(result)")
        #expect(try await sandbox.idea(id).title == "From EDITOR")
    }

    @Test func withoutATerminalAddWantsATitleAndEditWantsAChange() async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(
            ["add"], message: "A title is needed: ideabox add TITLE (on a terminal, `ideabox add` alone opens $EDITOR).")
        try await sandbox.expectRejection(
            ["add"], message: "需要標題：ideabox add 標題（在終端機中，只寫 `ideabox add` 會開啟 $EDITOR）",
            environment: ["LANG": "zh_TW.UTF-8"])
    }
}
