import ArgumentParser
import CloudRemote
import Foundation
import IdeaBoxCommandLine
import IdeaBoxCore
import IdeaStore
import IdeaSync

extension IdeaBoxCommand {
    /// `ideabox sync [--json]`, `ideabox sync --overwrite-remote --yes`
    struct Sync: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "sync", 
            abstract: "Sync this profile with the remote now; exits non-zero with the reason if it can't.")

        @Flag(help: "Print what the sync did as JSON.") var json = false
        @Flag(
            name: .customLong("overwrite-remote"),
            help: "Make the remote hold exactly this profile's ideas; every other device follows. Needs --yes.")
        var overwriteRemote = false
        @Flag(help: "Confirm --overwrite-remote.") var yes = false
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if yes && !overwriteRemote { throw ValidationError("--yes only confirms --overwrite-remote.") }
        }

        func run(in context: CommandContext) throws {
            guard !overwriteRemote || yes else { throw SyncCommandError.overwriteNeedsConfirmation }
            let sync = try context.openSync(store)
            let report: SyncReport
            do {
                report = overwriteRemote ? try sync.session.overwriteRemote() : try sync.session.run()
            } catch {
                sync.session.recordFailure(error)
                throw error
            }
            let summary = SyncSummary(
                report: report, pending: try sync.repository.pendingChangeCount(),
                syncedAt: try sync.repository.syncMetadata().lastSyncAt)
            if json {
                print(try Output.json(summary))
                return
            }
            let counts = context.text(
                "\(report.sent) sent, \(report.received) received, \(report.conflicts) \(report.conflicts == 1 ? "conflict" : "conflicts")",
                "送出 \(report.sent) 筆、收到 \(report.received) 筆、衝突 \(report.conflicts) 筆")
            let stillPending = summary.pending == 0
                ? ""
                : context.text(", \(summary.pending) still pending", "，仍有 \(summary.pending) 筆待送出")
            print(overwriteRemote
                ? context.text("Overwrote the remote with this profile's ideas: \(counts)\(stillPending).",
                               "已用這台裝置的靈感覆寫遠端：\(counts)\(stillPending)")
                : context.text("Synced: \(counts)\(stillPending).", "已同步：\(counts)\(stillPending)"))
        }
    }

    /// `ideabox status [--json]`
    struct Status: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "status", 
            abstract: "Show the account, the network, pending changes, the last sync and its error.")

        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let sync = try context.openSync(store)
            let remote = try sync.remote.cloud.status(device: sync.remote.device)
            let metadata = try sync.repository.syncMetadata()
            let status = SyncStatusReport(
                device: sync.remote.device, account: try sync.remote.signedInAccount(), isOffline: remote.isOffline,
                pendingCount: try sync.repository.pendingChangeCount(), staleCount: try sync.repository.staleIdeaIds().count,
                lastSyncAt: metadata.lastSyncAt,
                lastSyncError: metadata.lastSyncError, boundAccount: metadata.accountName)
            if json {
                print(try Output.json(status))
                return
            }
            var lines: [(String, String)] = [
                (context.text("device", "裝置"), status.device),
                (context.text("account", "帳號"), status.account.map { context.text("signed in as \($0)", "已登入 \($0)") }
                    ?? context.text("not signed in", "未登入")),
                (context.text("network", "網路"), status.isOffline ? context.text("offline", "離線") : context.text("online", "連線中")),
                (context.text("pending changes", "待送出變更"), String(status.pendingCount)),
                (context.text("stale changes", "逾期未確認"), status.staleCount == 0 ? "0" : context.text(
                    "\(status.staleCount) (not confirmed by the remote for 30 days; kept and still sent)",
                    "\(status.staleCount)（遠端已 30 天未確認；保留並會繼續送出）")),
                (context.text("last sync", "上次同步"), status.lastSyncAt?.iso8601 ?? context.text("never", "從未")),
                (context.text("last error", "上次錯誤"), status.lastSyncError.map(Self.oneLine) ?? context.text("none", "無")),
                (context.text("ideas belong to", "靈感所屬帳號"), status.boundAccount ?? context.text("no account yet", "尚未綁定")),
            ]
            if let server = sync.remote.credentials?.server {
                lines.insert((context.text("server", "伺服器"), server.absoluteString), at: 1)
            }
            print(lines.map { "\($0.0): \($0.1)" }.joined(separator: "\n"))
        }

        /// A store error can quote SQL over several lines; each field keeps to its line.
        private static func oneLine(_ text: String) -> String {
            text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }
    }

    /// `ideabox log [--conflicts] [--json] [--limit N]`
    struct Log: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "log", 
            abstract: "Show the sync log, or the settled conflicts with both sides, newest first.")

        @Flag(help: "Show the conflicts (the last \(IdeaRepository.conflictLogLimit) are kept).") var conflicts = false
        @Flag(help: "Print JSON; conflicts come with both full snapshots.") var json = false
        @Option(help: "Print at most this many (default: 100).") var limit: Int?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        func run(in context: CommandContext) throws {
            let repository = try context.openRepository(store)
            if conflicts {
                let records = try repository.conflicts(limit: limit ?? IdeaRepository.conflictLogLimit)
                if json {
                    print(try Output.json(records.map(ConflictOutput.init)))
                } else {
                    for record in records { print(Self.line(record, context: context)) }
                }
            } else {
                let entries = try repository.syncLog(limit: limit ?? 100)
                if json {
                    print(try Output.json(entries))
                } else {
                    for entry in entries { print(Self.line(entry, language: context.language)) }
                }
            }
        }

        /// Time, kind (lined up) and message, in `language`.
        static func line(_ entry: SyncLogEntry, language: Language) -> String {
            "\(entry.occurredAt.iso8601)  \(SyncLogText.kind(entry.kind, language))  \(SyncLogText.message(entry.message, language))"
        }

        /// Time, the idea's full id (it may be deleted, so no prefix lookup), who won, and
        /// each side's title and `updatedAt`.
        static func line(_ record: ConflictRecord, context: CommandContext) -> String {
            func side(_ label: String, _ idea: Idea?) -> String {
                guard let idea else { return "\(label): " + context.text("deleted", "已刪除") }
                return "\(label): \"\(idea.title)\" \(idea.updatedAt.iso8601)"
            }
            return [
                record.occurredAt.iso8601, record.ideaId.lowercasedString, SyncLogText.resolution(record.resolution, context.language),
                side(context.text("local", "本機"), record.local), side(context.text("remote", "遠端"), record.remote),
            ].joined(separator: "  ")
        }
    }

    /// `ideabox remote …`: the simulated network and faults of this profile's device.
    struct Remote: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remote", 
            abstract: "Control the simulated remote for this profile: network, latency, errors, quota.",
            subcommands: [Offline.self, Status.self, Latency.self, Fault.self, Quota.self])
    }

    /// `ideabox account status | sign-in NAME | sign-out`: the simulated iCloud account.
    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "account", 
            abstract: "The simulated account this profile is signed in to.",
            subcommands: [Status.self, SignIn.self, SignOut.self])
    }
}

