
extension AppModel {
    /// Two presses of the left button on one row within this many milliseconds are a
    /// double click.
    static let doubleClickMilliseconds: Int64 = 400
    /// Rows the wheel moves the selection by.
    static let wheelRows = 3
    /// The columns of a row's `[ ]` box, which a click toggles.
    public static let doneBoxColumns = 1...3

    /// A mouse event: a click on a tab opens it, on a row selects it and a second click on
    /// the same row edits it, on a row's `[ ]` box toggles done; the wheel moves the selection, or scrolls help and the log.
    /// The form and the questions take no mouse input.
    func handleMouse(_ event: MouseEvent) throws {
        if isShowingHelp || syncLog != nil || isShowingFullPreview {
            let key: Key? = switch event.action {
            case .wheelUp: .up
            case .wheelDown: .down
            case .press: nil
            }
            guard let key else { return }
            for _ in 0..<Self.wheelRows {
                if isShowingHelp {
                    handleHelp(key)
                } else if isShowingFullPreview {
                    handleFullPreview(key)
                } else {
                    try handleSyncLog(key)
                }
            }
            return
        }
        guard form == nil, deleteQuestion == nil, !isTooSmall else { return }
        switch event.action {
        case .wheelUp: currentList.moveSelection(by: -Self.wheelRows)
        case .wheelDown: currentList.moveSelection(by: Self.wheelRows)
        case .press: try press(event)
        }
    }

    private func press(_ event: MouseEvent) throws {
        let previous = lastPress
        lastPress = nil
        if event.row == layout.tabBarRow {
            if let hit = tabBar.tab(at: event.column) { try switchTo(hit) }
            return
        }
        if event.row == layout.searchFieldRow {
            search.isFocused = true
            return
        }
        let list = currentList
        let offset = event.row - listTop
        guard offset >= 0, offset < listHeight, event.column < listWidth,
              let row = list.visibleRows.dropFirst(offset).first else { return }
        search.isFocused = false
        // The same idea twice in a short while, wherever the wheel moved it meanwhile.
        let isDoubleClick = previous.map {
            $0.ideaId == row.idea.id && now.milliseconds - $0.at.milliseconds <= Self.doubleClickMilliseconds
        } ?? false
        lastPress = (row.idea.id, now)
        list.select(row.index)
        if Self.doneBoxColumns.contains(event.column) {
            lastPress = nil
            return try toggleCompleted(row.idea)
        }
        if isDoubleClick, let idea = list.selectedIdea {
            lastPress = nil
            openForm(.edit(idea))
        }
    }
}
