
extension AppModel {
    /// Two presses of the left button on one row within this many milliseconds are a
    /// double click.
    static let doubleClickMilliseconds: Int64 = 400
    /// Rows the wheel moves the selection by.
    static let wheelRows = 3
    /// The columns of a row's `[ ]` box, which a click toggles.
    public static let doneBoxColumns = 1...3

    /// Where each tab's label is on the tab bar: its first column and its text. The screen
    /// draws the bar from this, and a click is matched against it.
    /// On a narrow screen the bar keeps every tab: first with short labels, then without
    /// the app's name, then with the counts shortened (`12k`).
    public var tabBarLabels: [(tab: Tab, column: Int, label: String)] {
        let appName = " \(text.appName) "
        let choices = [(appName, false, false), (appName, true, false), ("", true, false), ("", true, true)]
        var labels: [(tab: Tab, column: Int, label: String)] = []
        for (name, short, compact) in choices {
            labels = tabBarLabels(after: name, short: short, compactCounts: compact)
            guard let last = labels.last, last.column + TextWidth.width(of: last.label) > size.columns else { break }
        }
        return labels
    }

    /// The app's name shown before the tabs (empty when a narrow bar leaves it out).
    public var tabBarName: String {
        tabBarLabels.first.map { $0.column > 1 ? " \(text.appName) " : "" } ?? ""
    }

    private func tabBarLabels(after name: String, short: Bool, compactCounts: Bool) -> [(tab: Tab, column: Int, label: String)] {
        var column = TextWidth.width(of: name)
        let shown = { (count: Int) in compactCounts ? Self.compactCount(count) : String(count) }
        return Tab.allCases.map { tab in
            let count: String
            switch tab {
            case .all: count = " (\(shown(counts.all)))"
            case .completed: count = " (\(shown(counts.completed)))"
            case .search: count = ""
            }
            let label = " \(tab.rawValue + 1) \(short ? text.shortTabLabel(tab) : text.tabLabel(tab))\(count) "
            column += name.isEmpty && tab == .all ? 0 : 1
            defer { column += TextWidth.width(of: label) }
            return (tab, column, label)
        }
    }

    /// `12345` as `12k`, `2500000` as `2M`: a count in at most four columns.
    static func compactCount(_ count: Int) -> String {
        switch count {
        case ..<1000: String(count)
        case ..<1_000_000: "\(count / 1000)k"
        default: "\(count / 1_000_000)M"
        }
    }

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
            if let hit = tabBarLabels.last(where: { event.column >= $0.column }),
               event.column < hit.column + TextWidth.width(of: hit.label) {
                try switchTo(hit.tab)
            }
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