// MARK: - remote

extension IdeaBoxCommand.Remote {
    /// `ideabox remote offline on|off`
    struct Offline: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "offline", 
            abstract: "Airplane mode for this profile: `on` cuts its network, `off` brings it back.")

        @Argument(help: "on: no network; off: network back.") var setting: OnOff
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            try remote.cloud.setOffline(setting == .on, device: remote.device)
            print(setting == .on
                ? context.text("Profile \(remote.device) is offline.", "設定檔 \(remote.device) 已離線")
                : context.text("Profile \(remote.device) is online.", "設定檔 \(remote.device) 已連線"))
        }
    }

    /// `ideabox remote status [--json]`
    struct Status: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Show this profile's account, network, latency, faults and quota.")

        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            let status = try remote.cloud.status(device: remote.device)
            if json {
                print(try Output.json(RemoteStatusOutput(status)))
                return
            }
            let none = context.text("none", "無")
            var lines = [
                context.text("device", "裝置") + ": " + status.device,
                context.text("account", "帳號") + ": " + (status.account ?? context.text("not signed in", "未登入")),
                context.text("network", "網路") + ": "
                    + (status.isOffline ? context.text("offline", "離線") : context.text("online", "連線中")),
                context.text("latency", "延遲") + ": \(status.latencyMilliseconds) ms",
            ]
            lines.append(context.text("error rates", "隨機錯誤") + ":" + (status.errorRates.isEmpty ? " " + none : ""))
            lines += status.errorRates.map { "  " + FaultText.rate($0, context: context) }
            lines.append(context.text("scripted errors", "排定錯誤") + ":" + (status.scriptedErrors.isEmpty ? " " + none : ""))
            lines += status.scriptedErrors.map { "  " + FaultText.error($0.error, operation: $0.operation) }
            lines.append(context.text("quota", "配額") + ": "
                + (status.quota.map { context.text("\($0) records", "\($0) 筆記錄") } ?? none))
            lines.append(context.text("records", "記錄數") + ": \(status.recordCount)")
            print(lines.joined(separator: "\n"))
        }
    }

    /// `ideabox remote latency MS`
    struct Latency: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "latency", abstract: "Add latency to each of this profile's requests.")

        @Argument(help: "Milliseconds, 0 to 60000; 0 removes it.") var milliseconds: Int
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard (0...60_000).contains(milliseconds) else {
                throw ValidationError("Latency must be 0 to 60000 ms, not \(milliseconds).")
            }
        }

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            try remote.cloud.setLatency(milliseconds: milliseconds, device: remote.device)
            print(milliseconds == 0
                ? context.text("Profile \(remote.device): no added latency.", "設定檔 \(remote.device)：不加延遲")
                : context.text("Profile \(remote.device): \(milliseconds) ms added to each request.",
                               "設定檔 \(remote.device)：每個請求延遲 \(milliseconds) 毫秒"))
        }
    }

    /// `ideabox remote fault add | script | clear`
    struct Fault: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "fault", 
            abstract: "Make this profile's requests fail: at random, by script, or no more.",
            subcommands: [AddRate.self, Script.self, Clear.self])
    }

    /// `ideabox remote quota N|off`
    struct Quota: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "quota", 
            abstract: "Limit the records of the account this profile is signed in to.")

        @Argument(help: "The most records the account may hold, or `off`.") var limit: String
        @OptionGroup var store: StoreOptions

        func validate() throws {
            _ = try maxRecords()
        }

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            if let credentials = remote.credentials {
                throw SyncCommandError.quotaIsTheServers(account: credentials.account)
            }
            guard let account = try remote.cloud.signedInAccount(device: remote.device) else {
                throw SyncCommandError.quotaNeedsAccount(device: remote.device)
            }
            let maxRecords = try maxRecords()
            try remote.cloud.setQuota(maxRecords: maxRecords, account: account)
            print(maxRecords.map {
                context.text("Account \(account): at most \($0) records.", "帳號 \(account)：最多 \($0) 筆記錄")
            } ?? context.text("Account \(account): no quota.", "帳號 \(account)：不限配額"))
        }

        private func maxRecords() throws -> Int? {
            if limit.lowercased() == "off" { return nil }
            guard let value = Int(limit), value >= 0 else {
                throw ValidationError("The quota must be a number of records (0 or more) or `off`, not \"\(limit)\".")
            }
            return value
        }
    }
}

