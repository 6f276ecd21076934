import IdeaBoxCore

/// Every word the full-screen app shows, in the user's language.
public struct UIText: Sendable {
    /// The language of these texts.
    public let language: Language

    /// Texts in `language`.
    public init(language: Language) {
        self.language = language
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

    /// The status bar's sync part before sync exists.
    public var localOnly: String { text("Local only", "僅限本機") }
    /// Changes waiting to be sent.
    public func pending(_ count: Int) -> String { text("\(count) pending", "\(count) 筆待同步") }

    /// Hints shown on the line above the status bar, per context.
    public var listHints: String {
        text("n new  e edit  x done  d delete  / search  ? help  q quit",
             "n 新增  e 編輯  x 完成  d 刪除  / 搜尋  ? 說明  q 離開")
    }
    /// Hints while typing a search.
    public var searchFieldHints: String {
        text("type to search  ↓/Enter results  Esc leave  Tab next tab",
             "輸入即搜尋  ↓/Enter 結果  Esc 離開  Tab 下一分頁")
    }
    /// Hints in the edit form.
    public var formHints: String {
        text("Ctrl-S save  Esc cancel  Tab next field", "Ctrl-S 儲存  Esc 取消  Tab 下一欄")
    }

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
    public var emptyList: String { text("No ideas yet. Press n to add one.", "還沒有靈感。按 n 新增一筆。") }
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

    /// The delete question.
    public func deleteQuestion(_ title: String) -> String {
        text("Delete “\(title)”? y/n", "刪除「\(title)」？y/n")
    }
    /// The delete box title.
    public var deleteTitle: String { text("Delete", "刪除") }

    /// Status messages.
    public func saved(_ title: String) -> String { text("Saved “\(title)”", "已儲存「\(title)」") }
    /// Status messages.
    public func added(_ title: String) -> String { text("Added “\(title)”", "已新增「\(title)」") }
    /// Status messages.
    public func deleted(_ title: String) -> String {
        text("Deleted “\(title)” — u to undo", "已刪除「\(title)」— 按 u 復原")
    }
    /// Status messages.
    public func restored(_ title: String) -> String { text("Restored “\(title)”", "已復原「\(title)」") }
    /// Status messages.
    public func markedDone(_ done: Bool) -> String {
        done ? text("Marked done", "已標示為完成") : text("Marked not done", "已標示為未完成")
    }
    /// Status messages.
    public var nothingToUndo: String { text("Nothing to undo", "沒有可以復原的刪除") }
    /// Status messages.
    public var syncUnavailable: String {
        text("Sync isn't set up: ideas stay on this device", "尚未設定同步：靈感只保存在這台裝置")
    }
    /// Status messages.
    public var updatedElsewhere: String { text("Updated from another window", "已從其他視窗更新") }

    /// The help overlay's title.
    public var helpTitle: String { text("Keys", "按鍵") }
    /// The help overlay's footer.
    public var helpFooter: String { text("Press any key to close", "按任意鍵關閉") }
    /// Every key of the app and what it does, in order.
    public var keyHelp: [(keys: String, action: String)] {
        [
            ("1 2 3  Tab  Shift-Tab", text("All Ideas / Completed / Search", "全部靈感／已完成／搜尋")),
            ("↑ ↓  k j", text("move", "移動")),
            ("PgUp PgDn", text("page", "翻頁")),
            ("Home End  g G", text("first / last", "第一筆／最後一筆")),
            ("n", text("new idea", "新增靈感")),
            ("Enter  e", text("edit the selected idea", "編輯選取的靈感")),
            ("Space  x", text("toggle completed", "切換完成狀態")),
            ("d  Delete", text("delete (asks y/n)", "刪除（詢問 y/n）")),
            ("u", text("undo the last delete", "復原上一次刪除")),
            ("/", text("search", "搜尋")),
            ("s", text("sync now", "立即同步")),
            ("o", text("network off / on", "網路關閉／開啟")),
            ("l", text("sync log and conflicts", "同步紀錄與衝突")),
            ("?", text("this help", "這份說明")),
            ("q  Ctrl-C", text("quit", "離開")),
            ("Form: Tab Shift-Tab", text("next / previous field", "下一欄／上一欄")),
            ("Form: Ctrl-S F2", text("save", "儲存")),
            ("Form: Esc", text("cancel", "取消")),
            ("Form: Ctrl-A E K U", text("line start / end / kill", "行首／行尾／刪至行尾／刪至行首")),
        ]
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
