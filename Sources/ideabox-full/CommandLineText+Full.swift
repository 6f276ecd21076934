import ArgumentParser
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import IdeaSync
import LibrarySync
import ServerStore

/// The words of the commands only `ideabox-full` runs (sync, status, log, remote, account,
/// library, serve): the rest of `CommandLineText`, English and Traditional Chinese side by
/// side. Chinese lines end without a full stop.
extension CommandLineText {
    // MARK: sync, status, log

    /// What `sync` did.
    static func synced(_ report: SyncReport, pending: Int, overwrote: Bool, _ language: Language) -> String {
        switch language {
        case .english:
            let counts = "\(report.sent) sent, \(report.received) received, \(report.conflicts) \(report.conflicts == 1 ? "conflict" : "conflicts")"
                + (pending == 0 ? "" : ", \(pending) still pending")
            return overwrote ? "Overwrote the remote with this profile's ideas: \(counts)." : "Synced: \(counts)."
        case .traditionalChinese:
            let counts = "送出 \(report.sent) 筆、收到 \(report.received) 筆、衝突 \(report.conflicts) 筆"
                + (pending == 0 ? "" : "，仍有 \(pending) 筆待送出")
            return overwrote ? "已用這台裝置的靈感覆寫遠端：\(counts)" : "已同步：\(counts)"
        }
    }

    /// One line of `sync --watch`: the time, then what happened.
    static func watchLine(_ line: WatchLine, _ language: Language) -> String {
        let english = language == .english
        let what: String
        if let report = line.report {
            what = synced(report, pending: line.pending ?? 0, overwrote: false, language)
        } else if let status = line.status {
            what = UIText(language: language).syncState(status, now: line.at)
        } else if let delivery = line.delivery {
            what = switch delivery {
            case .live: english ? "Listening: changes of other devices arrive live." : "監聽中：其他裝置的變更即時送達"
            case .polling: english ? "No long poll: looking for changes every second, trying again." : "無長輪詢：每秒檢查變更，稍後重試"
            }
        } else {
            what = ""
        }
        return "\(line.at.iso8601)  \(what)"
    }

    /// The line the app leaves behind when it quits with changes not yet sent.
    static func pendingAtQuit(_ count: Int, _ language: Language) -> String {
        switch language {
        case .english:
            "\(count) \(count == 1 ? "change waits" : "changes wait") to be sent; kept on this device, "
                + "\(count == 1 ? "it goes" : "they go") out at the next start or ideabox sync."
        case .traditionalChinese: "\(count) 筆變更尚未送出；已保存在這台裝置，下次啟動或執行 ideabox sync 時送出"
        }
    }

    /// How changes arrive, for `status`: from the profile's running app or `sync --watch`.
    static func delivery(_ delivery: ChangeDelivery?, _ language: Language) -> String {
        switch (delivery, language) {
        case (.live, .english): "live (a long poll is held)"
        case (.polling, .english): "polling (no long poll; looking every second)"
        case (nil, .english): "when synced (no app or sync --watch is running)"
        case (.live, .traditionalChinese): "即時（長輪詢中）"
        case (.polling, .traditionalChinese): "輪詢中（無長輪詢；每秒檢查）"
        case (nil, .traditionalChinese): "同步時（沒有執行中的全螢幕介面或 sync --watch）"
        }
    }

