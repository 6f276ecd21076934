import ArgumentParser
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// The options every command takes: where the data is, and first-launch choices.
public struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: ArgumentHelp(.english("The data root (default: $IDEABOX_HOME, $XDG_DATA_HOME/ideabox or ~/.local/share/ideabox).", chinese: "資料根目錄（預設：$IDEABOX_HOME、$XDG_DATA_HOME/ideabox 或 ~/.local/share/ideabox）。"), valueName: "dir"))
    public var dataDirectory: String?

    @Option(help: ArgumentHelp(.english("The profile, one simulated device (default: $IDEABOX_PROFILE or \"default\").", chinese: "設定檔，即一台模擬裝置（預設：$IDEABOX_PROFILE 或 \"default\"）。"), valueName: "name"))
    public var profile: String?

    @Flag(name: .customLong("no-samples"), help: .english("Don't insert the sample ideas on first launch (also IDEABOX_NO_SAMPLES=1).", chinese: "第一次啟動時不加入範例靈感（也可設 IDEABOX_NO_SAMPLES=1）。"))
    public var noSamples = false

    public init() {}

    /// The options as plain values.
    public var selection: StoreSelection {
        StoreSelection(dataDirectory: dataDirectory, profile: profile, noSamples: noSamples)
    }
}

/// Which profile's data a command works on, and whether a first launch seeds the samples:
/// `StoreOptions` as plain values.
public struct StoreSelection: Equatable, Sendable {
    public var dataDirectory: String?
    public var profile: String?
    public var noSamples: Bool

    public init(dataDirectory: String? = nil, profile: String? = nil, noSamples: Bool = false) {
        self.dataDirectory = dataDirectory
        self.profile = profile
        self.noSamples = noSamples
    }

    /// The options that chose this profile, as the person typed them (`--data-dir D`,
    /// `--profile P`): what a command named in a message needs to reach the same data.
    public var commandLineOptions: [String] {
        (dataDirectory.map { ["--data-dir", $0] } ?? []) + (profile.map { ["--profile", $0] } ?? [])
    }
}

/// What a command runs with: the process environment, the user's language, the clock,
/// and the opened store.
public struct CommandContext {
    /// The environment, read a variable at a time.
    public let variables: EnvironmentVariables
    /// Every variable of the environment, for what takes them all (the config file, the
    /// terminal, the editor).
    public var environment: [String: String] { variables.all }
    public let language: Language
    public let clock: WallClock
    /// The editor the config file names, read only when an editor is about to run; nil: the
    /// environment's (`$VISUAL`, `$EDITOR`, `vi`). `ideabox-full` reads the file; `ideabox`,
    /// which has no TOML reader, hands every command that opens an editor to it.
    public var configuredEditor: @Sendable () -> String? = { nil }

    public init(environment: EnvironmentVariables = .process) throws {
        variables = environment
        language = Language.preferred(environment: environment)
        let offsetText = environment["IDEABOX_CLOCK_OFFSET_MS"] ?? ""
        guard let offset = offsetText.isEmpty ? 0 : Int64(offsetText) else {
            throw CommandError.invalidClockOffset(offsetText)
        }
        clock = WallClock.system.offset(by: offset)
    }

    /// Where the options say this profile's data lives.
    public func location(_ options: StoreOptions) throws -> DataLocation {
        try location(options.selection)
    }

    /// Where `selection` says this profile's data lives.
    public func location(_ options: StoreSelection) throws -> DataLocation {
        try DataLocation.resolve(dataDirectory: options.dataDirectory, profile: options.profile, environment: variables)
    }

    /// Opens this profile's database for one command (`use`), or for a long-lived process
    /// such as the app; `seedsSamples: false` keeps a first launch from seeding.
    public func openRepository(
        _ options: StoreOptions, seedsSamples: Bool = true, use: IdeaDatabase.Use = .command
    ) throws -> IdeaRepository {
        try openRepository(options.selection, seedsSamples: seedsSamples, use: use)
    }

    /// Refuses, before anything is opened, a profile `options` selects that has no database:
    /// a command that only reads creates nothing, so a mistyped `--data-dir` is said to be
    /// empty instead of becoming a new database whose samples look as if every idea vanished.
    public func requireExistingData(_ options: StoreOptions) throws {
        try requireExistingData(options.selection)
    }

    /// `requireExistingData` for plain values.
    public func requireExistingData(_ options: StoreSelection) throws {
        let location = try location(options)
        // A file where a folder of the path should be is a problem of its own, which opening
        // names (creating nothing: no folder can be made under a file).
        let folders = [location.rootPath, location.profilesPath, location.profileDirectoryPath]
        if folders.contains(where: Self.isFile) { return }
        guard IdeaDatabase.exists(inPath: location.profileDirectoryPath) else {
            throw CommandError.noData(
                root: location.rootPath, profile: location.profile == DataLocation.defaultProfile ? nil : location.profile)
        }
    }

    private static func isFile(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }

    /// Opens the database of the profile `options` selects.
    public func openRepository(
        _ options: StoreSelection, seedsSamples: Bool = true, use: IdeaDatabase.Use = .command
    ) throws -> IdeaRepository {
        let location = try location(options)
        let skipSamples = options.noSamples || ["1", "true", "yes"].contains(variables["IDEABOX_NO_SAMPLES"]?.lowercased() ?? "")
        let database = try IdeaDatabase.open(
            directory: location.profileDirectory,
            firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: seedsSamples && !skipSamples, language: language, clock: clock), use: use,
            options: options.commandLineOptions)
        return database.repository(clock: clock, ids: .random)
    }
}

