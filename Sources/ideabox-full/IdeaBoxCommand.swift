import AccountEncryption
import ArgumentParser
import Foundation
import IdeaBoxCommandLine
import IdeaBoxConfig
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
        Sync.self, Status.self, Log.self, Remote.self, Account.self, Device.self, Library.self, Serve.self, Config.self,
    ]

    @OptionGroup var store: StoreOptions

    @Flag(help: .english("Leave the mouse to the terminal (also IDEABOX_MOUSE=0): no clicks or wheel in the app.", chinese: "把滑鼠留給終端機（也可設 IDEABOX_MOUSE=0）：介面中不接受點按與滾輪。"))
    var noMouse = false

    static func main() {
        CommandLineMain.run(Self.self, preparing: { context in
            let environment = context.environment
            context.configuredEditor = { ConfigFile.load(environment: environment).config.editor }
        })
    }

    /// Opens the full-screen app on this profile's data; without a terminal on both ends,
    /// one line that names the commands for scripts, before anything is opened.
    func run(in context: CommandContext) throws {
        try NcursesTerminal.checkUsable(environment: context.environment)
        let sync = try context.openSync(store)
        // A sync that ends (with another device's change, say) wakes the screen at once.
        let wake = TerminalWake()
        // A damaged page anywhere stops the app with the sentence that names `ideabox repair`:
        // a list that showed what it could read would hide the rest. Every page is read beside
        // the first frame, not before it (seconds at a million ideas).
        let pageCheck = sync.repository.checkEveryPageInBackground { wake?.wake() }
        let library = try context.librarySession(store, folder: nil, repository: sync.repository, database: sync.remote.database)
        let profileDirectory = try context.location(store).profileDirectory
        let live = LiveSync(
            context: context, sync: (sync.session, sync.remote), profileDirectory: profileDirectory,
            companions: [
                LibraryCompanion(session: library),
                ResealCompanion(encryption: sync.remote.currentEncryption, marker: ResealMarker(directory: profileDirectory)),
            ],
            onStatus: { _ in wake?.wake() }, onDelivery: { _ in wake?.wake() })
        let (network, device) = (sync.remote.network, sync.remote.device)
        var hooks = SyncHooks(
            engine: live.engine,
            isNetworkOn: { try !network.isOffline(device: device) },
            setNetworkOn: { isOn in
                try network.setOffline(!isOn, device: device)
                if isOn { live.listener?.retryNow() }
            })
        let profile = try context.location(store).profileDirectory
        hooks.isEncrypted = { EncryptionStateFile(directory: profile).current(keyFile: AccountKeyFile(directory: profile)) == .on }
        // `ideabox account unlock` in another terminal writes the key file: the app notices
        // within two seconds, without asking the remote.
        let keyPath = AccountKeyFile(directory: profile).url.path
        live.engine.lookForUnlock {
            var info = stat()
            guard stat(keyPath, &info) == 0 else { return nil }
            return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec) ^ Int64(info.st_ino)
        }
        let configFile = ConfigFile.load(environment: context.environment)
        let config = configFile.config
        let settings = AppSettings(
            editorCommand: config.editor, sortOrder: IdeaOrder.Key(rawValue: config.sort.rawValue).map { IdeaOrder($0) } ?? .newestFirst)
        let app = AppModel(
            repository: sync.repository, language: context.language, clock: context.clock, sync: hooks, settings: settings)
        app.keys = config.appKeys
        app.showsAbsoluteTimes = config.times == .absolute
        let environment = context.environment
        app.openLink = { LinkOpener.open($0, environment: environment) }
        try app.start()
        app.stop(onDamageFoundBy: pageCheck)
        app.backgroundReads = .on(DispatchQueue(label: "ideabox.counts", qos: .userInitiated)) { wake?.wake() }
        // A bad file never stops the app: one sentence, and the defaults.
        if let notice = configFile.launchNotice(in: context.language) { app.showErrorUntilKey(notice) }
        let mouse = !noMouse && context.environment["IDEABOX_MOUSE"] != "0" && config.mouse
        let terminal = try NcursesTerminal(
            environment: context.environment, mouse: mouse, wake: wake, hyperlinks: config.hyperlinks, palette: config.palette)
        live.start()
        let editor = ExternalEditor.system(command: settings.editorCommand ?? ExternalEditor.command(environment: context.environment))
        TerminalApp(app: app, terminal: terminal, editor: editor).run()
        live.stop()
        // Damage found as the person quit is said too.
        if let damage = app.stopFailure ?? pageCheck.failure { throw damage }
        // Changes not yet sent are safe on disk; say so, and when they go out.
        if let pending = try? sync.repository.pendingChangeCount(), pending > 0 {
            print(CommandLineText.pendingAtQuit(pending, context.language))
        }
    }
}