    /// `status`, one field a line.
    static func statusLines(_ status: SyncStatusReport, _ language: Language) -> [String] {
        let endpoint = status.remote
        let error = status.lastSyncError.map(oneLine)
        var lines: [String]
        switch language {
        case .english:
            lines = [
                "device: \(status.device)",
                "account: " + (status.account.map { "signed in as \($0)" } ?? "not signed in"),
                "network: " + (status.isOffline ? "offline" : "online"),
                "pending changes: \(status.pendingCount)",
                "stale changes: " + (status.staleCount == 0
                    ? "0" : "\(status.staleCount) (not confirmed by the remote for 30 days; kept and still sent)"),
                "changes arrive: " + (status.isOffline
                    ? "not while offline (ideabox remote offline off, or o in the app)"
                    : status.account == nil ? "not while signed out" : delivery(status.changeDelivery, language)),
                "last sync: " + (status.lastSyncAt?.iso8601 ?? "never"),
                "last error: " + (error ?? "none"),
                "ideas belong to: " + (status.boundAccount ?? "no account yet"),
                EncryptionText.statusLine(status.encryption, language),
            ]
            if let server = endpoint.server {
                lines.insert(contentsOf: ["server: \(server.absoluteString)", "container: \(endpoint.container ?? "") (\(endpoint.environment ?? ""))"], at: 1)
            } else {
                lines.insert("remote: embedded (on this machine)", at: 1)
            }
            if let ahead = status.clockOffset {
                lines.append("clock: this machine's is \(duration(abs(ahead), language)) \(ahead > 0 ? "ahead of" : "behind") the remote's; "
                    + "edits are stamped by the remote's")
            }
        case .traditionalChinese:
            lines = [
                "裝置: \(status.device)",
                "帳號: " + (status.account.map { "已登入 \($0)" } ?? "未登入"),
                "網路: " + (status.isOffline ? "離線" : "連線中"),
                "待送出變更: \(status.pendingCount)",
                "逾期未確認: " + (status.staleCount == 0 ? "0" : "\(status.staleCount)（遠端已 30 天未確認；保留並會繼續送出）"),
                "變更送達: " + (status.isOffline
                    ? "離線時不會送達（ideabox remote offline off，或在介面中按 o）"
                    : status.account == nil ? "未登入時不會送達" : delivery(status.changeDelivery, language)),
                "上次同步: " + (status.lastSyncAt?.iso8601 ?? "從未"),
                "上次錯誤: " + (error ?? "無"),
                "靈感所屬帳號: " + (status.boundAccount ?? "尚未綁定"),
                EncryptionText.statusLine(status.encryption, language),
            ]
            if let server = endpoint.server {
                lines.insert(contentsOf: ["伺服器: \(server.absoluteString)", "容器: \(endpoint.container ?? "") (\(endpoint.environment ?? ""))"], at: 1)
            } else {
                lines.insert("遠端: 內建（在這台機器上）", at: 1)
            }
            if let ahead = status.clockOffset {
                lines.append("時鐘: 這台機器比遠端\(ahead > 0 ? "快" : "慢") \(duration(abs(ahead), language))；編輯時間以遠端的時鐘為準")
            }
        }
        return lines
    }

    /// `milliseconds` in the largest whole units a person reads a clock's error in.
    static func duration(_ milliseconds: Int64, _ language: Language) -> String {
        let minutes = milliseconds / 60_000
        let (days, hours, rest) = (minutes / 1440, minutes / 60 % 24, minutes % 60)
        let parts: [(Int64, String, String)] = [(days, "d", "天"), (hours, "h", "小時"), (rest, "min", "分鐘")]
        let shown = parts.drop { $0.0 == 0 }.prefix(2).filter { $0.0 > 0 }
        guard !shown.isEmpty else { return language == .english ? "under a minute" : "不到一分鐘" }
        return shown.map { language == .english ? "\($0.0) \($0.1)" : "\($0.0) \($0.2)" }.joined(separator: " ")
    }

    /// A store error can quote SQL over several lines; each field keeps to its line.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// One line of `log`: time, kind (lined up) and message.
    static func logLine(_ entry: SyncLogEntry, _ language: Language, names: DeviceNames) -> String {
        "\(entry.occurredAt.iso8601)  \(SyncLogText.kind(entry.kind, language))  \(SyncLogText.message(entry, language, names: names))"
    }

