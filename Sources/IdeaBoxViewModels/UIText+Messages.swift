/// What the status line says after an action: saved, deleted, copied, undone.
extension UIText {
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

    func actionName(_ action: UndoHistory.Action) -> String {
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
}
