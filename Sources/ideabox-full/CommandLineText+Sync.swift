import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import IdeaSync

/// The words of `sync`, `status` and `log` (commands only `ideabox-full` runs), English and
/// Traditional Chinese side by side. Chinese lines end without a full stop.
extension CommandLineText {
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
}
