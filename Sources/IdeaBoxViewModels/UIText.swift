import Foundation
import Glibc
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync

/// Every word the full-screen app shows, in the user's language.
public struct UIText: Sendable {
    /// The language of these texts.
    public let language: Language
    /// The time zone their times are shown in.
    public let timeZone: TimeZone
    /// The keys bound, which the texts that name a key name.
    public var keys = AppKeys()

    /// Texts in `language`, times shown in `timeZone` (default: the machine's).
    public init(language: Language, timeZone: TimeZone = .autoupdatingCurrent) {
        self.language = language
        self.timeZone = timeZone
    }

    func text(_ english: String, _ chinese: String) -> String {
        language == .english ? english : chinese
    }

    /// The app's name in the tab bar.
    public var appName: String { "IdeaBox" }

    /// A tab's label.
    public func tabLabel(_ tab: AppModel.Tab) -> String {
        switch tab {
        case .all: text("All Ideas", "全部靈感")
        case .completed: text("Completed", "已完成")
        case .search: text("Search", "搜尋")
        }
    }

    /// A tab's label on a narrow screen.
    public func shortTabLabel(_ tab: AppModel.Tab) -> String {
        switch tab {
        case .all: text("All", "全部")
        case .completed: text("Done", "完成")
        case .search: text("Search", "搜尋")
        }
    }

    /// The status bar's sync part before sync exists.
    public var localOnly: String { text("Local only", "僅限本機") }
    /// Changes waiting to be sent.
    public func pending(_ count: Int) -> String { text("\(count) pending", "\(count) 筆待同步") }
    /// A sync companion's waiting changes: "library: 3 pending".
    public func pending(_ companion: CompanionPending) -> String {
        let name = companion.name == "library" ? text("library", "資料夾") : companion.name
        return text("\(name): \(companion.count) pending", "\(name)：\(companion.count) 筆待同步")
    }

    /// The status bar's sync part: one of `SyncStatus`'s states, with a live countdown while
    /// a retry waits. The state's own words come first and always show; the detail (why,
    /// or what the person can do) is what a narrow bar cuts.
    public func syncWords(_ status: SyncStatus, now: Timestamp) -> SyncWords {
        let seconds = { (time: Timestamp) in max(0, (time.milliseconds - now.milliseconds + 999) / 1000) }
        let signIn = "ideabox account sign-in"
        switch status {
        case .retrying(_, _, .storage(let error)) where error.isDamage, .failed(.storage(let error), _) where error.isDamage:
            // The words to act on first: a path before them would push them off a narrow bar.
            return SyncWords(
                text("Database damaged — run ideabox repair", "資料庫已損毀 — 請執行 ideabox repair"), detail: error.message(in: language))
        case .retrying(_, let retryAt, .transient(.serverDatabaseUnavailable)),
             .failed(.transient(.serverDatabaseUnavailable), let retryAt):
            // Said as what it is, not as the error it travelled as: the server answers, its
            // database does not, and what was saved here waits and goes when it is back.
            return SyncWords(
                text("Server's database not answering", "伺服器的資料庫沒有回應"),
                detail: text(
                    "next try in \(seconds(retryAt))s; changes wait on this device", "\(seconds(retryAt)) 秒後再試；變更暫存在這台裝置"))
        case .starting:
            return SyncWords(text("Starting sync…", "準備同步…"))
        case .synced(let time):
            return SyncWords(text("Synced \(clockTime(time))", "已同步 \(clockTime(time))"))
        case .syncing(let pending):
            return SyncWords(text("Syncing \(pending)…", "同步中 \(pending)…"))
        case let .retrying(attempt, retryAt, reason):
            return SyncWords(
                text("Retrying \(attempt)/3 in \(seconds(retryAt))s", "\(seconds(retryAt)) 秒後重試 \(attempt)/3"),
                detail: reason.reason(in: language))
        case .offline(let pending):
            return SyncWords(
                text("Offline: \(pending) pending", "離線：\(pending) 筆待同步"), detail: listKey(.network).map { text("\($0) to go online", "按 \($0) 開啟網路") })
        case .notSignedIn:
            return SyncWords(text("Not signed in — local only", "未登入 — 僅限本機"), detail: text("sign in: \(signIn)", "登入：\(signIn)"))
        case .signedOutByServer:
            return SyncWords(
                text("Signed out by the server", "已被伺服器登出"), detail: text("sign in again: \(signIn)", "請重新登入：\(signIn)"))
        case .signedOutByICloud:
            return SyncWords(
                text("Signed out by iCloud", "已被 iCloud 登出"),
                detail: text("sign in again: \(signIn) --icloud", "請重新登入：\(signIn) --icloud"))
        case .quotaExceeded:
            return SyncWords(
                text("Quota exceeded — local only", "超出儲存配額 — 僅限本機"),
                detail: text("delete ideas or ask for a larger quota", "刪除靈感或請管理者加大配額"))
        case let .wrongAccount(bound, current):
            return SyncWords(
                text("Another account's ideas — local only", "靈感屬於其他帳號 — 僅限本機"),
                detail: text("signed in as \(current); sign in as \(bound)", "已登入 \(current)；請登入 \(bound)"))
        case .locked(keyHeldHere: false):
            return SyncWords(text("Encrypted — run ideabox account unlock", "已加密 — 請執行 ideabox account unlock"))
        case .locked(keyHeldHere: true):
            return SyncWords(
                text("Encrypted — key not in use", "已加密 — 金鑰已不再使用"),
                detail: text("account unlock / encryption disable", "account unlock 或 encryption disable"))
        case let .failed(reason, retryAt):
            return SyncWords(
                text("Sync failed · next try in \(seconds(retryAt))s", "同步失敗 · \(seconds(retryAt)) 秒後再試"),
                detail: reason.reason(in: language))
        }
    }