    /// One line of `log --conflicts`: time, the idea's full id (it may be deleted, so no
    /// prefix lookup), which side was kept and why, and each side's title, device and
    /// `updatedAt`; then the fields both sides wrote and which side each kept.
    static func conflictLine(_ record: ConflictRecord, _ language: Language, names: DeviceNames) -> String {
        let english = language == .english
        let localWon = switch record.resolution {
        case .local: true
        case .remote: false
        case .tieBreaker: (record.local?.deviceId ?? "") > (record.remote?.deviceId ?? "")
        }
        let why = record.resolution == .tieBreaker
            ? (english ? "the same moment: device order" : "同一時刻：依裝置順序") : (english ? "the later edit" : "較晚的編輯")
        func side(_ idea: Idea?, isLocal: Bool) -> String {
            guard let idea else {
                let on = isLocal ? names.on(names.thisDevice, in: language) : (english ? "on another device" : "在另一台裝置上")
                return english ? "deleted \(on)" : "\(on)刪除"
            }
            return "\"\(idea.title)\" \(names.on(idea.deviceId, in: language)) \(idea.updatedAt.iso8601)"
        }
        let kept = side(localWon ? record.local : record.remote, isLocal: localWon)
        let lost = side(localWon ? record.remote : record.local, isLocal: !localWon)
        let fields = record.orderedFields.map { field in
            let mine = switch record.fields[field]! {
            case .local: true
            case .remote: false
            case .tieBreaker: localWon
            }
            let device = (mine ? record.local : record.remote)?.deviceId
            let whose = device.map { names.name(of: $0, in: language) } ?? (english ? "another device" : "另一台裝置")
            return english ? "\(field.name(in: language)) from \(whose)" : "\(field.name(in: language))取自\(DeviceNames.spaced(whose))"
        }
        return ([
            record.occurredAt.iso8601, record.ideaId.lowercasedString,
            (english ? "kept: " : "保留：") + kept + (english ? " (\(why))" : "（\(why)）"),
            (english ? "lost: " : "落敗：") + lost,
        ] + (fields.isEmpty ? [] : [(english ? "fields: " : "欄位：") + fields.joined(separator: ", ")])).joined(separator: "  ")
    }

    // MARK: remote

    /// `remote offline on|off`.
    static func offline(_ isOffline: Bool, device: String, _ language: Language) -> String {
        switch (language, isOffline) {
        case (.english, true): "Profile \(device) is offline."
        case (.english, false): "Profile \(device) is online."
        case (.traditionalChinese, true): "設定檔 \(device) 已離線"
        case (.traditionalChinese, false): "設定檔 \(device) 已連線"
        }
    }

    /// `remote latency MS`.
    static func latency(_ milliseconds: Int, device: String, _ language: Language) -> String {
        switch (language, milliseconds) {
        case (.english, 0): "Profile \(device): no added latency."
        case (.english, _): "Profile \(device): \(milliseconds) ms added to each request."
        case (.traditionalChinese, 0): "設定檔 \(device)：不加延遲"
        case (.traditionalChinese, _): "設定檔 \(device)：每個請求延遲 \(milliseconds) 毫秒"
        }
    }

    /// `remote quota` and `serve account quota`: the account's new limit.
    static func quota(_ maxRecords: Int?, account: String, _ language: Language) -> String {
        switch (language, maxRecords) {
        case let (.english, limit?): "Account \(account): at most \(limit) records."
        case (.english, nil): "Account \(account): no quota."
        case let (.traditionalChinese, limit?): "帳號 \(account)：最多 \(limit) 筆記錄"
        case (.traditionalChinese, nil): "帳號 \(account)：不限配額"
        }
    }

    /// `serve account quota`: each limit and what the account holds against it.
    static func accountQuota(_ quota: AccountQuota, usage: AccountUsage, account: String, _ language: Language) -> String {
        func of(_ used: String, _ limit: String?) -> String {
            limit.map { "\(used) / \($0)" } ?? used + (language == .english ? " (no limit)" : "（不限）")
        }
        let records = of(String(usage.records), quota.maxRecords.map(String.init))
        let zones = of(String(usage.zones), quota.maxZones.map(String.init))
        let bytes = of(byteSize(usage.assetBytes), quota.maxAssetBytes.map(byteSize))
        return switch language {
        case .english: "Account \(account): records \(records), zones \(zones), assets \(bytes)."
        case .traditionalChinese: "帳號 \(account)：記錄 \(records)，區域 \(zones)，附件 \(bytes)"
        }
    }