extension IdeaBoxCommand.Remote.Fault {
    /// `ideabox remote fault add CODE [--rate P] [--retry-after S] [--operation OP]`
    struct AddRate: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Fail a share of this profile's requests with an error, at random.")

        @Argument(help: "The error, by its CloudError code name, such as serviceUnavailable.") var code: String
        @Option(help: "The chance a request fails, more than 0 and at most 1 (default: 1).") var rate = 1.0
        @Option(name: .customLong("retry-after"), help: ArgumentHelp(
            "Seconds the error asks to wait (zoneBusy, requestRateLimited, serviceUnavailable).", valueName: "seconds"))
        var retryAfter: Double?
        @Option(help: ArgumentHelp("Only this kind of request: \(FaultArguments.operationNames).", valueName: "op"))
        var operation: String?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard rate > 0 && rate <= 1 else { throw ValidationError("--rate must be more than 0 and at most 1, such as 0.25.") }
            _ = try FaultArguments.error(code, retryAfter: retryAfter)
            _ = try FaultArguments.operation(operation)
        }

        func run(in context: CommandContext) throws {
            let fault = ErrorRate(
                probability: rate, error: try FaultArguments.error(code, retryAfter: retryAfter),
                operation: try FaultArguments.operation(operation))
            let remote = try context.openRemote(store)
            try remote.cloud.addErrorRate(fault, device: remote.device)
            print(context.text("Profile \(remote.device): ", "設定檔 \(remote.device)：") + FaultText.rate(fault, context: context)
                + context.text(".", ""))
        }
    }

    /// `ideabox remote fault script CODE... [--operation OP]`
    struct Script: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "script", 
            abstract: "Fail this profile's next requests with these errors, one each, in order.")

        @Argument(help: "Error code names, such as serviceUnavailable internalError.") var codes: [String]
        @Option(help: ArgumentHelp("Only this kind of request: \(FaultArguments.operationNames).", valueName: "op"))
        var operation: String?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard !codes.isEmpty else {
                throw ValidationError("Name at least one error code: \(FaultArguments.codeNames).")
            }
            _ = try errors()
        }

        func run(in context: CommandContext) throws {
            let errors = try errors()
            let remote = try context.openRemote(store)
            try remote.cloud.scriptErrors(errors, device: remote.device)
            let names = errors.map { FaultText.error($0.error, operation: nil) }
            let kind = errors.first?.operation.map { "\($0.rawValue) " } ?? ""
            print(errors.count == 1
                ? context.text("Profile \(remote.device): the next \(kind)request fails with \(names[0]).",
                               "設定檔 \(remote.device)：下一個 \(kind)請求以 \(names[0]) 失敗")
                : context.text("Profile \(remote.device): the next \(errors.count) \(kind)requests fail with \(names.joined(separator: ", ")), in order.",
                               "設定檔 \(remote.device)：接下來 \(errors.count) 個 \(kind)請求依序以 \(names.joined(separator: "、")) 失敗"))
        }

        private func errors() throws -> [ScriptedError] {
            let operation = try FaultArguments.operation(operation)
            return try codes.map { ScriptedError(try FaultArguments.error($0, retryAfter: nil), operation: operation) }
        }
    }

    /// `ideabox remote fault clear`
    struct Clear: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "clear", 
            abstract: "Remove this profile's random and scripted errors (the network and latency stay as set).")

        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            try remote.cloud.clearErrorRates(device: remote.device)
            try remote.cloud.clearScriptedErrors(device: remote.device)
            print(context.text("Profile \(remote.device): no error faults.", "設定檔 \(remote.device)：已清除錯誤故障"))
        }
    }
}

