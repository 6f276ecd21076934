import ArgumentParser
import Foundation
import IdeaBoxCommandLine

/// `ideabox`. The local commands (add, list, search, show, edit, done, undone, rm, export,
/// import, repair) run here, in a binary that holds only the store: no network client, server or
/// terminal code, so it starts in a few milliseconds (BENCHMARKS.md, "Everyday commands against taskwarrior").
/// Every other command line, the full-screen app and `help` included, is handed to
/// `ideabox-full` beside this binary, with the same arguments and environment; so is a local
/// command that opens the editor, which the config file may name (this binary reads no TOML).
@main
struct IdeaBoxCommand: ParsableCommand {
    static let configuration = CommandLineMain.rootConfiguration(subcommands: LocalCommands.all)

    @OptionGroup var store: StoreOptions

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if CommandLineMain.asksForVersion(arguments) {
            print(CommandLineText.version)
            Foundation.exit(0)
        }
        if let (command, store) = FastCommandLine.parse(arguments) {
            if command.opensEditor { FullCommandLine.exec(CommandLine.arguments) }
            Foundation.exit(CommandLineMain.perform { try command.run(store: store, context: $0) })
        }
        guard let name = arguments.first, LocalCommands.names.contains(name) else { FullCommandLine.exec(CommandLine.arguments) }
        CommandLineMain.run(Self.self, handOff: { parsed in
            if let local = parsed as? any LocalSubcommand, local.command.opensEditor { FullCommandLine.exec(CommandLine.arguments) }
        })
    }

    func run() throws {
        FullCommandLine.exec(CommandLine.arguments)
    }
}

/// `ideabox-full`, which runs every command.
enum FullCommandLine {
    /// Replaces this process with `ideabox-full` and the same arguments; if that fails, one
    /// line on stderr and exit status 127, as a shell says of a missing command.
    static func exec(_ arguments: [String]) -> Never {
        let path = siblingPath()
        var cArguments = arguments.map { strdup($0) } + [nil]
        execv(path, &cArguments)
        let reason = String(cString: strerror(errno))
        Output.error("can't start \(path): \(reason). It is built with `ideabox` and installed beside it.")
        exit(127)
    }

    /// `ideabox-full` in the folder of this executable, wherever PATH found it and whatever
    /// links led there.
    private static func siblingPath() -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("ideabox-full").path
    }
}