    /// `bytes` in the largest binary unit that keeps it at 1 or more: `512 B`, `3.5 MiB`, `1 GiB`.
    static func byteSize(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let shown = unit == 0 || value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
        return "\(shown) \(units[unit])"
    }

    /// `remote status`, one field a line.
    static func remoteStatusLines(_ report: RemoteStatusReport, _ language: Language) -> [String] {
        let status = report.status
        let rates = status.errorRates.map { "  " + rate($0, language) }
        let scripted = status.scriptedErrors.map { "  " + error($0.error, operation: $0.operation, language) }
        let endpoint = report.endpoint
        let served = endpoint.server.map { server in (server.absoluteString, "\(endpoint.container ?? "") (\(endpoint.environment ?? ""))") }
        let unanswered: String? = if case .failure(let error)? = report.usage { error.reason(in: language) } else { nil }
        switch language {
        case .english:
            return [
                "device: \(status.device)",
                "remote: " + (served.map { "server \($0.0)" } ?? "embedded (on this machine)"),
            ] + (served.map { ["container: \($0.1)"] } ?? []) + [
                "account: " + (status.account ?? "not signed in"),
                "network: " + (status.isOffline ? "offline" : "online"),
                "latency: \(status.latencyMilliseconds) ms",
                "error rates:" + (rates.isEmpty ? " none" : ""),
            ] + rates + ["scripted errors:" + (scripted.isEmpty ? " none" : "")] + scripted + [
                "quota: " + (unanswered.map { _ in "unknown" } ?? report.quota.map { "\($0) records" } ?? "none"),
                "records: " + (unanswered.map { "unknown (the server could not be asked: \($0))" }
                    ?? report.recordCount.map { "\($0)" + (served == nil ? "" : " (as the server counts them)") } ?? "unknown"),
            ]
        case .traditionalChinese:
            return [
                "裝置: \(status.device)",
                "遠端: " + (served.map { "伺服器 \($0.0)" } ?? "內建（在這台機器上）"),
            ] + (served.map { ["容器: \($0.1)"] } ?? []) + [
                "帳號: " + (status.account ?? "未登入"),
                "網路: " + (status.isOffline ? "離線" : "連線中"),
                "延遲: \(status.latencyMilliseconds) ms",
                "隨機錯誤:" + (rates.isEmpty ? " 無" : ""),
            ] + rates + ["排定錯誤:" + (scripted.isEmpty ? " 無" : "")] + scripted + [
                "配額: " + (unanswered.map { _ in "不明" } ?? report.quota.map { "\($0) 筆記錄" } ?? "無"),
                "記錄數: " + (unanswered.map { "不明（無法詢問伺服器：\($0)）" }
                    ?? report.recordCount.map { "\($0)" + (served == nil ? "" : "（伺服器的計數）") } ?? "不明"),
            ]
        }
    }

    /// `remote fault add`.
    static func faultAdded(_ fault: ErrorRate, device: String, _ language: Language) -> String {
        switch language {
        case .english: "Profile \(device): \(rate(fault, language))."
        case .traditionalChinese: "設定檔 \(device)：\(rate(fault, language))"
        }
    }

    /// `remote fault script`.
    static func faultsScripted(_ errors: [ScriptedError], device: String, _ language: Language) -> String {
        let names = errors.map { error($0.error, operation: nil, language) }
        let kind = errors.first?.operation.map { "\($0.rawValue) " } ?? ""
        switch (language, errors.count) {
        case (.english, 1): return "Profile \(device): the next \(kind)request fails with \(names[0])."
        case (.english, _):
            return "Profile \(device): the next \(errors.count) \(kind)requests fail with \(names.joined(separator: ", ")), in order."
        case (.traditionalChinese, 1): return "設定檔 \(device)：下一個 \(kind)請求以 \(names[0]) 失敗"
        case (.traditionalChinese, _):
            return "設定檔 \(device)：接下來 \(errors.count) 個 \(kind)請求依序以 \(names.joined(separator: "、")) 失敗"
        }
    }

