import ArgumentParser
import Foundation
import IdeaBoxCore
import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaStore
import IdeaSync

/// `ideabox`: with no arguments the full-screen app; with a subcommand, headless use.
@main
struct IdeaBoxCommand: IdeaBoxSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "ideabox",
        abstract: "Catch and keep your ideas, on every device of one account.",
        discussion: """
            Data lives under --data-dir, else $IDEABOX_HOME, else $XDG_DATA_HOME/ideabox, \
            else ~/.local/share/ideabox; each --profile (default: "default") is one device.
            """,
        subcommands: [
            Add.self, List.self, Search.self, Show.self, Edit.self,
            Done.self, Undone.self, Remove.self, Export.self, Import.self,
            Sync.self, Status.self, Log.self, Remote.self, Account.self, Library.self, Serve.self,
        ]
    )

    @OptionGroup var store: StoreOptions

    /// Parses and runs a command. A mistake in the arguments gets one line on stderr, like
    /// every other error, rather than the usage screen; `--help` still prints help.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            Output.error("\(message(for: error)) (see `ideabox help`)")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
    }

    /// Opens the full-screen app on this profile's data.
    func run(in context: CommandContext) throws {
        let sync = try context.openSync(store)
        let library = try context.librarySession(store, folder: nil, repository: sync.repository, database: sync.remote.database)
        let engine = SyncEngine(
            session: sync.session, companions: [LibraryCompanion(session: library)],
            scheduler: DispatchSyncScheduler(clock: context.clock))
        let (cloud, device) = (sync.remote.cloud, sync.remote.device)
        let hooks = SyncHooks(
            engine: engine,
            isNetworkOn: { try !cloud.status(device: device).isOffline },
            setNetworkOn: { try cloud.setOffline(!$0, device: device) })
        let app = AppModel(repository: sync.repository, language: context.language, clock: context.clock, sync: hooks)
        try app.start()
        let terminal = try NcursesTerminal(environment: context.environment)
        engine.start()
        TerminalApp(app: app, terminal: terminal).run()
        engine.stop()
    }
}
