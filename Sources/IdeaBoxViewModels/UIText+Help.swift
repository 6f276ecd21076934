/// The help overlay: every action with its keys.
extension UIText {
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
    static let listHelpOrder: [ListAction] = [
        .allIdeas, .completed, .searchTab, .nextTab, .previousTab, .up, .down, .pageUp, .pageDown, .first, .last,
        .new, .edit, .openInEditor, .toggleDone, .delete, .undo, .redo, .select, .leaveSelection, .copy, .openLink,
        .history, .search, .cycleOrder, .preview, .sync, .network, .syncLog, .help, .quit,
    ]

    /// Every key of `action`, two spaces apart, or a dash when the config file left it none.
    func allKeys<Action>(of action: Action, in map: KeyMap<Action>) -> String {
        let sequences = map.sequences(for: action)
        return sequences.isEmpty ? text("(none)", "（無）") : sequences.map(keyLabel).joined(separator: "  ")
    }

    /// What a list action does, for help.
    func describe(_ action: ListAction) -> String {
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
    func describe(_ action: FormAction) -> String {
        switch action {
        case .save: text("save", "儲存")
        case .cancel: text("cancel (asks if changed)", "取消（有變更時先詢問）")
        case .nextField: text("next field", "下一欄")
        case .previousField: text("previous field", "上一欄")
        case .openInEditor: text("edit in your own editor, then save", "用你的編輯器編輯，然後儲存")
        }
    }

    /// What a search field action does, for help.
    func describe(_ action: SearchAction) -> String {
        switch action {
        case .results: text("to the results", "到搜尋結果")
        case .leave: text("leave the field", "離開搜尋欄")
        case .nextTab: text("next tab", "下一個分頁")
        case .previousTab: text("previous tab", "上一個分頁")
        case .quit: text("quit", "離開")
        }
    }
}