// MARK: - account

extension IdeaBoxCommand.Account {
    /// `ideabox account status [--json]`
    struct Status: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Show the account this profile is signed in to, and whose ideas it holds.")

        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            let account = try remote.signedInAccount()
            let bound = try context.openRepository(store).syncMetadata().accountName
            if json {
                print(try Output.json(AccountOutput(device: remote.device, account: account, boundAccount: bound)))
                return
            }
            let server = remote.credentials.map { context.text(" on \($0.server.absoluteString)", "（伺服器 \($0.server.absoluteString)）") } ?? ""
            print(account.map { context.text("Signed in as \($0)\(server).", "已登入 \($0)\(server)") }
                ?? context.text("Not signed in; ideas stay on this device.", "尚未登入；靈感只保存在這台裝置"))
            if let mismatch = AccountText.mismatch(bound: bound, account: account, context: context) { print(mismatch) }
        }
    }

    /// `ideabox account sign-in NAME [--server URL [--token T]]`
    struct SignIn: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in",
            abstract: "Sign this profile in to an account, on the embedded remote or on `ideabox serve`; sync starts with the next run.",
            discussion: """
                With --server, the profile syncs with that server from now on, with the token `ideabox serve account add` \
                printed (from --token, or else the first line of standard input, which keeps it out of shell history). \
                The URL and token are kept in the profile's server.json, readable by you only. Without --server the \
                profile goes back to the embedded remote.
                """)

        @Argument(help: "The account name.") var name: String
        @Option(help: ArgumentHelp("The server's URL, such as http://127.0.0.1:8420.", valueName: "url")) var server: String?
        @Option(help: ArgumentHelp("The account's token (default: read from standard input).", valueName: "token")) var token: String?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty, !name.contains(where: \.isNewline) else {
                throw ValidationError("The account name must be one line and not empty.")
            }
            if token != nil && server == nil { throw ValidationError("--token goes with --server.") }
            if let server {
                guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                    throw ValidationError("--server must be an http:// or https:// URL, such as http://127.0.0.1:8420, not \"\(server)\".")
                }
            }
        }

        func run(in context: CommandContext) throws {
            let account = name.trimmingCharacters(in: .whitespaces)
            let location = try context.location(store)
            let bound = try context.openRepository(store).syncMetadata().accountName
            if let server, let url = URL(string: server) {
                guard let token = (token ?? readLine(strippingNewline: true))?.trimmingCharacters(in: .whitespaces),
                      !token.isEmpty, !token.contains(where: \.isWhitespace)
                else { throw SyncCommandError.tokenNeeded }
                try ServerCredentials(server: url, account: account, token: token).save(to: location.profileDirectory)
                print(context.text("Signed in as \(account) on \(url.absoluteString).", "已登入 \(account)（伺服器 \(url.absoluteString)）"))
            } else {
                try ServerCredentials.remove(from: location.profileDirectory)
                let remote = try context.openRemote(store)
                try remote.cloud.signIn(device: remote.device, account: account)
                print(context.text("Signed in as \(account).", "已登入 \(account)"))
            }
            if let mismatch = AccountText.mismatch(bound: bound, account: account, context: context) { print(mismatch) }
        }
    }

    /// `ideabox account sign-out`
    struct SignOut: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-out", abstract: "Sign this profile out; everything keeps working on this device.")

        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            if var credentials = remote.credentials {
                credentials.token = nil
                try credentials.save(to: try context.location(store).profileDirectory)
            } else {
                try remote.cloud.signOut(device: remote.device)
            }
            print(context.text("Signed out; ideas stay on this device.", "已登出；靈感只保存在這台裝置"))
        }
    }
}

