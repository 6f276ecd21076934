import Foundation
import ProcessTestSupport
import Testing

/// `ideabox --version` / `-V`, `ideabox help`, and what `--generate-completion-script` prints,
/// from both binaries.
@Suite struct VersionAndHelpTests {
    /// `ideabox-full`, beside `ideabox`.
    private static func fullBinary() throws -> URL {
        try IdeaBoxBinary.url().deletingLastPathComponent().appendingPathComponent("ideabox-full")
    }

    /// Runs `binary` (default `ideabox`) in `sandbox`.
    private static func run(_ sandbox: Sandbox, _ arguments: [String], binary: URL? = nil) throws -> CommandResult {
        try IdeaBoxBinary.run(
            executable: binary ?? IdeaBoxBinary.url(), arguments: arguments, environment: sandbox.environment,
            currentDirectory: sandbox.directory, input: nil)
    }

    @Test(arguments: ["--version", "-V"])
    func versionNamesTheReleaseAndTheCommitFromBothBinaries(option: String) throws {
        let sandbox = try Sandbox()
        let fast = try Self.run(sandbox, [option])
        #expect(fast.status == 0 && fast.stderr == "")
        #expect(fast.stdout.wholeMatch(of: /ideabox \d+\.\d+\.\d+ \(([0-9a-f]{7,}|unknown)\)\n/) != nil, "\(fast)")
        let full = try Self.run(sandbox, [option], binary: Self.fullBinary())
        #expect(full.status == 0 && full.stderr == "")
        #expect(full.stdout == fast.stdout)
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path), "asking the version opens no database")
    }

    @Test(arguments: [["help"], ["--help"]])
    func helpSaysThatNoSubcommandOpensTheApp(arguments: [String]) throws {
        let sandbox = try Sandbox()
        let result = try Self.run(sandbox, arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Run `ideabox` with no subcommand to open the full-screen app"), "\(result)")
        #expect(result.stdout.contains("--version"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsNameEveryCommandThroughTheHandOff(shell: String) throws {
        let sandbox = try Sandbox()
        let result = try Self.run(sandbox, ["--generate-completion-script", shell])
        #expect(result.status == 0 && result.stderr == "", "\(result)")
        for command in ["add", "import", "sync", "serve", "library"] {
            #expect(result.stdout.contains(command), "the \(shell) script names \(command)")
        }
        let full = try Self.run(sandbox, ["--generate-completion-script", shell], binary: Self.fullBinary())
        #expect(full.stdout == result.stdout)
    }
}
