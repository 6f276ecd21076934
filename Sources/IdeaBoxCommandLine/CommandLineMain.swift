import ArgumentParser
import Foundation

/// How both `ideabox` binaries start: the root command's description, and a parse-and-run
/// that reports every mistake in one line.
public enum CommandLineMain {
    /// The root command, `ideabox`, with `subcommands`.
    public static func rootConfiguration(subcommands: [any ParsableCommand.Type]) -> CommandConfiguration {
        CommandConfiguration(
            commandName: "ideabox",
            abstract: "Catch and keep your ideas, on every device of one account.",
            discussion: """
                Data lives under --data-dir, else $IDEABOX_HOME, else $XDG_DATA_HOME/ideabox, \
                else ~/.local/share/ideabox; each --profile (default: "default") is one device.
                """,
            subcommands: subcommands
        )
    }

    /// Parses the process's arguments with `root` and runs the command. A mistake in the
    /// arguments gets one line on stderr, like every other error, rather than the usage
    /// screen; `--help` still prints help.
    public static func run<Root: ParsableCommand>(_ root: Root.Type) -> Never {
        do {
            var command = try Root.parseAsRoot()
            try command.run()
            Foundation.exit(0)
        } catch {
            guard Root.exitCode(for: error) == .validationFailure else { Root.exit(withError: error) }
            Output.error("\(Root.message(for: error)) (see `ideabox help`)")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
    }
}