// MARK: - Support

/// `on` or `off`.
enum OnOff: String, ExpressibleByArgument, CaseIterable {
    case on, off
}

/// Errors of the sync commands.
enum SyncCommandError: UserFacingError {
    case overwriteNeedsConfirmation
    case quotaNeedsAccount(device: String)
    case quotaIsTheServers(account: String)
    case tokenNeeded

    func message(in language: Language) -> String {
        switch (self, language) {
        case (.overwriteNeedsConfirmation, .english):
            "--overwrite-remote replaces the ideas of every device of the account with this profile's; add --yes to do it."
        case (.overwriteNeedsConfirmation, .traditionalChinese):
            "--overwrite-remote 會用這台裝置的靈感取代帳號下所有裝置的靈感；確定要執行請加上 --yes"
        case let (.quotaNeedsAccount(device), .english):
            "Profile \(device) is not signed in; sign in first, the quota belongs to an account."
        case let (.quotaNeedsAccount(device), .traditionalChinese):
            "設定檔 \(device) 尚未登入；配額屬於帳號，請先登入"
        case let (.quotaIsTheServers(account), .english):
            "This profile syncs with a server; its quota is set there: ideabox serve account quota \(account) N."
        case let (.quotaIsTheServers(account), .traditionalChinese):
            "這台裝置與伺服器同步；配額要在伺服器上設定：ideabox serve account quota \(account) N"
        case (.tokenNeeded, .english):
            "Signing in to a server needs the account's token: pass --token or type it on standard input."
        case (.tokenNeeded, .traditionalChinese):
            "登入伺服器需要帳號的權杖：請使用 --token 或從標準輸入輸入"
        }
    }
}

/// Reading fault arguments: error codes and request kinds by name, ignoring case.
private enum FaultArguments {
    static let codeNames = CloudError.Code.allCases.map(\.rawValue).joined(separator: ", ")
    static let operationNames = CloudOperation.allCases.map(\.rawValue).joined(separator: ", ")
    static let codesWithRetryAfter: [CloudError.Code] = [.zoneBusy, .requestRateLimited, .serviceUnavailable]

    static func error(_ name: String, retryAfter: Double?) throws -> CloudError {
        guard let code = CloudError.Code.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            throw ValidationError("Unknown error code \"\(name)\"; use one of: \(codeNames).")
        }
        if let retryAfter {
            guard codesWithRetryAfter.contains(code) else {
                throw ValidationError(
                    "--retry-after only goes with \(codesWithRetryAfter.map(\.rawValue).joined(separator: ", ")).")
            }
            guard retryAfter >= 0 && retryAfter.isFinite else {
                throw ValidationError("--retry-after must be 0 or more seconds.")
            }
        }
        return CloudError(code: code, retryAfter: retryAfter)
    }

    static func operation(_ name: String?) throws -> CloudOperation? {
        guard let name else { return nil }
        guard let operation = CloudOperation.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            throw ValidationError("Unknown operation \"\(name)\"; use one of: \(operationNames).")
        }
        return operation
    }
}

/// Faults in words.
private enum FaultText {
    /// `25% of modify requests fail with serviceUnavailable (retry after 5 s)`
    static func rate(_ rate: ErrorRate, context: CommandContext) -> String {
        let share = percent(rate.probability)
        let error = self.error(rate.error, operation: nil)
        return rate.operation.map { context.text("\(share) of \($0.rawValue) requests fail with \(error)", "\(share) 的 \($0.rawValue) 請求以 \(error) 失敗") }
            ?? context.text("\(share) of requests fail with \(error)", "\(share) 的請求以 \(error) 失敗")
    }

