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

    private func text(_ english: String, _ chinese: String) -> String {
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
    private func localParts(_ time: Timestamp) -> tm {
        let seconds = time.milliseconds / 1000
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        var shifted = time_t(seconds + Int64(offset))
        var parts = tm()
        gmtime_r(&shifted, &parts)
        return parts
    }

    private static func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }

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
    private var pressToGoOnline: String {
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

    /// A field's name as the form labels it.
    public func fieldName(_ field: IdeaField) -> String { field.name(in: language) }

    /// The history overlay's title.
    public func historyTitle(_ title: String) -> String { text("History of “\(title)”", "「\(title)」的歷史") }
    /// The history overlay's footer.
    public var historyHints: String {
        text("↑↓ choose  r restore this version  Esc close", "↑↓ 選擇  r 還原這個版本  Esc 關閉")
    }
    /// A version's heading line in the history overlay: which, when, and on which device.
    public func versionHeading(_ version: IdeaVersion, names: DeviceNames) -> String {
        let name = version.number.map { text("version \($0)", "版本 \($0)") } ?? text("current", "目前")
        let time = "\(localDate(version.writtenAt)) \(clockTime(version.writtenAt))"
        var heading = "\(name)  \(time)  \(names.on(version.writtenBy, in: language))"
        if let reason = version.reason {
            heading += "  " + reason.text(in: language)
            if !version.fields.isEmpty {
                let names = version.fields.map(fieldName)
                heading += text(" (\(names.joined(separator: ", ")))", "（\(names.joined(separator: "、"))）")
            }
        }
        return heading
    }
    /// A version's title line in the history overlay.
    public func versionTitle(_ version: IdeaVersion) -> String { text("“\(version.title)”", "「\(version.title)」") }
    /// A version's done flag and description, on one line.
    public func versionDetails(_ version: IdeaVersion) -> String {
        let done = version.isCompleted ? text("[x] done", "[x] 已完成") : text("[ ] not done", "[ ] 未完成")
        let description = version.description.split(whereSeparator: \.isNewline).joined(separator: " ")
        return description.isEmpty ? done : done + " · " + description
    }
    /// A deleted idea's current state in the history overlay.
    public var deletedVersion: String { text("deleted", "已刪除") }
    /// `r` restored a version.
    public func restoredVersion(_ number: Int64, _ title: String) -> String {
        text("Restored version \(number) of “\(title)”", "已還原「\(title)」的版本 \(number)") + toUndo
    }
    /// `r` on the current version.
    public var alreadyCurrent: String { text("This is the current version", "這已是目前的版本") }
    /// `h` with no idea selected, or on a sync log with no conflict.
    public var noHistory: String { text("No idea to show the history of", "沒有可以查看歷史的靈感") }

    /// One side of a conflict: the edit (or delete) and the device it was made on, and when.
    private func version(_ idea: Idea?, isThisDevice: Bool, names: DeviceNames) -> String {
        guard let idea else {
            return isThisDevice
                ? text("the delete on this device", "在這台裝置上的刪除") : text("the delete on another device", "在另一台裝置上的刪除")
        }
        let time = "\(localDate(idea.updatedAt)) \(clockTime(idea.updatedAt))"
        let on = names.on(idea.deviceId, in: language)
        return text("the edit \(on) of \(time)", "\(on) \(time) 的編輯")
    }

    /// Hints shown on the line above the status bar in the lists, most useful first; the
    /// last two (help and quit) always show, and the others as far as the width allows.
    public var listHints: [String] {
        hints([
            (.new, "new", "新增"), (.edit, "edit", "編輯"), (.toggleDone, "done", "完成"), (.delete, "delete", "刪除"),
            (.search, "search", "搜尋"), (.undo, "undo", "復原"), (.help, "help", "說明"), (.quit, "quit", "離開"),
        ], in: keys.list)
    }
    /// Hints while typing a search.
    public var searchFieldHints: [String] {
        [text("type to search", "輸入即搜尋")] + hints([
            (.results, "results", "結果"), (.nextTab, "next tab", "下一分頁"), (.leave, "leave", "離開"),
        ], in: keys.search)
    }
    /// Hints in the edit form.
    public var formHints: [String] {
        hints([(.nextField, "next field", "下一欄"), (.save, "save", "儲存"), (.cancel, "cancel", "取消")], in: keys.form)
    }
    /// Hints while a selection of many is open, its size first.
    public func selectionHints(_ count: Int) -> [String] {
        [text("\(count) selected", "已選取 \(count) 筆")] + hints([
            (.toggleDone, "done", "完成"), (.undo, "undo", "復原"), (.delete, "delete", "刪除"), (.leaveSelection, "leave", "離開"),
        ], in: keys.list)
    }

    /// Hints while the first key of a two-key sequence waits for its second (at most
    /// `AppModel.sequenceWait`): that key, then each second key and what it does.
    public func sequenceHints(after first: Key) -> [String] {
        let waiting = keyLabel([first]) + text("… then", "… 接著按")
        return [waiting] + keys.list.secondKeys(after: first).map { keyLabel([$0.key]) + " " + describe($0.action) }
    }

    /// `key word` for each action that has a key, its first one.
    private func hints<Action>(_ words: [(Action, String, String)], in map: KeyMap<Action>) -> [String] {
        words.compactMap { action, english, chinese in
            map.sequences(for: action).first.map { keyLabel($0) + " " + text(english, chinese) }
        }
    }

    /// How the texts write `keys`: `Ctrl-R`, `PgDn`, `↑`, `Space`, two keys in a row as `g x`.
    public func keyLabel(_ keys: KeySequence) -> String {
        keys.map { key in
            switch key {
            case .char(" "): text("Space", "空白鍵")
            case .char(let character): String(character)
            case .ctrl(let letter): "Ctrl-" + letter.uppercased()
            case .f(let number): "F\(number)"
            case .enter: "Enter"
            case .tab: "Tab"
            case .backTab: "Shift-Tab"
            case .backspace: "Backspace"
            case .delete: "Delete"
            case .up: "↑"
            case .down: "↓"
            case .left: "←"
            case .right: "→"
            case .home: "Home"
            case .end: "End"
            case .pageUp: "PgUp"
            case .pageDown: "PgDn"
            case .escape: "Esc"
            default: KeyName.name(key)
            }
        }.joined(separator: " ")
    }

    /// The first key of a list action, as the texts write it; nil when it has none.
    public func listKey(_ action: ListAction) -> String? { keys.list.sequences(for: action).first.map(keyLabel) }
    /// The first key of a form action, as the texts write it; nil when it has none.
    public func formKey(_ action: FormAction) -> String? { keys.form.sequences(for: action).first.map(keyLabel) }

    /// `words` of the list action's first key, or nothing when the action has no key.
    private func keyed(_ action: ListAction, _ words: (String) -> String) -> String {
        listKey(action).map(words) ?? ""
    }

    /// "— u to undo", after a message about something `u` takes back.
    private var toUndo: String { keyed(.undo) { text(" — \($0) to undo", "— 按 \($0) 復原") } }

    /// How many hints at the end of each list always show.
    public static let keptHints = 2

    /// The search field's label.
    public var searchLabel: String { text("Search:", "搜尋：") }
    /// How many ideas a search found.
    public func matches(_ count: Int, capped: Bool) -> String {
        let number = capped ? "\(count)+" : "\(count)"
        return language == .english ? (count == 1 && !capped ? "1 match" : "\(number) matches") : "找到 \(number) 筆"
    }
    /// An empty search field's prompt.
    public var searchPrompt: String {
        text("Type to search titles and descriptions.", "輸入文字以搜尋標題與描述。")
    }
    /// An empty list.
    public var emptyList: String {
        text("No ideas yet.", "還沒有靈感。") + keyed(.new) { text(" Press \($0) to add one.", "按 \($0) 新增一筆。") }
    }
    /// An empty Completed tab.
    public var emptyCompleted: String { text("Nothing completed yet.", "還沒有已完成的靈感。") }
    /// A search without results.
    public var noMatches: String { text("No ideas match.", "沒有符合的靈感。") }

    /// The form's title for a new idea.
    public var newIdea: String { text("New idea", "新增靈感") }
    /// The form's title when editing.
    public var editIdea: String { text("Edit idea", "編輯靈感") }
    /// Field labels.
    public var titleField: String { text("Title", "標題") }
    /// Field labels.
    public var descriptionField: String { text("Description", "描述") }
    /// Field labels.
    public var completedField: String { text("Completed", "已完成") }
    /// The discard question.
    public var discardQuestion: String { text("Discard your changes? y/n", "放棄變更？y/n") }
    /// The question when the idea being edited was deleted by another device.
    public var deletedElsewhereQuestion: String {
        text("Deleted on another device. Save your text as a new idea? y/n",
             "這筆靈感已在其他裝置刪除。要把內容存成新的靈感嗎？y/n")
    }
    /// The same question naming the device that deleted it (`device`, by `names`).
    /// A deletion by this device came from another window or command of it: "meanwhile".
    public func deletedQuestion(by device: String, names: DeviceNames) -> String {
        if device == names.thisDevice {
            return text("Deleted meanwhile on this device. Save your text as a new idea? y/n", "這筆靈感已在這台裝置上另外刪除。要把內容存成新的靈感嗎？y/n")
        }
        let on = names.on(device, in: language)
        return text("Deleted \(on). Save your text as a new idea? y/n", "這筆靈感已\(on)刪除。要把內容存成新的靈感嗎？y/n")
    }
    /// The same question where the form is narrow.
    public var deletedElsewhereShortQuestion: String {
        text("Deleted elsewhere: save as new? y/n", "已在其他裝置刪除，存成新靈感？y/n")
    }
    /// The idea being edited was deleted elsewhere and its text was saved as a new idea.
    public func savedAsNew(_ title: String) -> String {
        text("Saved as a new idea: “\(title)”", "已存成新的靈感：「\(title)」")
    }

    /// The form's notice: the idea changed on another device (`device`, by `names`) while it was open.
    public func changedElsewhereNotice(_ fields: [IdeaField], by device: String, names: DeviceNames) -> String {
        let fieldNames = fields.map(fieldName)
        let on = names.on(device, in: language)
        let save = formKey(.save).map { text(" — \($0) saves only what you changed", "— \($0) 只儲存你修改的欄位") } ?? ""
        return text("Changed \(on): \(fieldNames.joined(separator: ", "))", "\(on)已修改：\(fieldNames.joined(separator: "、"))") + save
    }
    /// The form's question: fields changed here and on another device (`device`, by `names`).
    public func mineOrTheirsQuestion(_ fields: [IdeaField], by device: String, names: DeviceNames) -> String {
        let fieldNames = fields.map(fieldName).joined(separator: ", ")
        let on = names.on(device, in: language)
        return text("\(fieldNames.prefix(1).uppercased() + fieldNames.dropFirst()) changed here and \(on): m keep mine, t keep theirs",
                    "\(fields.map(fieldName).joined(separator: "、"))在這裡和\(on)都被修改：m 保留我的，t 保留對方的")
    }

    /// The delete question.
    public func deleteQuestion(_ title: String) -> String {
        text("Delete “\(title)”? y/n", "刪除「\(title)」？y/n")
    }
    /// The delete question for a selection of many ideas.
    public func deleteQuestion(count: Int) -> String {
        text("Delete \(count) selected ideas? y/n", "刪除選取的 \(count) 筆靈感？y/n")
    }
    /// The delete box title.
    public var deleteTitle: String { text("Delete", "刪除") }

    /// Status messages.
    public func saved(_ title: String) -> String { text("Saved “\(title)”", "已儲存「\(title)」") }
    /// Status messages.
    public func added(_ title: String) -> String { text("Added “\(title)”", "已新增「\(title)」") }
    /// Status messages.
    public func deleted(_ title: String) -> String {
        text("Deleted “\(title)”", "已刪除「\(title)」") + toUndo
    }
    /// Status messages.
    public func markedDone(_ done: Bool, _ title: String) -> String {
        done ? text("Marked done: “\(title)”", "已標示為完成：「\(title)」") : text("Marked not done: “\(title)”", "已標示為未完成：「\(title)」")
    }
    /// Status messages: a selection's ideas deleted.
    public func deleted(count: Int) -> String {
        text("Deleted \(count) ideas", "已刪除 \(count) 筆靈感") + toUndo
    }
    /// Status messages: a selection's ideas done or not done.
    public func markedDone(_ done: Bool, count: Int) -> String {
        done ? text("Marked \(count) ideas done", "已將 \(count) 筆靈感標示為完成")
            : text("Marked \(count) ideas not done", "已將 \(count) 筆靈感標示為未完成")
    }
    /// `y` sent the idea to the terminal's clipboard (a terminal never confirms it).
    public var copied: String { text("Copied to the clipboard", "已複製到剪貼簿") }
    /// `y` on a terminal that cannot take a copy (TERM=dumb or linux).
    public var copyRefused: String {
        text("This terminal refused the copy: it has no clipboard sequence (OSC 52)", "這個終端機拒絕複製：它不支援剪貼簿序列（OSC 52）")
    }
    /// `g x` on an idea without a link.
    public var noLink: String { text("This idea has no link", "這筆靈感沒有連結") }
    /// `g x` opened a link.
    public func openingLink(_ link: String) -> String { text("Opening \(link)", "正在開啟 \(link)") }
    /// `g x` with no xdg-open on PATH.
    public var noLinkOpener: String {
        text("No xdg-open on this machine to open links with", "這台機器沒有可開啟連結的 xdg-open")
    }
    /// Status messages.
    public var nothingToUndo: String { text("Nothing to undo", "沒有可以復原的動作") }
    /// Status messages.
    public var nothingToRedo: String { text("Nothing to redo", "沒有可以重做的動作") }
    /// What `u` took back.
    public func undid(_ action: UndoHistory.Action) -> String {
        text("Undid \(actionName(action))", "已復原\(actionName(action))") + keyed(.redo) { text(" — \($0) to redo", "— 按 \($0) 重做") }
    }
    /// What `Ctrl-R` made again.
    public func redid(_ action: UndoHistory.Action) -> String {
        text("Redid \(actionName(action))", "已重做\(actionName(action))")
    }
    /// This machine's clock is `milliseconds` ahead of the remote's (behind if negative).
    public func clockOff(aheadBy milliseconds: Int64) -> String {
        let minutes = abs(milliseconds) / 60_000
        let amount = minutes >= 1440 ? text("\(minutes / 1440) d", "\(minutes / 1440) 天")
            : minutes >= 60 ? text("\(minutes / 60) h", "\(minutes / 60) 小時") : text("\(minutes) min", "\(minutes) 分鐘")
        return milliseconds > 0
            ? text("This clock is \(amount) fast; edits follow the server's", "本機時鐘快了 \(amount)；編輯時間以伺服器為準")
            : text("This clock is \(amount) slow; edits follow the server's", "本機時鐘慢了 \(amount)；編輯時間以伺服器為準")
    }

    /// An undo or redo whose idea another device deleted meanwhile.
    public func cannotUndo(_ action: UndoHistory.Action) -> String {
        text("Can't undo \(actionName(action)): the idea was deleted on another device",
             "無法復原\(actionName(action))：這筆靈感已在其他裝置刪除")
    }

    /// An undo or redo refused because another device changed the idea since the action.
    public func changedElsewhere(_ action: UndoHistory.Action, undoing: Bool) -> String {
        let history = keyed(.history) { text(" — \($0) shows the history", " — 按 \($0) 查看歷史") }
        return undoing
            ? text("Changed on another device since; nothing undone", "其他裝置之後已修改；沒有復原任何內容") + history
            : text("Changed on another device since; nothing redone", "其他裝置之後已修改；沒有重做任何內容") + history
    }

    private func actionName(_ action: UndoHistory.Action) -> String {
        switch action {
        case .add(let idea): text("add of “\(idea.title)”", "新增「\(idea.title)」")
        case .delete(let idea): text("delete of “\(idea.title)”", "刪除「\(idea.title)」")
        case .setCompleted(let idea, let done):
            done ? text("done on “\(idea.title)”", "完成「\(idea.title)」") : text("not done on “\(idea.title)”", "未完成「\(idea.title)」")
        case .edit(_, let after): text("edit of “\(after.title)”", "編輯「\(after.title)」")
        case .batch(let actions):
            switch actions.first {
            case .setCompleted(_, true): text("done on \(actions.count) ideas", "完成 \(actions.count) 筆靈感")
            case .setCompleted(_, false): text("not done on \(actions.count) ideas", "未完成 \(actions.count) 筆靈感")
            case .delete: text("delete of \(actions.count) ideas", "刪除 \(actions.count) 筆靈感")
            default: text("\(actions.count) changes", "\(actions.count) 項變更")
            }
        }
    }

    /// A list's position indicator: the selected row's number and the count.
    public func position(_ index: Int, of count: Int) -> String { "\(index + 1)/\(count)" }
    /// Status messages.
    public var syncUnavailable: String {
        text("Sync isn't set up: ideas stay on this device", "尚未設定同步：靈感只保存在這台裝置")
    }

    /// The help overlay's title.
    public var helpTitle: String { text("Keys", "按鍵") }
    /// The help overlay's footer: the keys that scroll it (nil when it all shows), and that
    /// any other key closes it.
    public func helpFooter(scrollKeys: [String]?) -> String {
        guard let scrollKeys else { return text("Any key closes this help", "按任何鍵關閉說明") }
        let keys = scrollKeys.joined(separator: " ")
        return text("\(keys) scroll · any other key closes", "\(keys) 捲動 · 其他任何鍵關閉")
    }

    /// Every action of the app with the keys bound to it, in the order help lists them: the
    /// lists', then the edit form's and the search field's under their headings (a row with
    /// no action), a blank row before each heading.
    public var keyHelp: [(keys: String, action: String)] {
        var entries: [(keys: String, action: String)] = Self.listHelpOrder.map { (allKeys(of: $0, in: keys.list), describe($0)) }
        entries += [
            ("Ctrl-Z", text("suspend (fg returns)", "暫停（fg 返回）")),
            (text("Click  Wheel", "點按  滾輪"), text("select (twice: edit; on [ ]: done) / scroll", "選取（連點：編輯；點 [ ]：完成）／捲動")),
            ("", ""),
            (text("Edit form", "編輯表單"), ""),
        ]
        entries += FormAction.allCases.map { (allKeys(of: $0, in: keys.form), describe($0)) }
        entries += [
            ("Ctrl-A E K U W", text("line start / end / kill / word", "行首／行尾／刪至行尾／刪至行首／刪前一字")),
            ("Alt-B F", text("word back / forward", "上一字／下一字")),
            ("", ""),
            (text("Search field", "搜尋欄"), ""),
        ]
        entries += SearchAction.allCases.map { (allKeys(of: $0, in: keys.search), describe($0)) }
        return entries
    }

    /// The list actions in help's order: tabs, moves, changes, the selection, then the rest.
    private static let listHelpOrder: [ListAction] = [
        .allIdeas, .completed, .searchTab, .nextTab, .previousTab, .up, .down, .pageUp, .pageDown, .first, .last,
        .new, .edit, .openInEditor, .toggleDone, .delete, .undo, .redo, .select, .leaveSelection, .copy, .openLink,
        .history, .search, .cycleOrder, .preview, .sync, .network, .syncLog, .help, .quit,
    ]

    /// Every key of `action`, two spaces apart, or a dash when the config file left it none.
    private func allKeys<Action>(of action: Action, in map: KeyMap<Action>) -> String {
        let sequences = map.sequences(for: action)
        return sequences.isEmpty ? text("(none)", "（無）") : sequences.map(keyLabel).joined(separator: "  ")
    }

    /// What a list action does, for help.
    private func describe(_ action: ListAction) -> String {
        switch action {
        case .quit: text("quit", "離開")
        case .allIdeas: text("All Ideas", "全部靈感")
        case .completed: text("Completed", "已完成")
        case .searchTab: text("Search", "搜尋")
        case .nextTab: text("next tab", "下一個分頁")
        case .previousTab: text("previous tab", "上一個分頁")
        case .up: text("up a row", "上移一筆")
        case .down: text("down a row", "下移一筆")
        case .pageUp: text("a page up", "上一頁")
        case .pageDown: text("a page down", "下一頁")
        case .first: text("first row", "第一筆")
        case .last: text("last row", "最後一筆")
        case .new: text("new idea", "新增靈感")
        case .edit: text("edit the selected idea", "編輯選取的靈感")
        case .openInEditor: text("edit in your own editor", "用你的編輯器編輯")
        case .cycleOrder: text("sort: created, last changed, title", "排序：建立時間、最近變更、標題")
        case .preview: text("preview on / off", "預覽開／關")
        case .toggleDone: text("toggle completed", "切換完成狀態")
        case .delete: text("delete (asks y/n)", "刪除（詢問 y/n）")
        case .history: text("history of the selected idea (r restores)", "選取靈感的歷史（r 還原）")
        case .undo: text("undo (add, delete, done, edit)", "復原（新增、刪除、完成、編輯）")
        case .redo: text("redo", "重做")
        case .search: text("search", "搜尋")
        case .help: text("this help", "這份說明")
        case .sync: text("sync now", "立即同步")
        case .network: text("network off / on", "網路關閉／開啟")
        case .syncLog: text("sync log (O, L there: overwrite the remote)", "同步紀錄（在其中按 O、L：覆寫遠端）")
        case .select: text("select many", "選取多筆")
        case .leaveSelection: text("leave the selection", "離開選取")
        case .copy: text("copy the idea (OSC 52)", "複製靈感（OSC 52）")
        case .openLink: text("open the first link", "開啟第一個連結")
        }
    }

    /// What a form action does, for help.
    private func describe(_ action: FormAction) -> String {
        switch action {
        case .save: text("save", "儲存")
        case .cancel: text("cancel (asks if changed)", "取消（有變更時先詢問）")
        case .nextField: text("next field", "下一欄")
        case .previousField: text("previous field", "上一欄")
        case .openInEditor: text("edit in your own editor, then save", "用你的編輯器編輯，然後儲存")
        }
    }

    /// What a search field action does, for help.
    private func describe(_ action: SearchAction) -> String {
        switch action {
        case .results: text("to the results", "到搜尋結果")
        case .leave: text("leave the field", "離開搜尋欄")
        case .nextTab: text("next tab", "下一個分頁")
        case .previousTab: text("previous tab", "上一個分頁")
        case .quit: text("quit", "離開")
        }
    }

    /// The preview's heading.
    public var previewTitle: String { text("Preview", "預覽") }
    /// The full-screen preview's footer.
    public var previewFooter: String { text("↑↓ PgUp PgDn scroll · Esc back", "↑↓ PgUp PgDn 捲動 · Esc 返回") }
    /// The preview's detail lines: done, created, updated, device.
    public func previewDetails(isCompleted: Bool, created: Timestamp, updated: Timestamp, device: String, now: Timestamp) -> [String] {
        let when = { (time: Timestamp) in "\(localDate(time)) \(clockTime(time)) (\(age(of: time, now: now)))" }
        return [
            isCompleted ? text("[x] done", "[x] 已完成") : text("[ ] not done", "[ ] 未完成"),
            text("Created  ", "建立於　") + when(created),
            text("Changed  ", "變更於　") + when(updated),
            text("Device   ", "裝置　　") + device,
        ]
    }

    /// The name of a list order, for the bar under the tabs and the status line.
    public func orderName(_ order: IdeaOrder) -> String {
        let name = switch order.key {
        case .created: order.isReversed ? text("oldest first", "最舊的在前") : text("newest first", "最新的在前")
        case .updated: order.isReversed ? text("changed longest ago first", "最久未變更的在前") : text("last changed first", "最近變更的在前")
        case .title: order.isReversed ? text("title Z–A", "標題 Z–A") : text("title A–Z", "標題 A–Z")
        }
        return name
    }
    /// The bar under the tabs: the order the list is in.
    public func sortLabel(_ order: IdeaOrder) -> String {
        text("Sort: \(orderName(order))", "排序：\(orderName(order))")
    }
    /// `S` changed the order.
    public func sortedBy(_ order: IdeaOrder) -> String {
        text("Sorted: \(orderName(order))", "排序：\(orderName(order))")
            + keyed(.cycleOrder) { text(" (\($0) for the next order)", "（按 \($0) 換下一種）") }
    }
    /// `S` on the Search tab.
    public var searchKeepsItsOrder: String {
        text("Search results are always newest first", "搜尋結果固定最新的在前")
            + keyed(.cycleOrder) { text("; \($0) sorts All Ideas and Completed", "；\($0) 用於全部靈感與已完成") } + text(".", "。")
    }

    /// The editor exited well but left the text as it was.
    public var editorLeftUnchanged: String {
        text("Nothing changed: the editor left the text as it was.", "沒有變更：編輯器沒有改動內容。")
    }
    /// The editor exited with a failure status.
    public func editorFailed(status: Int32) -> String {
        text("Nothing changed: the editor exited with status \(status).", "沒有變更：編輯器以狀態 \(status) 結束。")
    }
    /// The editor could not be run at all.
    public func editorCouldNotRun(_ reason: String) -> String {
        text("Nothing changed: the editor could not run (\(reason)).", "沒有變更：無法執行編輯器（\(reason)）。")
    }

    /// Standard input or output is not a terminal.
    public var needsTerminal: String {
        text("The full-screen app needs a terminal on standard input and output; in scripts use the commands (add, list, search, show, edit, done, export, import, sync, status; see `ideabox help`).",
             "全螢幕介面需要在終端機中執行（標準輸入與輸出都必須是終端機）；在指令稿中請改用指令（add、list、search、show、edit、done、export、import、sync、status，見 `ideabox help`）。")
    }
    /// No UTF-8 locale could be used.
    public var needsUTF8Locale: String {
        text("No UTF-8 locale is available (tried the environment's and C.UTF-8); install one, or use the commands (see `ideabox help`).",
             "找不到可用的 UTF-8 語系（已嘗試環境設定與 C.UTF-8）；請安裝一個，或改用指令（見 `ideabox help`）。")
    }
    /// terminfo has no entry for the terminal type.
    public func unknownTerminal(_ type: String) -> String {
        text("The terminal type TERM=\(type) is unknown to this system's terminfo, so the full-screen app cannot draw on it; set TERM to a type it knows (run TERM=xterm-256color ideabox, say), install that type's terminfo entry, or use the commands (see `ideabox help`).",
             "這台系統的 terminfo 不認得終端機類型 TERM=\(type)，無法顯示全螢幕介面；請把 TERM 設為它認得的類型（例如執行 TERM=xterm-256color ideabox）、安裝該類型的 terminfo，或改用指令（見 `ideabox help`）。")
    }
    /// `TERM` is not set (or empty).
    public var terminalTypeUnset: String {
        text("TERM is not set, so the full-screen app does not know what terminal it draws on; set it to your terminal's type (run TERM=xterm-256color ideabox, say), or use the commands (see `ideabox help`).",
             "沒有設定 TERM，全螢幕介面不知道要在哪種終端機上顯示；請設定為你的終端機類型（例如執行 TERM=xterm-256color ideabox），或改用指令（見 `ideabox help`）。")
    }
    /// The terminal type is known but cannot move the cursor (`dumb`).
    public func unusableTerminal(_ type: String) -> String {
        text("The terminal TERM=\(type) cannot show the full-screen app (it cannot move the cursor); use a terminal such as xterm-256color, or the commands (add, list, search, show, edit, done, export, import, sync, status; see `ideabox help`).",
             "終端機 TERM=\(type) 無法顯示全螢幕介面（無法移動游標）；請改用 xterm-256color 等終端機，或改用指令（add、list、search、show、edit、done、export、import、sync、status，見 `ideabox help`）。")
    }

    /// The too-small notice.
    public func tooSmall(rows: Int, columns: Int) -> [String] {
        [
            text("Terminal too small", "終端機視窗太小"),
            text("IdeaBox needs 40×10; this is \(columns)×\(rows).", "IdeaBox 需要 40×10，目前為 \(columns)×\(rows)。"),
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