    /// `remote fault clear`.
    static func faultsCleared(device: String, _ language: Language) -> String {
        switch language {
        case .english: "Profile \(device): no error faults."
        case .traditionalChinese: "設定檔 \(device)：已清除錯誤故障"
        }
    }

    /// `25% of modify requests fail with serviceUnavailable (retry after 5 s)`
    private static func rate(_ rate: ErrorRate, _ language: Language) -> String {
        let share = number((rate.probability * 1000).rounded() / 10) + "%"
        let error = self.error(rate.error, operation: nil, language)
        switch (language, rate.operation) {
        case let (.english, operation?): return "\(share) of \(operation.rawValue) requests fail with \(error)"
        case (.english, nil): return "\(share) of requests fail with \(error)"
        case let (.traditionalChinese, operation?): return "\(share) 的 \(operation.rawValue) 請求以 \(error) 失敗"
        case (.traditionalChinese, nil): return "\(share) 的請求以 \(error) 失敗"
        }
    }

    /// `serviceUnavailable (retry after 5 s)`, with `, modify only` for one kind of request:
    /// the code name as the commands take it, the rest in `language`.
    private static func error(_ error: CloudError, operation: CloudOperation?, _ language: Language) -> String {
        var details: [String] = []
        let english = language == .english
        if let seconds = error.retryAfter { details.append(english ? "retry after \(number(seconds)) s" : "\(number(seconds)) 秒後重試") }
        if let operation { details.append(english ? "\(operation.rawValue) only" : "僅限 \(operation.rawValue)") }
        return error.code.rawValue + (details.isEmpty ? "" : english ? " (\(details.joined(separator: ", ")))" : "（\(details.joined(separator: "，"))）")
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    // MARK: account

    /// `account status`.
    static func accountStatus(_ account: String?, server: URL?, _ language: Language) -> String {
        switch (language, account) {
        case let (.english, account?): "Signed in as \(account)" + (server.map { " on \($0.absoluteString)" } ?? "") + "."
        case (.english, nil): "Not signed in; ideas stay on this device."
        case let (.traditionalChinese, account?): "已登入 \(account)" + (server.map { "（伺服器 \($0.absoluteString)）" } ?? "")
        case (.traditionalChinese, nil): "尚未登入；靈感只保存在這台裝置"
        }
    }

    /// `account sign-in`, on the embedded remote or on a server.
    static func signedIn(_ account: String, server: URL?, _ language: Language) -> String {
        switch language {
        case .english: "Signed in as \(account)" + (server.map { " on \($0.absoluteString)" } ?? "") + "."
        case .traditionalChinese: "已登入 \(account)" + (server.map { "（伺服器 \($0.absoluteString)）" } ?? "")
        }
    }

    /// `account sign-out`.
    static func signedOut(_ language: Language) -> String {
        switch language {
        case .english: "Signed out; ideas stay on this device."
        case .traditionalChinese: "已登出；靈感只保存在這台裝置"
        }
    }

    /// When a profile's ideas belong to another account than the one it is signed in to.
    static func accountMismatch(bound: String?, account: String?, _ language: Language) -> String? {
        guard let bound, let account, bound != account else { return nil }
        return switch language {
        case .english: "This profile's ideas belong to \(bound); they don't sync while signed in as \(account)."
        case .traditionalChinese: "這台裝置的靈感屬於 \(bound)；登入 \(account) 時不會同步"
        }
    }

    /// `account sign-in` on a terminal, when the profile's ideas and the account both hold ideas.
    static func mergeQuestion(own: Int, bound: String, account: String, _ language: Language) -> String {
        switch language {
        case .english:
            "\(account) already holds ideas. Bring this profile's \(own) \(own == 1 ? "idea" : "ideas") (from \(bound)) into \(account), merged? y/n "
        case .traditionalChinese: "\(account) 已有靈感。要把這台裝置的 \(own) 筆靈感（來自 \(bound)）合併到 \(account) 嗎？y/n "
        }
    }

    /// `account sign-in` carried the profile's ideas into the account it signed in to.
    static func ideasCarried(own: Int, bound: String, account: String, _ language: Language) -> String {
        switch language {
        case .english:
            "This profile's \(own) \(own == 1 ? "idea goes" : "ideas go") to \(account) with the next sync, merged with its ideas; \(bound) keeps its copy."
        case .traditionalChinese: "這台裝置的 \(own) 筆靈感將在下次同步時合併到 \(account)；\(bound) 仍保留原本的內容"
        }
    }

    /// `account sign-in` left the profile's ideas with the account they belong to.
    static func keptApart(bound: String, account: String, _ language: Language) -> String {
        switch language {
        case .english:
            "This profile's ideas belong to \(bound); they don't sync while signed in as \(account). "
                + "To bring them into \(account), merged: ideabox account sign-in \(account) --merge"
        case .traditionalChinese:
            "這台裝置的靈感屬於 \(bound)；登入 \(account) 時不會同步。要合併到 \(account)：ideabox account sign-in \(account) --merge"
        }
    }

    // MARK: library

    /// `library status`, one field a line.
    static func libraryStatusLines(_ status: LibraryStatus, _ language: Language) -> [String] {
        switch language {
        case .english:
            [
                "files: \(status.files)",
                "pending up: \(status.pendingUploads) changed, \(status.pendingDeletes) deleted",
                "pending down: \(status.pendingDownloads.map(String.init) ?? "unknown (remote unreachable)")",
                "not synced: \(status.notSynced.isEmpty ? "none" : status.notSynced.joined(separator: ", "))",
                "last sync: \(status.lastSyncAt?.iso8601 ?? "never")",
                "last error: \(status.lastError ?? "none")",
            ]
        case .traditionalChinese:
            [
                "檔案：\(status.files)",
                "待上傳：\(status.pendingUploads) 個變更、\(status.pendingDeletes) 個刪除",
                "待下載：\(status.pendingDownloads.map(String.init) ?? "未知（無法連線遠端）")",
                "未同步：\(status.notSynced.isEmpty ? "無" : status.notSynced.joined(separator: "、"))",
                "上次同步：\(status.lastSyncAt?.iso8601 ?? "從未")",
                "上次錯誤：\(status.lastError ?? "無")",
            ]
        }
    }

    /// What `library sync` or `library overwrite-remote` did.
    static func librarySynced(_ report: LibraryReport, overwrote: Bool, _ language: Language) -> String {
        switch language {
        case .english:
            let counts = "\(report.uploaded) sent, \(report.deletedRemotely) deleted remotely, \(report.downloaded) received, "
                + "\(report.deletedLocally) deleted here, \(report.conflicts) \(report.conflicts == 1 ? "conflict" : "conflicts")"
            return overwrote ? "Overwrote the remote library with this folder: \(counts)." : "Library synced: \(counts)."
        case .traditionalChinese:
            let counts = "送出 \(report.uploaded) 個、遠端刪除 \(report.deletedRemotely) 個、收到 \(report.downloaded) 個、"
                + "本機刪除 \(report.deletedLocally) 個、衝突 \(report.conflicts) 個"
            return overwrote ? "已用這個資料夾覆寫遠端檔案庫：\(counts)" : "檔案庫已同步：\(counts)"
        }
    }

    // MARK: serve

    /// Standard error after `serve account add` printed the token.
    static func tokenShownOnce(account: String, _ language: Language) -> String {
        switch language {
        case .english:
            "Account \(account): the token above is shown only this once. Sign a device in with: ideabox account sign-in \(account) --server URL"
        case .traditionalChinese:
            "帳號 \(account)：上面的權杖只會顯示這一次。用以下指令登入裝置：ideabox account sign-in \(account) --server URL"
        }
    }

    /// `serve account revoke`.
    static func tokensRevoked(_ count: Int, account: String, _ language: Language) -> String {
        switch language {
        case .english: "Account \(account): \(count) \(count == 1 ? "token" : "tokens") revoked."
        case .traditionalChinese: "帳號 \(account)：已撤銷 \(count) 個權杖"
        }
    }

    /// What `serve api-token add` says on standard error under the token it printed.
    static func apiTokenShownOnce(label: String, _ language: Language) -> String {
        switch language {
        case .english:
            "API token \(label): shown only this once. A device uses it with: ideabox account sign-in NAME --server URL --api-token TOKEN"
        case .traditionalChinese:
            "API 權杖 \(label)：只會顯示這一次。裝置這樣使用：ideabox account sign-in NAME --server URL --api-token TOKEN"
        }
    }

    /// What `serve api-token revoke` says.
    static func apiTokensRevoked(_ count: Int, label: String, _ language: Language) -> String {
        switch language {
        case .english: "API token \(label): \(count) \(count == 1 ? "token" : "tokens") revoked."
        case .traditionalChinese: "API 權杖 \(label)：已撤銷 \(count) 個"
        }
    }

    /// One line of `serve api-token list`.
    static func apiTokenLine(_ entry: APITokenEntry, _ language: Language) -> String {
        switch (entry.revoked, language) {
        case (nil, .english): "\(entry.label)  added \(entry.created.iso8601)  valid"
        case let (revoked?, .english): "\(entry.label)  added \(entry.created.iso8601)  revoked \(revoked.iso8601)"
        case (nil, .traditionalChinese): "\(entry.label)  新增於 \(entry.created.iso8601)  有效"
        case let (revoked?, .traditionalChinese): "\(entry.label)  新增於 \(entry.created.iso8601)  撤銷於 \(revoked.iso8601)"
        }
    }

    /// One line of `serve account schema`: the database (its container and environment;
    /// the account's own name is production in the first container `serve` serves), the
    /// record type and field, and its type.
    static func schemaLine(_ entry: FieldTypeEntry, account: String, _ language: Language) -> String {
        let english = language == .english
        let rest = entry.database.dropFirst(account.count + 1)
        let development = rest.hasSuffix("/development")
        let container = entry.database == account ? (english ? "first container" : "第一個容器") : String(development ? rest.dropLast("/development".count) : rest)
        let environment = development ? (english ? "development" : "開發環境") : (english ? "production" : "正式環境")
        return "\(container)\(english ? ", " : "，")\(environment)  \(entry.recordType).\(entry.fieldName)  \(entry.type)"
    }

    /// `serve account schema` for an account that has saved no field yet.
    static func noSchema(account: String, _ language: Language) -> String {
        switch language {
        case .english: "Account \(account) has no field types yet: the first save of each field sets its type."
        case .traditionalChinese: "帳號 \(account) 尚無任何欄位型別：每個欄位第一次儲存時決定其型別"
        }
    }

    /// One line of `serve account token list`.
    static func tokenLine(_ entry: AccessTokenEntry, _ language: Language) -> String {
        let english = language == .english
        let used = entry.lastUsed.map { (english ? "last used " : "上次使用於 ") + $0.iso8601 } ?? (english ? "never used" : "從未使用")
        let state = entry.revoked.map { (english ? "revoked " : "撤銷於 ") + $0.iso8601 } ?? (english ? "valid" : "有效")
        return "\(entry.label)  \(english ? "added" : "新增於") \(entry.created.iso8601)  \(used)  \(state)"
    }

    /// What `serve account delete --yes` says.
    static func accountDeleted(_ account: String, records: Int, _ language: Language) -> String {
        switch language {
        case .english: "Account \(account) deleted, with its \(records) \(records == 1 ? "record" : "records"), files and tokens."
        case .traditionalChinese: "已刪除帳號 \(account) 及其 \(records) 筆記錄、檔案與權杖"
        }
    }

    /// One line of `serve account list`.
    static func accountLine(_ account: String, validTokens: Int, _ language: Language) -> String {
        switch language {
        case .english: "\(account)  \(validTokens) \(validTokens == 1 ? "valid token" : "valid tokens")"
        case .traditionalChinese: "\(account)  \(validTokens) 個有效權杖"
        }
    }
}
