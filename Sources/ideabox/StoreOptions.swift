import ArgumentParser
import CloudRemote
import Foundation
import IdeaBoxCore
import IdeaStore
import IdeaSync

/// The options every command takes: where the data is, and first-launch choices.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: ArgumentHelp("The data root (default: $IDEABOX_HOME, $XDG_DATA_HOME/ideabox or ~/.local/share/ideabox).", valueName: "dir"))
    var dataDirectory: String?

    @Option(help: ArgumentHelp("The profile, one simulated device (default: $IDEABOX_PROFILE or \"default\").", valueName: "name"))
    var profile: String?

    @Flag(name: .customLong("no-samples"), help: "Don't insert the sample ideas on first launch (also IDEABOX_NO_SAMPLES=1).")
    var noSamples = false
}

/// What a command runs with: the process environment, the user's language, the clock,
/// and the opened store.
struct CommandContext {
    let environment: [String: String]
    let language: Language
    let clock: WallClock

    init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.environment = environment
        language = Language.preferred(environment: environment)
        let offsetText = environment["IDEABOX_CLOCK_OFFSET_MS"] ?? ""
        guard let offset = offsetText.isEmpty ? 0 : Int64(offsetText) else {
            throw CommandError.invalidClockOffset(offsetText)
        }
        clock = WallClock.system.offset(by: offset)
    }

    /// Where the options say this profile's data lives.
    func location(_ options: StoreOptions) throws -> DataLocation {
        try DataLocation.resolve(dataDirectory: options.dataDirectory, profile: options.profile, environment: environment)
    }

    /// The remote this profile syncs with: the embedded one shared by every profile under
    /// the data root, or `ideabox serve` if the profile signed in to a server.
    func openRemote(_ options: StoreOptions) throws -> RemoteConnection {
        let location = try location(options)
        if let credentials = try ServerCredentials.load(from: location.profileDirectory) {
            let faults = try SimulatedCloud.open(
                directory: location.profileDirectory, fileName: ServerCredentials.faultsFileName, clock: clock)
            return RemoteConnection(cloud: faults, device: location.profile, credentials: credentials)
        }
        return RemoteConnection(
            cloud: try SimulatedCloud.open(directory: location.root, clock: clock), device: location.profile, credentials: nil)
    }

    /// This profile's database and its sync session with its remote.
    func openSync(_ options: StoreOptions) throws -> (repository: IdeaRepository, session: SyncSession, remote: RemoteConnection) {
        let repository = try openRepository(options)
        let remote = try openRemote(options)
        return (repository, SyncSession(repository: repository, database: remote.database, clock: clock), remote)
    }

    /// Opens this profile's database; `seedsSamples: false` keeps a first launch from seeding.
    func openRepository(_ options: StoreOptions, seedsSamples: Bool = true) throws -> IdeaRepository {
        let location = try location(options)
        let skipSamples = options.noSamples || ["1", "true", "yes"].contains(environment["IDEABOX_NO_SAMPLES"]?.lowercased() ?? "")
        let database = try IdeaDatabase.open(
            directory: location.profileDirectory,
            firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: seedsSamples && !skipSamples, language: language))
        return database.repository(clock: clock, ids: .random)
    }
}

/// The remote of one profile (its device).
struct RemoteConnection {
    /// Where the device's simulated network and faults are kept: the embedded remote itself,
    /// or, for a profile signed in to a server, a file of the same kind in its folder.
    let cloud: SimulatedCloud
    /// The device's name: the profile.
    let device: String
    /// The server the profile signed in to, if it did.
    let credentials: ServerCredentials?

    /// The client the sync engine uses.
    var database: any CloudDatabase {
        if let credentials {
            FaultInjectingDatabase(base: credentials.database(), faults: cloud, device: device)
        } else {
            cloud.database(forDevice: device)
        }
    }

    /// The account the device is signed in to, or nil.
    func signedInAccount() throws -> String? {
        guard let credentials else { return try cloud.signedInAccount(device: device) }
        return credentials.token == nil ? nil : credentials.account
    }
}

/// A subcommand whose errors reach the user as one line on stderr, in their language,
/// with a non-zero exit.
protocol IdeaBoxSubcommand: ParsableCommand {
    /// The command's work.
    func run(in context: CommandContext) throws
}

extension IdeaBoxSubcommand {
    func run() throws {
        var language = Language.preferred(environment: ProcessInfo.processInfo.environment)
        do {
            let context = try CommandContext()
            language = context.language
            try run(in: context)
        } catch let error as UserFacingError {
            Output.error(error.message(in: language))
            throw ExitCode.failure
        } catch let error as ExitCode {
            throw error
        } catch {
            Output.error(String(describing: error))
            throw ExitCode.failure
        }
    }
}

/// Errors of the command line itself.
enum CommandError: UserFacingError {
    case invalidClockOffset(String)
    case unreadableFile(String, reason: String)
    case invalidJSON(String, reason: String)
    case nothingToEdit

    func message(in language: Language) -> String {
        switch (self, language) {
        case let (.invalidClockOffset(value), .english):
            "IDEABOX_CLOCK_OFFSET_MS must be a whole number of milliseconds, not \"\(value)\"."
        case let (.invalidClockOffset(value), .traditionalChinese):
            "IDEABOX_CLOCK_OFFSET_MS 必須是整數毫秒，而不是「\(value)」"
        case let (.unreadableFile(path, reason), .english):
            "Can't read \(path): \(reason)"
        case let (.unreadableFile(path, reason), .traditionalChinese):
            "無法讀取 \(path)：\(reason)"
        case let (.invalidJSON(path, reason), .english):
            "\(path) is not a valid IdeaBox export: \(reason) Nothing was imported."
        case let (.invalidJSON(path, reason), .traditionalChinese):
            "\(path) 不是有效的 IdeaBox 匯出檔：\(reason)；沒有匯入任何資料"
        case (.nothingToEdit, .english):
            "Nothing to change: pass --title and/or --description."
        case (.nothingToEdit, .traditionalChinese):
            "沒有要變更的內容：請使用 --title 或 --description"
        }
    }
}
