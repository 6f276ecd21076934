import IdeaBoxFoundation

/// The list's keys as actions: a key (or a two-key sequence) looked up in `bindings`, and
/// each `ListAction` carried out.
extension AppModel {
    /// A key in a list: its action by the bindings, a two-key sequence if `previous` (still
    /// waiting) starts one. A key that starts a sequence does its own action at once and
    /// then waits for a second key; any other key ends the wait and does its own.
    func handleList(_ key: Key, after previous: PendingPrefix?) throws {
        guard let action = bindings.action(for: key, after: previous?.key) else { return }
        if let previous, bindings.action(for: key, after: nil) != action, tab == previous.tab {
            // The sequence's first key moved the cursor on its own: the second acts where it was.
            currentList.select(previous.index)
        }
        let index = currentList.selectedIndex
        try perform(action)
        if bindings.startsSequence(key) { pendingPrefix = PendingPrefix(key: key, tab: tab, index: index, pressedAt: now) }
    }

    /// The first key of a two-key sequence still waiting for its second (the hint line says
    /// so), if one is.
    public var waitingSequenceKey: Key? {
        pendingPrefix.flatMap { isWaiting($0) ? $0.key : nil }
    }

    /// Whether `prefix` still waits for its second key: pressed less than `sequenceWait` ago.
    func isWaiting(_ prefix: PendingPrefix) -> Bool {
        now.milliseconds - prefix.pressedAt.milliseconds < Self.sequenceWait
    }

    /// Carries out one list action (see `KeyBindings` for the keys that call each).
    func perform(_ action: ListAction) throws {
        let list = currentList
        switch action {
        case .quit: wantsToQuit = true
        case .allIdeas: try switchTo(.all)
        case .completed: try switchTo(.completed)
        case .searchTab: try switchTo(.search)
        case .nextTab: try switchTo(Tab(rawValue: (tab.rawValue + 1) % Tab.allCases.count)!)
        case .previousTab: try switchTo(Tab(rawValue: (tab.rawValue + Tab.allCases.count - 1) % Tab.allCases.count)!)
        case .up: list.moveSelection(by: -1)
        case .down: list.moveSelection(by: 1)
        case .pageUp: list.page(-1)
        case .pageDown: list.page(1)
        case .first: list.select(0)
        case .last: list.select(list.totalCount - 1)
        case .new: openForm(.new)
        case .edit:
            if let idea = list.selectedIdea { openForm(.edit(idea)) }
        case .openInEditor: openSelectedIdeaInEditor()
        case .cycleOrder: try cycleListOrder()
        case .preview: togglePreview()
        case .toggleDone: try toggleDone()
        case .delete: try askToDelete()
        case .history:
            guard let idea = list.selectedIdea else { return status.show(text.noHistory, now: now) }
            try openHistory(of: idea.id, title: idea.title)
        case .undo: try undo()
        case .redo: try redo()
        case .search:
            try switchTo(.search)
            search.isFocused = true
        case .help: help = HelpOverlay(text: text, rows: size.rows, columns: size.columns)
        case .sync: try syncNow()
        case .network:
            guard let sync else { return status.show(text.syncUnavailable, now: now) }
            let on = try !sync.isNetworkOn()
            try sync.setNetworkOn(on)
            sync.engine.networkChanged()
            status.show(text.network(on: on), now: now)
        case .syncLog:
            guard sync != nil else { return status.show(text.syncUnavailable, now: now) }
            syncLog = SyncLogView()
            try loadSyncLog()
        case .select: toggleSelection()
        case .leaveSelection: selectionAnchor = nil
        case .copy: copySelectedIdea()
        case .openLink: openFirstLink()
        }
    }
}

/// A key that starts a two-key sequence, pressed in a list and waiting for its second.
struct PendingPrefix {
    /// The key (`g` of `g x`).
    var key: Key
    /// The tab it was pressed on.
    var tab: AppModel.Tab
    /// The row the cursor was on before the key moved it: the second key acts there.
    var index: Int
    /// When it was pressed.
    var pressedAt: Timestamp
}
