
extension AppModel {
    /// Two presses of the left button on one row within this many milliseconds are a
    /// double click.
    static let doubleClickMilliseconds: Int64 = 400
    /// Rows the wheel moves the selection by.
    static let wheelRows = 3

    /// Where each tab's label is on the tab bar: its first column and its text. The screen
    /// draws the bar from this, and a click is matched against it.
    public var tabBarLabels: [(tab: Tab, column: Int, label: String)] {
        var column = TextWidth.width(of: " \(text.appName) ")
        return Tab.allCases.map { tab in
            let count: String
            switch tab {
            case .all: count = " (\(counts.all))"
            case .completed: count = " (\(counts.completed))"
            case .search: count = ""
            }
            let label = " \(tab.rawValue + 1) \(text.tabLabel(tab))\(count) "
            column += 1
            defer { column += TextWidth.width(of: label) }
            return (tab, column, label)
        }
    }

    /// A mouse event: a click on a tab opens it, on a row selects it and a second click on
    /// the same row edits it; the wheel moves the selection, or scrolls help and the log.
    /// The form and the questions take no mouse input.
    func handleMouse(_ event: MouseEvent) throws {
        if isShowingHelp || syncLog != nil {
            let key: Key? = switch event.action {
            case .wheelUp: .up
            case .wheelDown: .down
            case .press: nil
            }
            guard let key else { return }
            for _ in 0..<Self.wheelRows {
                if isShowingHelp { handleHelp(key) } else { try handleSyncLog(key) }
            }
            return
        }
        guard form == nil, pendingDeletion == nil, pendingBatchDeletion == nil, !isTooSmall else { return }
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
            if let hit = tabBarLabels.last(where: { event.column >= $0.column }),
               event.column < hit.column + TextWidth.width(of: hit.label) {
                try switchTo(hit.tab)
            }
            return
        }
        if event.row == layout.searchFieldRow {
            isSearchFieldFocused = true
            return
        }
        let list = currentList
        let offset = event.row - listTop
        guard offset >= 0, offset < listHeight, let row = list.visibleRows.dropFirst(offset).first else { return }
        isSearchFieldFocused = false
        // The same idea twice in a short while, wherever the wheel moved it meanwhile.
        let isDoubleClick = previous.map {
            $0.ideaId == row.idea.id && now.milliseconds - $0.at.milliseconds <= Self.doubleClickMilliseconds
        } ?? false
        lastPress = (row.idea.id, now)
        list.select(row.index)
        if isDoubleClick, let idea = list.selectedIdea {
            lastPress = nil
            openForm(.edit(idea))
        }
    }
}
