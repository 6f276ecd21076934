import AccountEncryption
import ArgumentParser
import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import Synchronization

extension IdeaBoxCommand {
    /// `ideabox sync [--json] [--watch]`, `ideabox sync --overwrite-remote --yes`
    struct Sync: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "sync", abstract: .english("Sync this profile with the remote now; exits non-zero with the reason if it can't.", chinese: "立即與遠端同步這個設定檔；無法同步時以非零結束並說明原因。"))

        @Flag(help: .english("Print what the sync did as JSON.", chinese: "以 JSON 印出同步做了什麼。")) var json = false
        @Flag(help: .english("""
            Sync now, then keep syncing on every change of another device (a long poll) and every local change, \
            one line per sync, until SIGINT or SIGTERM: for a machine without the app open.
            """, chinese: "立即同步，之後在其他裝置每次變更（長輪詢）與本機每次變更時持續同步，每次同步一行，直到 SIGINT 或 SIGTERM：給沒有開著介面的機器。"))
        var watch = false
        @Flag(
            name: .customLong("overwrite-remote"),
            help: .english("Make the remote hold exactly this profile's ideas; every other device follows. Needs --yes.", chinese: "讓遠端只保存這個設定檔的靈感；其他裝置都會跟著更新。需要 --yes。"))
        var overwriteRemote = false
        @Flag(help: .english("Confirm --overwrite-remote.", chinese: "確認 --overwrite-remote。")) var yes = false
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if yes && !overwriteRemote { throw ValidationError("--yes only confirms --overwrite-remote.") }
            if watch && overwriteRemote { throw ValidationError("--watch and --overwrite-remote do not go together.") }
        }

        func run(in context: CommandContext) async throws {
            guard !overwriteRemote || yes else { throw FullCommandError.overwriteNeedsConfirmation }
            if watch { try await runWatching(in: context) }
            let sync = try context.openSync(store)
            let report: SyncReport
            do {
                report = overwriteRemote ? try await sync.session.overwriteRemote() : try await sync.session.run()
            } catch {
                sync.session.recordFailure(error)
                throw error
            }
            try await ResealCompanion.resealIfMarked(encryption: sync.remote.encryption, profileDirectory: try context.location(store).profileDirectory)
            let summary = SyncSummary(
                report: report, pending: try sync.repository.pendingChangeCount(),
                syncedAt: try sync.repository.syncMetadata().lastSyncAt)
            if json {
                print(try Output.json(summary))
            } else {
                print(CommandLineText.synced(report, pending: summary.pending, overwrote: overwriteRemote, context.language))
            }
        }
    }
}

extension IdeaBoxCommand.Sync {
    /// `--watch`: the app's sync without the app, until SIGINT or SIGTERM.
    fileprivate func runWatching(in context: CommandContext) async throws -> Never {
        let sync = try context.openSync(store)
        let library = try context.librarySession(store, folder: nil, repository: sync.repository, database: sync.remote.database)
        let (json, language, clock, repository) = (json, context.language, context.clock, sync.repository)
        let say: @Sendable (WatchLine) -> Void = { line in
            let text = json ? (try? WatchLine.encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) } : CommandLineText.watchLine(line, language)
            FileHandle.standardOutput.write(Data(((text ?? "") + "\n").utf8))
        }
        let printed = PrintedState()
        let profileDirectory = try context.location(store).profileDirectory
        let live = LiveSync(
            context: context, sync: (sync.session, sync.remote), profileDirectory: profileDirectory,
            companions: [
                LibraryCompanion(session: library),
                ResealCompanion(encryption: sync.remote.currentEncryption, marker: ResealMarker(directory: profileDirectory)),
            ],
            onStatus: { status in
                switch status {
                case .starting, .syncing, .synced: break
                default: if printed.changed(to: status) { say(WatchLine(at: clock.now(), status: status)) }
                }
            },
            onSynced: { report in
                printed.forget()
                let pending = (try? repository.pendingChangeCount()) ?? 0
                say(WatchLine(at: clock.now(), report: report, pending: pending))
            },
            onDelivery: { say(WatchLine(at: clock.now(), delivery: $0)) })
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let stops = [SIGINT, SIGTERM].map { (number: Int32) -> any DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                live.stop()
                Foundation.exit(0)
            }
            source.resume()
            return source
        }
        // The main queue (in Dispatch's main loop while this command's task awaits) runs
        // until a signal exits; the sources live as long.
        live.start()
        while true {
            try? await Task.sleep(for: .seconds(3600))
            withExtendedLifetime(stops) {}
        }
    }
}

/// The failure `sync --watch` printed last: a state it stays in (signed out, offline, a
/// retry of the same error) is one line, not one per try.
private final class PrintedState: Sendable {
    private let last = Mutex<SyncStatus?>(nil)

    /// Whether `status` says something else than the line printed last (a countdown aside).
    func changed(to status: SyncStatus) -> Bool {
        last.withLock { last in
            defer { last = status }
            return last.map { !Self.same($0, status) } ?? true
        }
    }