    /// The sync words as one line (`sync --watch`, tests): the state, then its detail.
    public func syncState(_ status: SyncStatus, now: Timestamp) -> String {
        let words = syncWords(status, now: now)
        return words.detail.map { "\(words.state): \($0)" } ?? words.state
    }

    /// The status bar's mark, beside the sync state, while the account's ideas travel
    /// sealed and this device holds the key.
    public var encrypted: String { text("encrypted", "已加密") }

    /// How changes of other devices arrive, after the sync state: `live` while a long poll
    /// is held, `polling` while none is.
    public func delivery(_ delivery: ChangeDelivery) -> String {
        switch delivery {
        case .live: text("live", "即時")
        case .polling: text("polling", "輪詢中")
        }
    }

    /// `hh:mm:ss` in the person's time zone.
    public func clockTime(_ time: Timestamp) -> String {
        let parts = localParts(time)
        return "\(Self.two(parts.tm_hour)):\(Self.two(parts.tm_min)):\(Self.two(parts.tm_sec))"
    }

    /// `yyyy-mm-dd hh:mm` in the person's time zone: the list's time with `times = "absolute"`.
    public func absoluteTime(_ time: Timestamp) -> String {
        let parts = localParts(time)
        return localDate(time) + " \(Self.two(parts.tm_hour)):\(Self.two(parts.tm_min))"
    }

    /// `yyyy-mm-dd` in the person's time zone.
    public func localDate(_ time: Timestamp) -> String {
        let parts = localParts(time)
        return "\(parts.tm_year + 1900)-\(Self.two(parts.tm_mon + 1))-\(Self.two(parts.tm_mday))"
    }

    /// The calendar fields of `time` in `timeZone`.
    func localParts(_ time: Timestamp) -> tm {
        let seconds = time.milliseconds / 1000
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        var shifted = time_t(seconds + Int64(offset))
        var parts = tm()
        gmtime_r(&shifted, &parts)
        return parts
    }

    static func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
