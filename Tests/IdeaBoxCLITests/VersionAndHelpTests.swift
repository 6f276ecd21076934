import Foundation
import ProcessTestSupport
import Testing

/// `ideabox --version` / `-V`, `ideabox help`, and what `--generate-completion-script` prints,
/// from both binaries.
@Suite(.takesTurns) struct VersionAndHelpTests {
    /// `ideabox-full`, beside `ideabox`.
    private static func fullBinary() throws -> URL {
        try IdeaBoxBinary.url().deletingLastPathComponent().appendingPathComponent("ideabox-full")
    }

    /// Runs `binary` (default `ideabox`) in `sandbox`.
    private static func run(_ sandbox: Sandbox, _ arguments: [String], binary: URL? = nil) async throws -> CommandResult {
        try await IdeaBoxBinary.run(
            executable: binary ?? IdeaBoxBinary.url(), arguments: arguments, environment: sandbox.environment,
            currentDirectory: sandbox.directory, input: nil)
    }

    /// `--help` of every command and subcommand, found through each help's list of
    /// subcommands (English or Chinese headings; a name starts at column 2, the following
    /// lines of its description further in).
    private static func everyHelp(_ sandbox: Sandbox) async throws -> [(command: [String], result: CommandResult)] {
        var helps: [(command: [String], result: CommandResult)] = []
        var commands: [[String]] = [[]]
        while let command = commands.popLast() {
            let result = try await run(sandbox, command + ["--help"])
            helps.append((command, result))
            guard result.status == 0 else { continue }
            var inSubcommands = false
            for line in result.stdout.split(separator: "\n").map(String.init) {
                if line == "SUBCOMMANDS:" || line == "子命令：" { inSubcommands = true; continue }
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("See ") || trimmed.hasPrefix("詳細說明請見") { inSubcommands = false }
                if inSubcommands, line.hasPrefix("  "), !line.hasPrefix("   "), let name = trimmed.split(separator: " ").first,
                   name.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }), command.count < 4 {
                    commands.append(command + [String(name)])
                }
            }
        }
        return helps
    }

    @Test(arguments: ["--version", "-V"])
    func versionNamesTheReleaseAndTheCommitFromBothBinaries(option: String) async throws {
        let sandbox = try Sandbox()
        let fast = try await Self.run(sandbox, [option])
        #expect(fast.status == 0 && fast.stderr == "")
        #expect(fast.stdout.wholeMatch(of: /ideabox \d+\.\d+\.\d+ \(([0-9a-f]{7,}|unknown)\)\n/) != nil, "\(fast)")
        let full = try await Self.run(sandbox, [option], binary: Self.fullBinary())
        #expect(full.status == 0 && full.stderr == "")
        #expect(full.stdout == fast.stdout)
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path), "asking the version opens no database")
    }

    /// Under a Chinese locale every command's help is Chinese: each heading and description
    /// (only usage lines, options and code names stay as typed). A description added without
    /// its Chinese fails here.
    @Test func everyCommandsHelpIsChineseUnderAChineseLocale() async throws {
        let sandbox = try Sandbox(language: "zh_TW.UTF-8")
        let helps = try await Self.everyHelp(sandbox)
        for (command, result) in helps {
            #expect(result.status == 0, "\(command): \(result)")
            for line in result.stdout.split(separator: "\n").map(String.init) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                // An option or argument alone on its line has its description on the next;
                // otherwise its description starts at column 26.
                let characters = Array(line)
                let describes = characters.count > 26 && characters[25] == " " && characters[26] != " " && characters[26] != "<"
                guard !line.hasPrefix("用法："), !(trimmed.hasPrefix("-") || trimmed.hasPrefix("<")) || describes else { continue }
                #expect(line.unicodeScalars.contains { (0x3000...0x9FFF).contains($0.value) || (0xFF00...0xFFEF).contains($0.value) },
                        "ideabox \(command.joined(separator: " ")) --help: \(line)")
            }
        }
        let checked = helps.count
        #expect((40...70).contains(checked), "every command and subcommand once: \(checked)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path), "help opens no database")
    }

    /// Argument Parser adds an option's default after its description: a description that
    /// gives it too says it twice (issue 59: `account sign-in --help`'s container).
    @Test(arguments: ["C.UTF-8", "zh_TW.UTF-8"])
    func everyOptionsDefaultIsSaidOnce(language: String) async throws {
        let sandbox = try Sandbox(language: language)
        let helps = try await Self.everyHelp(sandbox)
        for (command, result) in helps {
            #expect(result.status == 0, "\(command): \(result)")
            let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(text.firstMatch(of: /(\(default:|（預設：)[^)）]*[)）][.。]? ?(\(default:|（預設：)/) == nil,
                    "ideabox \(command.joined(separator: " ")) --help says a default twice:\n\(result.stdout)")
        }
        let checked = helps.count
        #expect(checked >= 40, "every command and subcommand once: \(checked)")
    }

    @Test(arguments: [["help"], ["--help"]])
    func helpSaysThatNoSubcommandOpensTheApp(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        let result = try await Self.run(sandbox, arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Run `ideabox` with no subcommand to open the full-screen app"), "\(result)")
        #expect(result.stdout.contains("--version"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsNameEveryCommandThroughTheHandOff(shell: String) async throws {
        let sandbox = try Sandbox()
        let result = try await Self.run(sandbox, ["--generate-completion-script", shell])
        #expect(result.status == 0 && result.stderr == "", "\(result)")
        for command in ["add", "import", "sync", "serve", "library"] {
            #expect(result.stdout.contains(command), "the \(shell) script names \(command)")
        }
        let full = try await Self.run(sandbox, ["--generate-completion-script", shell], binary: Self.fullBinary())
        #expect(full.stdout == result.stdout)
    }
}
