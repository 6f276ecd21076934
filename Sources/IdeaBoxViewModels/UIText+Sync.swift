import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync

/// The sync words beyond the bar: what `s` and `o` say, the sync log and its conflicts, and how old
/// a look is.
extension UIText {
    /// Messages of the sync keys.
    public var syncRequested: String { text("Syncing now", "立即同步") }
    /// `s` while the network is off: why nothing was sent.
    public var syncWhileOffline: String {
        text("Nothing sent: offline.", "離線中，沒有送出。") + pressToGoOnline
    }
    /// `s` while signed out: why nothing was sent.
    public var syncWhileSignedOut: String {
        text("Nothing sent: not signed in (ideabox account sign-in).", "未登入，沒有送出（ideabox account sign-in）。")
    }
    /// `s` while the account is encrypted and this device locked: why nothing was sent.
    public var syncWhileLocked: String {
        text("Nothing sent: encrypted, and this device is locked (ideabox account unlock).", "已加密，這台裝置尚未解鎖，沒有送出（ideabox account unlock）。")
    }
    /// `s` while the account's quota is full: why nothing was sent.
    public var syncWhileQuotaExceeded: String {
        text("Nothing sent: the account's storage is full.", "帳號儲存空間已滿，沒有送出。")
    }
    /// A launch with airplane mode still on from before.
    public var offlineAtLaunch: String {
        text("Airplane mode is still on: nothing syncs.", "飛航模式仍開啟：不會同步。") + pressToGoOnline
    }
    /// How to go online again, after a sentence that says the network is off.
    var pressToGoOnline: String {
        keyed(.network) { text(" Press \($0) to go online.", "按 \($0) 開啟網路。") }
    }
    /// Messages of the sync keys.
    public func network(on: Bool) -> String {
        on ? text("Network on", "網路已開啟") : text("Network off (airplane mode)", "網路已關閉（飛航模式）")
    }
    /// Messages of the sync keys.
    public var overwriteRequested: String {
        text("Overwriting the remote with this device's ideas", "正在以這台裝置的靈感覆寫遠端")
    }
    /// Messages of the sync keys.
    public var libraryOverwriteRequested: String {
        text("Overwriting the remote library with this folder", "正在以這台裝置的資料夾覆寫遠端")
    }

    /// The sync log overlay's title.
    public var syncLogTitle: String { text("Sync log", "同步紀錄") }
    /// The conflicts section's heading.
    public var conflictsTitle: String { text("Conflicts", "衝突") }
    /// No conflicts.
    public var noConflicts: String { text("No conflicts.", "沒有衝突。") }
    /// An empty sync log.
    public var emptySyncLog: String { text("Nothing logged yet.", "尚無紀錄。") }
    /// The sync log overlay's footer.
    public var syncLogHints: String {
        text("↑↓ scroll  h history  O overwrite ideas  L overwrite library  Esc close",
             "↑↓ 捲動  h 衝突的歷史  O 覆寫遠端靈感  L 覆寫資料夾  Esc 關閉")
    }
    /// The overwrite question.
    public var overwriteQuestion: String {
        text("Overwrite the remote's ideas with this device's? Other devices follow. y/n",
             "以這台裝置的靈感覆寫遠端？其他裝置會跟著更新。y/n")
    }
    /// The library overwrite question.
    public var libraryOverwriteQuestion: String {
        text("Overwrite the remote library with this folder? Other devices follow. y/n",
             "以這台裝置的資料夾覆寫遠端？其他裝置會跟著更新。y/n")
    }
    /// A sync log line: its time, kind and message, in the user's language, devices called
    /// by their `names`.
    public func logLine(_ entry: SyncLogEntry, names: DeviceNames? = nil) -> String {
        "\(clockTime(entry.occurredAt))  \(SyncLogText.kind(entry.kind, language)) \(SyncLogText.message(entry, language, names: names))"
    }

    /// A conflict's lines: when and which idea, then the version that was kept and why, and
    /// the one that lost, each with the device it was written on and its time.
    public func conflictLines(_ conflict: ConflictRecord, names: DeviceNames) -> [String] {
        let localWon: Bool
        switch conflict.resolution {
        case .local: localWon = true
        case .remote: localWon = false
        case .tieBreaker:
            localWon = (conflict.local?.deviceId ?? "") > (conflict.remote?.deviceId ?? "")
        }
        let local = version(conflict.local, isThisDevice: true, names: names)
        let remote = version(conflict.remote, isThisDevice: false, names: names)
        let (won, lost) = localWon ? (local, remote) : (remote, local)
        let winner = localWon ? conflict.local : conflict.remote
        let why = conflict.resolution == .tieBreaker
            ? text(" (the same moment: device order)", "（同一時刻：依裝置順序）") : text(" (the later edit)", "（較晚的編輯）")
        let title = winner?.title ?? conflict.local?.title ?? conflict.remote?.title
            ?? String(conflict.ideaId.lowercasedString.prefix(8))
        let indent = "          "
        let fields = conflict.orderedFields.map(fieldName)
        let fieldList = fields.isEmpty ? "" : text(" (\(fields.joined(separator: ", ")))", "（\(fields.joined(separator: "、"))）")
        return [
            clockTime(conflict.occurredAt) + "  " + text("“\(title)”", "「\(title)」") + fieldList,
            indent + text("kept: \(won)\(why)", "保留：\(won)\(why)"),
            indent + text("lost: \(lost)", "落敗：\(lost)"),
        ]
    }


    /// When an idea was last updated, relative to `now`: "just now", "5m ago", "3h ago",
    /// "2d ago", then the date.
    /// The time column of an idea whose change the remote has not confirmed for 30 days.
    public func stale(_ age: String) -> String { text("stale · \(age)", "未確認 · \(age)") }

    public func age(of time: Timestamp, now: Timestamp) -> String {
        let seconds = max(0, (now.milliseconds - time.milliseconds) / 1000)
        switch seconds {
        case ..<60: return text("just now", "剛剛")
        case ..<3600: return text("\(seconds / 60)m ago", "\(seconds / 60) 分鐘前")
        case ..<86_400: return text("\(seconds / 3600)h ago", "\(seconds / 3600) 小時前")
        case ..<(86_400 * 30): return text("\(seconds / 86_400)d ago", "\(seconds / 86_400) 天前")
        default: return String(time.iso8601.prefix(10))
        }
    }
}
