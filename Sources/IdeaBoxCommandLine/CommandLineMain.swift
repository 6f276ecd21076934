import ArgumentParser
import Foundation
import IdeaBoxFoundation
import IdeaModel

/// How both `ideabox` binaries start: the root command's description, and a parse-and-run
/// that reports every mistake in one line.
public enum CommandLineMain {
    /// The root command, `ideabox`, with `subcommands`.
    public static func rootConfiguration(subcommands: [any ParsableCommand.Type]) -> CommandConfiguration {
        CommandConfiguration(
            commandName: "ideabox",
            abstract: .english("Catch and keep your ideas, on every device of one account.", chinese: "記下並保存你的靈感，同一帳號的每台裝置都有。"),
            discussion: CommandLineText.rootDiscussion,
            version: CommandLineText.version,
            subcommands: subcommands
        )
    }

    /// Whether `arguments` (without the program name) ask for the version alone: `--version`
    /// (which ArgumentParser would answer too) or `-V`.
    public static func asksForVersion(_ arguments: [String]) -> Bool {
        arguments == ["--version"] || arguments == ["-V"]
    }

    /// Runs `work` with a new context: an error reaches the user as one line on stderr, in
    /// their language. Returns the exit status.
    public static func perform(
        preparing prepare: (inout CommandContext) -> Void = { _ in }, _ work: (CommandContext) throws -> Void
    ) -> Int32 {
        var language = Language.preferred(environment: EnvironmentVariables.process)
        do {
            var context = try CommandContext()
            prepare(&context)
            language = context.language
            try work(context)
            return 0
        } catch {
            return status(reporting: error, in: language)
        }
    }

    /// `perform` for work that awaits.
    public static func perform(
        preparing prepare: (inout CommandContext) -> Void = { _ in }, _ work: (CommandContext) async throws -> Void
    ) async -> Int32 {
        var language = Language.preferred(environment: EnvironmentVariables.process)
        do {
            var context = try CommandContext()
            prepare(&context)
            language = context.language
            try await work(context)
            return 0
        } catch {
            return status(reporting: error, in: language)
        }
    }

    /// The exit status of a command that threw `error`, after one line on stderr that says
    /// what went wrong (none for an `ExitCode`, which is the status itself).
    private static func status(reporting error: any Error, in language: Language) -> Int32 {
        switch error {
        case let error as UserFacingError: Output.error(error.message(in: language))
        case let error as ExitCode: return error.rawValue
        default: Output.error(String(describing: error))
        }
        return ExitCode.failure.rawValue
    }

    /// Parses the process's arguments with `root` and runs the command. A mistake in the
    /// arguments gets one line on stderr, like every other error, rather than the usage
    /// screen; `--help` still prints help.
    /// ArgumentParser's common usage errors are translated for a Chinese locale.
    /// `handOff` sees the parsed command first (and may exec another binary for it);
    /// `prepare` sets up the context the command runs with. A command that awaits
    /// (`AsyncIdeaBoxSubcommand`) runs as a task; the others run on the main thread.
    public static func run<Root: ParsableCommand>(
        _ root: Root.Type, handOff: (any ParsableCommand) -> Void = { _ in },
        preparing prepare: @escaping @Sendable (inout CommandContext) -> Void = { _ in }
    ) -> Never {
        if asksForVersion(Array(CommandLine.arguments.dropFirst())) {
            print(CommandLineText.version)
            Foundation.exit(0)
        }
        let language = Language.preferred(environment: EnvironmentVariables.process)
        do {
            var command = try Root.parseAsRoot()
            handOff(command)
            if let subcommand = command as? any IdeaBoxSubcommand {
                Foundation.exit(perform(preparing: prepare) { try subcommand.run(in: $0) })
            }
            if let subcommand = command as? any AsyncIdeaBoxSubcommand {
                // The one place a command crosses into async: its task runs on the
                // cooperative pool and ends the process; the main thread is given to
                // Dispatch, as an async `main` does.
                Task { Foundation.exit(await perform(preparing: prepare) { try await subcommand.run(in: $0) }) }
                dispatchMain()
            }
            try command.run()
            Foundation.exit(0)
        } catch {
            let code = Root.exitCode(for: error)
            if code == .success, language == .traditionalChinese {
                // Help is written with nothing wrapped, so that each description is one line
                // to translate; the terminal wraps what is long. (Only here: the app's
                // ncurses reads COLUMNS too.)
                setenv("COLUMNS", String(HelpText.unwrappedColumns), 1)
                print(HelpText.chinese(Root.fullMessage(for: error)))
                Foundation.exit(0)
            }
            guard code == .validationFailure else { Root.exit(withError: error) }
            Output.error(CommandLineText.usageError(Root.message(for: error), language) + CommandLineText.seeHelp(language))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
    }
}