    /// A sync succeeded: the next failure is news.
    func forget() {
        last.withLock { $0 = nil }
    }

    private static func same(_ a: SyncStatus, _ b: SyncStatus) -> Bool {
        switch (a, b) {
        case let (.retrying(_, _, first), .retrying(_, _, second)), let (.failed(first, _), .failed(second, _)):
            first == second
        case let (.offline(first), .offline(second)): first == second
        default: a == b
        }
    }
}

/// One line of `sync --watch`: a sync, a failure, or a change in how changes arrive.
struct WatchLine: Encodable, Sendable {
    var at: Timestamp
    var event: String
    var report: SyncReport?
    var pending: Int?
    var status: SyncStatus?
    var delivery: ChangeDelivery?

    init(at: Timestamp, report: SyncReport, pending: Int) {
        (self.at, event, self.report, self.pending) = (at, "synced", report, pending)
    }

    init(at: Timestamp, status: SyncStatus) {
        (self.at, event, self.status) = (at, "status", status)
    }

    init(at: Timestamp, delivery: ChangeDelivery) {
        (self.at, event, self.delivery) = (at, "delivery", delivery)
    }

    /// `--json` writes one compact object a line.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    enum CodingKeys: String, CodingKey { case at, event, sent, received, conflicts, pending, state, reason, delivery }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(at, forKey: .at)
        try container.encode(event, forKey: .event)
        try container.encodeIfPresent(report?.sent, forKey: .sent)
        try container.encodeIfPresent(report?.received, forKey: .received)
        try container.encodeIfPresent(report?.conflicts, forKey: .conflicts)
        try container.encodeIfPresent(pending, forKey: .pending)
        try container.encodeIfPresent(delivery, forKey: .delivery)
        if let status {
            try container.encode(WatchLine.state(status), forKey: .state)
            try container.encodeIfPresent(WatchLine.reason(status), forKey: .reason)
        }
    }

    /// The status's name, as `--json` spells it.
    static func state(_ status: SyncStatus) -> String {
        status.kind.rawValue
    }

    /// Why sync failed, if it did.
    static func reason(_ status: SyncStatus) -> String? {
        switch status {
        case .retrying(_, _, let reason), .failed(let reason, _): reason.reason(in: .english)
        default: nil
        }
    }
}

extension IdeaBoxCommand {
    /// `ideabox status [--json]`
    struct Status: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: .english("Show the account, the network, pending changes, the last sync and its error.", chinese: "顯示帳號、網路、待送出變更、上次同步與其錯誤。"))

        @Flag(help: .english("Print JSON.", chinese: "印出 JSON。")) var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            try context.requireExistingData(store)
            let sync = try context.openSync(store)
            // A damaged page anywhere is news, not only one this command happens to read.
            try sync.repository.checkEveryPage()
            let remote = try sync.remote.deviceStatus()
            let metadata = try sync.repository.syncMetadata()
            let account = try sync.remote.signedInAccount()
            // How changes arrive means something only while a sync can happen.
            let profile = try context.location(store).profileDirectory
            let delivery = remote.isOffline || account == nil ? nil : DeliveryFile(directory: profile).current()
            let status = SyncStatusReport(
                device: sync.remote.device, remote: sync.remote.endpoint, account: account, isOffline: remote.isOffline,
                pendingCount: try sync.repository.pendingChangeCount(), staleCount: try sync.repository.staleChangeCount(),
                lastSyncAt: metadata.lastSyncAt, lastSyncError: metadata.lastSyncError, boundAccount: metadata.accountName,
                changeDelivery: delivery,
                encryption: EncryptionStateFile(directory: profile).current(keyFile: AccountKeyFile(directory: profile)),
                clockOffset: try Self.noticeableClockOffset(sync.repository, clock: context.clock))
            if json {
                print(try Output.json(status))
            } else {
                // The error is kept in English; its log line has the person's language too.
                var shown = status
                if let error = status.lastSyncError,
                   let logged = try sync.repository.syncLog(limit: 20).first(where: { $0.kind == .error && $0.message == error }) {
                    shown.lastSyncError = SyncLogText.message(logged, context.language)
                }
                print(CommandLineText.statusLines(shown, context.language)
                    .joined(separator: "\n"))
            }
        }
    }
}

extension IdeaBoxCommand.Status {
    /// How far this machine's clock is ahead of the remote's, if more than a minute.
    fileprivate static func noticeableClockOffset(_ repository: IdeaRepository, clock: WallClock) throws -> Int64? {
        guard let estimate = try repository.remoteClockEstimate(), estimate.holds(on: clock),
              abs(estimate.offset) > RemoteClockEstimate.noticeable
        else { return nil }
        return -estimate.offset
    }
}

