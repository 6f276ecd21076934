import ArgumentParser
import CloudHTTPClient
import CloudKitModel
import Foundation
import IdeaBoxCommandLine
import IdeaStore
import IdeaSync
import LibrarySync

extension IdeaBoxCommand {
    /// `ideabox library sync | status | overwrite-remote --yes [--library DIR]`
    struct Library: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "library",
            abstract: .english("Sync the RawLibrary folder (Items/*.json, FavoriteItems/*.json, Favorite.json) through the remote.", chinese: "透過遠端同步 RawLibrary 資料夾（Items/*.json、FavoriteItems/*.json、Favorite.json）。"),
            subcommands: [Sync.self, Status.self, OverwriteRemote.self])
    }
}

/// `--library DIR` and the store options every library command takes.
struct LibraryOptions: ParsableArguments {
    @Option(help: ArgumentHelp(.english("The library folder (default: <data root>/<profile>/RawLibrary).", chinese: "資料夾（預設：<資料根目錄>/<設定檔>/RawLibrary）。"), valueName: "dir"))
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
        // The account the files sync with as of each sync: the one this profile's ideas are
        // bound to (a sign-in that carries them moves it), on its server or the embedded remote.
        let account: @Sendable () -> String? = {
            guard let name = try? repository.syncMetadata().accountName else { return nil }
            let server = (try? ServerCredentials.load(from: profileFolder))??.server.absoluteString
            return "\(name) on \(server ?? "the embedded remote")"
        }
        let log: @Sendable (LibraryLogKind, String) -> Void = { kind, message in
            let kind: SyncLogEntry.Kind = switch kind {
            case .conflict: .conflict
            case .warning: .warning
            case .info: .info
            }
            // The library's lines are its own English; the table translates them once, here.
            try? repository.logSyncEvent(
                kind, english: message, chinese: SyncLogText.message(message, .traditionalChinese), at: clock.now())
        }
        return LibrarySession(root: root, database: database, clock: clock, log: log, account: account)
    }
}

/// The library as the sync engine's companion: synced on the ideas' schedule.
struct LibraryCompanion: SyncCompanion {
    let session: LibrarySession

    var name: String { "library" }

    var zone: RecordZoneID { LibrarySession.zone }

    func sync() async throws {
        try await session.sync()
    }

    func pendingCount() -> Int? {
        try? session.localPendingCount()
    }

    func overwriteRemote() async throws {
        try await session.overwriteRemote()
    }
}

extension IdeaBoxCommand.Library {
    /// `ideabox library sync [--json]`
    struct Sync: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "sync", abstract: .english("Sync the library folder now; exits non-zero with the reason if it can't.", chinese: "立即同步資料夾；無法同步時以非零結束並說明原因。"))

        @Flag(help: .english("Print what the sync did as JSON.", chinese: "以 JSON 印出同步做了什麼。")) var json = false
        @OptionGroup var options: LibraryOptions

        func run(in context: CommandContext) async throws {
            let report = try await options.session(in: context).sync()
            try LibraryOutput.print(report, json: json, context: context, overwrote: false)
        }
    }

    /// `ideabox library overwrite-remote --yes`
    struct OverwriteRemote: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "overwrite-remote",
            abstract: .english("Make the remote hold exactly this library folder; every other device follows. Needs --yes.", chinese: "讓遠端只保存這個資料夾的內容；其他裝置都會跟著更新。需要 --yes。"))

        @Flag(help: .english("Confirm that the remote's files this folder lacks are deleted.", chinese: "確認刪除遠端上這個資料夾沒有的檔案。")) var yes = false
        @Flag(help: .english("Print what was done as JSON.", chinese: "以 JSON 印出做了什麼。")) var json = false
        @OptionGroup var options: LibraryOptions

        func run(in context: CommandContext) async throws {
            guard yes else { throw FullCommandError.libraryOverwriteNeedsConfirmation }
            let report = try await options.session(in: context).overwriteRemote()
            try LibraryOutput.print(report, json: json, context: context, overwrote: true)
        }
    }

    /// `ideabox library status [--json]`
    struct Status: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: .english("Show the library's files, what waits to go up or come down, and the last sync.", chinese: "顯示資料夾的檔案、等待上傳或下載的項目，以及上次同步。"))

        @Flag(help: .english("Print the status as JSON.", chinese: "以 JSON 印出狀態。")) var json = false
        @OptionGroup var options: LibraryOptions

        func run(in context: CommandContext) async throws {
            let status = try await options.session(in: context).status()
            if json {
                print(try Output.json(status))
                return
            }
            print(CommandLineText.libraryStatusLines(status, context.language).joined(separator: "\n"))
        }
    }
}

enum LibraryOutput {
    static func print(_ report: LibraryReport, json: Bool, context: CommandContext, overwrote: Bool) throws {
        if json {
            Swift.print(try Output.json(report))
            return
        }
        report.refused.forEach { Output.error($0) }
        Swift.print(CommandLineText.librarySynced(report, overwrote: overwrote, context.language))
    }
}