/// A subcommand whose errors reach the user as one line on stderr, in their language,
/// with a non-zero exit.
public protocol IdeaBoxSubcommand: ParsableCommand {
    /// The command's work.
    func run(in context: CommandContext) throws
}

extension IdeaBoxSubcommand {
    public func run() throws {
        let status = CommandLineMain.perform { try run(in: $0) }
        if status != 0 { throw ExitCode(status) }
    }
}

/// A subcommand whose work awaits (a server's store), reported as `IdeaBoxSubcommand`'s
/// is. `CommandLineMain.run` runs it as a task while the main thread waits in Dispatch's
/// main loop, so that nothing blocks a thread while it awaits; every other command keeps
/// the main thread (the full-screen app's terminal and signals).
public protocol AsyncIdeaBoxSubcommand: AsyncParsableCommand {
    /// The command's work.
    func run(in context: CommandContext) async throws
}

extension AsyncIdeaBoxSubcommand {
    public func run() async throws {
        let status = await CommandLineMain.perform { try await run(in: $0) }
        if status != 0 { throw ExitCode(status) }
    }
}

/// Errors of the command line itself.
public enum CommandError: UserFacingError {
    case invalidClockOffset(String)
    /// A file could not be read; `errno` says why, when known.
    case unreadableFile(String, errno: Int32?)
    case nothingToEdit
    /// `add` without a title where no editor can run (not a terminal).
    case titleNeeded
    /// The editor exited well with the text as it was.
    case editorLeftUnchanged(adding: Bool)
    /// The editor `command` exited with a failure `status`.
    case editorFailed(command: String, status: Int32)
    /// The editor `command` could not be run.
    case editorCouldNotRun(command: String, reason: String)
    /// The text saved in the editor broke a rule; it is kept in the file at `keptAt`.
    case editedTextRefused(IdeaValidationError, keptAt: String)
    /// A command that only reads found no database at the data root `root` (for `profile`,
    /// if not the default one).
    case noData(root: String, profile: String?)

    public func message(in language: Language) -> String {
        switch (self, language) {
        case let (.invalidClockOffset(value), .english):
            "IDEABOX_CLOCK_OFFSET_MS must be a whole number of milliseconds, not \"\(value)\"."
        case let (.invalidClockOffset(value), .traditionalChinese):
            "IDEABOX_CLOCK_OFFSET_MS 必須是整數毫秒，而不是「\(value)」"
        case let (.unreadableFile(path, code), .english):
            switch code {
            case ENOENT: "Can't read \(path): there is no such file."
            case EACCES, EPERM: "Can't read \(path): permission denied."
            case EISDIR: "Can't read \(path): it is a folder."
            default: "Can't read \(path)."
            }
        case let (.unreadableFile(path, code), .traditionalChinese):
            switch code {
            case ENOENT: "無法讀取 \(path)：沒有這個檔案"
            case EACCES, EPERM: "無法讀取 \(path)：沒有讀取權限"
            case EISDIR: "無法讀取 \(path)：這是資料夾"
            default: "無法讀取 \(path)"
            }
        case (.nothingToEdit, .english):
            "Nothing to change: pass --title and/or --description (on a terminal, `ideabox edit ID` alone opens $EDITOR)."
        case (.nothingToEdit, .traditionalChinese):
            "沒有要變更的內容：請使用 --title 或 --description（在終端機中，只寫 `ideabox edit ID` 會開啟 $EDITOR）"
        case (.titleNeeded, .english):
            "A title is needed: ideabox add TITLE (on a terminal, `ideabox add` alone opens $EDITOR)."
        case (.titleNeeded, .traditionalChinese):
            "需要標題：ideabox add 標題（在終端機中，只寫 `ideabox add` 會開啟 $EDITOR）"
        case let (.editorLeftUnchanged(adding), .english):
            adding ? "Nothing added: the editor left the text as it was." : "Nothing changed: the editor left the text as it was."
        case let (.editorLeftUnchanged(adding), .traditionalChinese):
            adding ? "沒有新增：編輯器沒有改動內容" : "沒有變更：編輯器沒有改動內容"
        case let (.editorFailed(command, status), .english):
            "Nothing changed: the editor (\(command)) exited with status \(status)."
        case let (.editorFailed(command, status), .traditionalChinese):
            "沒有變更：編輯器（\(command)）以狀態 \(status) 結束"
        case let (.editorCouldNotRun(command, reason), .english):
            "Nothing changed: the editor (\(command)) could not run: \(reason)."
        case let (.editorCouldNotRun(command, reason), .traditionalChinese):
            "沒有變更：無法執行編輯器（\(command)）：\(reason)"
        case let (.editedTextRefused(error, path), .english):
            "\(error.message(in: .english)) Nothing was saved; your text is kept in \(path)."
        case let (.editedTextRefused(error, path), .traditionalChinese):
            "\(error.message(in: .traditionalChinese))。沒有儲存；你的內容保留在 \(path)"
        case let (.noData(root, profile), .english):
            "There are no ideas at \(root)\(profile.map { " for profile \($0)" } ?? ""): IdeaBox has stored nothing there "
                + "(check --data-dir, IDEABOX_HOME and --profile; `ideabox add` or the app would start a new collection there)."
        case let (.noData(root, profile), .traditionalChinese):
            "\(root)\(profile.map { "（設定檔 \($0)）" } ?? "") 沒有任何靈感：IdeaBox 沒有在那裡儲存過資料"
                + "（請檢查 --data-dir、IDEABOX_HOME 與 --profile；`ideabox add` 或全螢幕介面會在那裡建立新的資料）"
        }
    }
}