    /// `serviceUnavailable (retry after 5 s)`, with `, modify only` for one kind of request.
    static func error(_ error: CloudError, operation: CloudOperation?) -> String {
        var details: [String] = []
        if let seconds = error.retryAfter { details.append("retry after \(number(seconds)) s") }
        if let operation { details.append("\(operation.rawValue) only") }
        return error.code.rawValue + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
    }

    private static func percent(_ probability: Double) -> String {
        number((probability * 1000).rounded() / 10) + "%"
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// What to say when a profile's ideas belong to another account than the one it is signed in to.
private enum AccountText {
    static func mismatch(bound: String?, account: String?, context: CommandContext) -> String? {
        guard let bound, let account, bound != account else { return nil }
        return context.text(
            "This profile's ideas belong to \(bound); they don't sync while signed in as \(account).",
            "這台裝置的靈感屬於 \(bound)；登入 \(account) 時不會同步")
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
private struct SyncStatusReport: Encodable {
    var device: String
    var account: String?
    var isOffline: Bool
    var pendingCount: Int
    /// Changes the remote has not confirmed for 30 days.
    var staleCount: Int
    var lastSyncAt: Timestamp?
    var lastSyncError: String?
    var boundAccount: String?

    enum CodingKeys: String, CodingKey {
        case device, account, isOffline, pendingCount, staleCount, lastSyncAt, lastSyncError, boundAccount
    }

    /// Absent values are written as `null`, so every key is always there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(account, forKey: .account)
        try container.encode(isOffline, forKey: .isOffline)
        try container.encode(pendingCount, forKey: .pendingCount)
        try container.encode(staleCount, forKey: .staleCount)
        try container.encode(lastSyncAt, forKey: .lastSyncAt)
        try container.encode(lastSyncError, forKey: .lastSyncError)
        try container.encode(boundAccount, forKey: .boundAccount)
    }
}

/// What `account status --json` prints.
private struct AccountOutput: Encodable {
    var device: String
    var account: String?
    var boundAccount: String?

    enum CodingKeys: String, CodingKey { case device, account, boundAccount }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(account, forKey: .account)
        try container.encode(boundAccount, forKey: .boundAccount)
    }
}

/// One conflict as `log --conflicts --json` prints it: the id in lower case like every
/// idea's, and a deleted side as `null`.
private struct ConflictOutput: Encodable {
    var record: ConflictRecord

    enum CodingKeys: String, CodingKey { case ideaId, occurredAt, local, remote, resolution }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.ideaId.lowercasedString, forKey: .ideaId)
        try container.encode(record.occurredAt, forKey: .occurredAt)
        try container.encode(record.local, forKey: .local)
        try container.encode(record.remote, forKey: .remote)
        try container.encode(record.resolution, forKey: .resolution)
    }
}

/// `remote status --json`: faults by code name rather than the remote's stored form.
private struct RemoteStatusOutput: Encodable {
    struct Fault: Encodable {
        var code: String
        var retryAfter: Double?
        var operation: String?
        var probability: Double?

        enum CodingKeys: String, CodingKey { case code, retryAfter, operation, probability }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(retryAfter, forKey: .retryAfter)
            try container.encode(operation, forKey: .operation)
            if let probability { try container.encode(probability, forKey: .probability) }
        }
    }

    var status: RemoteDeviceStatus

    init(_ status: RemoteDeviceStatus) {
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case device, account, isOffline, latencyMilliseconds, errorRates, scriptedErrors, quota, recordCount
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status.device, forKey: .device)
        try container.encode(status.account, forKey: .account)
        try container.encode(status.isOffline, forKey: .isOffline)
        try container.encode(status.latencyMilliseconds, forKey: .latencyMilliseconds)
        try container.encode(
            status.errorRates.map {
                Fault(code: $0.error.code.rawValue, retryAfter: $0.error.retryAfter, operation: $0.operation?.rawValue,
                      probability: $0.probability)
            },
            forKey: .errorRates)
        try container.encode(
            status.scriptedErrors.map {
                Fault(code: $0.error.code.rawValue, retryAfter: $0.error.retryAfter, operation: $0.operation?.rawValue)
            },
            forKey: .scriptedErrors)
        try container.encode(status.quota, forKey: .quota)
        try container.encode(status.recordCount, forKey: .recordCount)
    }
}

/// JSON the way the other commands print it.
extension CommandContext {
    /// `english` or `chinese`, in the user's language.
    fileprivate func text(_ english: String, _ chinese: String) -> String {
        language == .english ? english : chinese
    }
}
