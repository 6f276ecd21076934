import ArgumentParser
import CloudRemote
import Foundation
import IdeaBoxCommandLine
import IdeaBoxCore
import IdeaStore
import IdeaSync
import LibrarySync

extension IdeaBoxCommand {
    /// `ideabox library sync | status | overwrite-remote --yes [--library DIR]`
    struct Library: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "library", 
            abstract: "Sync the RawLibrary folder (Items/*.json, FavoriteItems/*.json, Favorite.json) through the remote.",
            subcommands: [LibrarySyncCommand.self, LibraryStatusCommand.self, LibraryOverwriteCommand.self])
    }
}

/// `--library DIR` and the store options every library command takes.
struct LibraryOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The library folder (default: <data root>/<profile>/RawLibrary).", valueName: "dir"))
    var library: String?
    @OptionGroup var store: StoreOptions

    /// The session of this profile's library with its remote.
    func session(in context: CommandContext) throws -> LibrarySession {
        try context.librarySession(
            store, folder: library, repository: try context.openRepository(store), database: try context.openRemote(store).database)
    }
}

extension CommandContext {
    /// The library session of the profile in `options` (its folder `folder`, or
    /// `<profile>/RawLibrary`) with `database`; its log lines go to the profile's sync log.
    func librarySession(
        _ options: StoreOptions, folder: String?, repository: IdeaRepository, database: any CloudDatabase
    ) throws -> LibrarySession {
        let profileFolder = try location(options).profileDirectory
        let root = folder.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? profileFolder.appendingPathComponent("RawLibrary", isDirectory: true)
        let clock = self.clock
        return LibrarySession(root: root, database: database, clock: clock) { kind, message in
            let kind: SyncLogEntry.Kind = switch kind {
            case .conflict: .conflict
            case .warning: .warning
            case .info: .info
            }
            try? repository.logSyncEvent(kind, message, at: clock.now())
        }
    }
}

/// The library as the sync engine's companion: synced on the ideas' schedule.
struct LibraryCompanion: SyncCompanion {
    let session: LibrarySession

    var name: String { "library" }

    func sync() throws {
        try session.sync()
    }

    func pendingCount() -> Int? {
        try? session.localPendingCount()
    }

    func overwriteRemote() throws {
        try session.overwriteRemote()
    }
}

/// `ideabox library sync [--json]`
struct LibrarySyncCommand: IdeaBoxSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync the library folder now; exits non-zero with the reason if it can't.")

    @Flag(help: "Print what the sync did as JSON.") var json = false
    @OptionGroup var options: LibraryOptions

    func run(in context: CommandContext) throws {
        let report = try options.session(in: context).sync()
        try LibraryOutput.print(report, json: json, context: context, overwrote: false)
    }
}

/// `ideabox library overwrite-remote --yes`
struct LibraryOverwriteCommand: IdeaBoxSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "overwrite-remote",
        abstract: "Make the remote hold exactly this library folder; every other device follows. Needs --yes.")

    @Flag(help: "Confirm that the remote's files this folder lacks are deleted.") var yes = false
    @Flag(help: "Print what was done as JSON.") var json = false
    @OptionGroup var options: LibraryOptions

    func run(in context: CommandContext) throws {
        guard yes else { throw LibraryCommandError.overwriteNeedsConfirmation }
        let report = try options.session(in: context).overwriteRemote()
        try LibraryOutput.print(report, json: json, context: context, overwrote: true)
    }
}

/// `ideabox library status [--json]`
struct LibraryStatusCommand: IdeaBoxSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the library's files, what waits to go up or come down, and the last sync.")

    @Flag(help: "Print the status as JSON.") var json = false
    @OptionGroup var options: LibraryOptions

    func run(in context: CommandContext) throws {
        let status = try options.session(in: context).status()
        if json {
            Swift.print(try Output.json(status))
            return
        }
        let english = context.language == .english
        let unknown = english ? "unknown (remote unreachable)" : "未知（無法連線遠端）"
        let never = english ? "never" : "從未"
        let lines = english
            ? [
                "files: \(status.files)",
                "pending up: \(status.pendingUploads) changed, \(status.pendingDeletes) deleted",
                "pending down: \(status.pendingDownloads.map(String.init) ?? unknown)",
                "not synced: \(status.notSynced.isEmpty ? "none" : status.notSynced.joined(separator: ", "))",
                "last sync: \(status.lastSyncAt?.iso8601 ?? never)",
                "last error: \(status.lastError ?? "none")",
            ]
            : [
                "檔案：\(status.files)",
                "待上傳：\(status.pendingUploads) 個變更、\(status.pendingDeletes) 個刪除",
                "待下載：\(status.pendingDownloads.map(String.init) ?? unknown)",
                "未同步：\(status.notSynced.isEmpty ? "無" : status.notSynced.joined(separator: "、"))",
                "上次同步：\(status.lastSyncAt?.iso8601 ?? never)",
                "上次錯誤：\(status.lastError ?? "無")",
            ]
        Swift.print(lines.joined(separator: "\n"))
    }
}

enum LibraryOutput {
    static func print(_ report: LibraryReport, json: Bool, context: CommandContext, overwrote: Bool) throws {
        if json {
            Swift.print(try Output.json(report))
            return
        }
        report.refused.forEach { Output.error($0) }
        let english = context.language == .english
        let counts = english
            ? "\(report.uploaded) sent, \(report.deletedRemotely) deleted remotely, \(report.downloaded) received, "
                + "\(report.deletedLocally) deleted here, \(report.conflicts) \(report.conflicts == 1 ? "conflict" : "conflicts")"
            : "送出 \(report.uploaded) 個、遠端刪除 \(report.deletedRemotely) 個、收到 \(report.downloaded) 個、"
                + "本機刪除 \(report.deletedLocally) 個、衝突 \(report.conflicts) 個"
        Swift.print(overwrote
            ? (english ? "Overwrote the remote library with this folder: \(counts)." : "已用這個資料夾覆寫遠端檔案庫：\(counts)")
            : (english ? "Library synced: \(counts)." : "檔案庫已同步：\(counts)"))
    }
}

/// Errors of the library commands themselves.
enum LibraryCommandError: UserFacingError {
    case overwriteNeedsConfirmation

    func message(in language: Language) -> String {
        switch language {
        case .english:
            "overwrite-remote makes every device's library folder the same as this one, deleting what this folder lacks; add --yes to do it."
        case .traditionalChinese:
            "overwrite-remote 會讓所有裝置的檔案庫與這個資料夾相同，並刪除這個資料夾沒有的檔案；確定要執行請加上 --yes"
        }
    }
}
