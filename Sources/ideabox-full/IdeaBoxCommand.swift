import ArgumentParser
import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaStore
import IdeaSync

/// `ideabox-full`: every command of `ideabox`, the full-screen app (no arguments), sync,
/// `serve` and the library among them. `ideabox` runs the local commands itself and hands
/// the rest to this binary.
@main
struct IdeaBoxCommand: IdeaBoxSubcommand {
    static let configuration = CommandLineMain.rootConfiguration(
        subcommands: LocalCommands.all + remoteCommands)

    /// The commands that reach the remote, or serve one.
    private static let remoteCommands: [any ParsableCommand.Type] = [
        Sync.self, Status.self, Log.self, Remote.self, Account.self, Library.self, Serve.self,
    ]

    @OptionGroup var store: StoreOptions

    @Flag(help: "Leave the mouse to the terminal (also IDEABOX_MOUSE=0): no clicks or wheel in the app.")
    var noMouse = false

    static func main() {
        CommandLineMain.run(Self.self)
    }

    /// Opens the full-screen app on this profile's data; without a terminal on both ends,
    /// one line that names the commands for scripts, before anything is opened.
    func run(in context: CommandContext) throws {
        try NcursesTerminal.checkUsable(environment: context.environment)
        let sync = try context.openSync(store)
        let library = try context.librarySession(store, folder: nil, repository: sync.repository, database: sync.remote.database)
        // A sync that ends (with another device's change, say) wakes the screen at once.
        let wake = TerminalWake()
        let live = LiveSync(
            context: context, sync: (sync.session, sync.remote), profileDirectory: try context.location(store).profileDirectory,
            companions: [LibraryCompanion(session: library)], onStatus: { _ in wake?.wake() }, onDelivery: { _ in wake?.wake() })
        let (network, device) = (sync.remote.network, sync.remote.device)
        let hooks = SyncHooks(
            engine: live.engine,
            isNetworkOn: { try !network.isOffline(device: device) },
            setNetworkOn: { isOn in
                try network.setOffline(!isOn, device: device)
                if isOn { live.listener?.retryNow() }
            })
        let settings = AppSettings()
        let app = AppModel(
            repository: sync.repository, language: context.language, clock: context.clock, sync: hooks, settings: settings)
        try app.start()
        let mouse = !noMouse && context.environment["IDEABOX_MOUSE"] != "0"
        let terminal = try NcursesTerminal(environment: context.environment, mouse: mouse, wake: wake)
        live.start()
        let editor = ExternalEditor.system(command: settings.editorCommand ?? ExternalEditor.command(environment: context.environment))
        TerminalApp(app: app, terminal: terminal, editor: editor).run()
        live.stop()
        // Changes not yet sent are safe on disk; say so, and when they go out.
        if let pending = try? sync.repository.pendingChangeCount(), pending > 0 {
            print(CommandLineText.pendingAtQuit(pending, context.language))
        }
    }
}
