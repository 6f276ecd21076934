/// The hint line and the names of keys.
extension UIText {
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
    func hints<Action>(_ words: [(Action, String, String)], in map: KeyMap<Action>) -> [String] {
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
    func keyed(_ action: ListAction, _ words: (String) -> String) -> String {
        listKey(action).map(words) ?? ""
    }

    /// "— u to undo", after a message about something `u` takes back.
    var toUndo: String { keyed(.undo) { text(" — \($0) to undo", "— 按 \($0) 復原") } }

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
}