extension IdeaBoxCommand {
    /// `ideabox log [--conflicts] [--json] [--limit N]`
    struct Log: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "log", abstract: .english("Show the sync log, or the settled conflicts with both sides, newest first.", chinese: "顯示同步紀錄，或已解決的衝突與雙方版本，最新的在前。"))

        @Flag(help: .english("Show the conflicts (the last \(IdeaRepository.conflictLogLimit) are kept).", chinese: "顯示衝突（保留最後 \(IdeaRepository.conflictLogLimit) 筆）。")) var conflicts = false
        @Flag(help: .english("Print JSON; conflicts come with both full snapshots.", chinese: "印出 JSON；衝突附上雙方完整的內容。")) var json = false
        @Option(help: .english("Print at most this many (default: 100).", chinese: "最多印出這麼多筆（預設：100）。")) var limit: Int?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        func run(in context: CommandContext) throws {
            try context.requireExistingData(store)
            let repository = try context.openRepository(store)
            let names = try repository.deviceNames()
            if conflicts {
                let records = try repository.conflicts(limit: limit ?? IdeaRepository.conflictLogLimit)
                if json {
                    print(try Output.json(records.map(ConflictOutput.init)))
                } else {
                    for record in records { print(CommandLineText.conflictLine(record, context.language, names: names)) }
                }
            } else {
                let entries = try repository.syncLog(limit: limit ?? 100)
                if json {
                    print(try Output.json(entries))
                } else {
                    for entry in entries { print(CommandLineText.logLine(entry, context.language, names: names)) }
                }
            }
        }
    }
}

/// What `sync --json` prints.
private struct SyncSummary: Encodable {
    var report: SyncReport
    var pending: Int
    var syncedAt: Timestamp?

    enum CodingKeys: String, CodingKey { case sent, received, conflicts, pending, syncedAt }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(report.sent, forKey: .sent)
        try container.encode(report.received, forKey: .received)
        try container.encode(report.conflicts, forKey: .conflicts)
        try container.encode(pending, forKey: .pending)
        try container.encode(syncedAt, forKey: .syncedAt)
    }
}

/// What `status` shows.
struct SyncStatusReport: Encodable {
    var device: String
    /// The remote the profile's requests reach.
    var remote: RemoteEndpoint
    var account: String?
    var isOffline: Bool
    var pendingCount: Int
    /// Changes the remote has not confirmed for 30 days.
    var staleCount: Int
    var lastSyncAt: Timestamp?
    var lastSyncError: String?
    var boundAccount: String?
    /// How the profile's running app or `sync --watch` learns of changes; nil if none runs.
    var changeDelivery: ChangeDelivery?
    /// Whether the account is encrypted (`on`, `off`) or encrypted and this device `locked`,
    /// as the last sync found it and the device's key file says.
    var encryption: EncryptionState
    /// How far this machine's clock is ahead of the remote's (behind if negative), in
    /// milliseconds, where the remote's answers showed more than a minute; else nil.
    var clockOffset: Int64?

    enum CodingKeys: String, CodingKey {
        case device, remote, server, container, environment, account, isOffline, pendingCount, staleCount, lastSyncAt, lastSyncError, boundAccount, changeDelivery, encryption
        case clockOffset = "clockAheadOfRemoteMs"
    }

    /// Absent values are written as `null`, so every key is always there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(remote.kind, forKey: .remote)
        try container.encode(remote.server, forKey: .server)
        try container.encode(remote.container, forKey: .container)
        try container.encode(remote.environment, forKey: .environment)
        try container.encode(account, forKey: .account)
        try container.encode(isOffline, forKey: .isOffline)
        try container.encode(pendingCount, forKey: .pendingCount)
        try container.encode(staleCount, forKey: .staleCount)
        try container.encode(lastSyncAt, forKey: .lastSyncAt)
        try container.encode(lastSyncError, forKey: .lastSyncError)
        try container.encode(boundAccount, forKey: .boundAccount)
        try container.encode(changeDelivery, forKey: .changeDelivery)
        try container.encode(encryption, forKey: .encryption)
        try container.encode(clockOffset, forKey: .clockOffset)
    }
}

/// One conflict as `log --conflicts --json` prints it: the id in lower case like every
/// idea's, a deleted side as `null`, and the fields both sides wrote with the side each
/// went to (`{"title": "Remote"}`; empty for a delete against an edit).
private struct ConflictOutput: Encodable {
    var record: ConflictRecord

    enum CodingKeys: String, CodingKey { case ideaId, occurredAt, local, remote, resolution, fields }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.ideaId.lowercasedString, forKey: .ideaId)
        try container.encode(record.occurredAt, forKey: .occurredAt)
        try container.encode(record.local, forKey: .local)
        try container.encode(record.remote, forKey: .remote)
        try container.encode(record.resolution, forKey: .resolution)
        try container.encode(
            Dictionary(uniqueKeysWithValues: record.fields.map { ($0.key.rawValue, $0.value.rawValue) }), forKey: .fields)
    }
}
