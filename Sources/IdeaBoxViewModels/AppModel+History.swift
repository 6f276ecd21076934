import Foundation
import IdeaStore

extension AppModel {
    /// `h`: opens the history of `ideaId`, titled `title`.
    func openHistory(of ideaId: UUID, title: String) throws {
        historyView = HistoryView(ideaId: ideaId, title: title)
        try loadHistory()
    }

    /// `h` in the sync log: the history of the first conflict at or below the top of the
    /// view (the last conflict, if the view is past them all).
    func openHistoryOfTopConflict() throws {
        guard let log = syncLog, !log.conflicts.isEmpty else { return status.show(text.noHistory, now: now) }
        let firstConflictLine = max(1, log.entries.count) + 2
        let index = max(0, min(log.conflicts.count - 1, (log.scroll - firstConflictLine + SyncLogView.linesPerConflict - 1) / SyncLogView.linesPerConflict))
        let conflict = log.conflicts[index]
        try openHistory(of: conflict.ideaId, title: conflict.title)
    }

    /// Re-reads the open history's versions, keeping the cursor on the same version.
    func loadHistory() throws {
        guard var view = historyView else { return }
        let selectedNumber = view.selectedVersion?.number
        view.versions = try repository.history(of: view.ideaId)
        view.deviceNames = try repository.deviceNames()
        if let current = view.versions.first, current.number == nil, !current.isDeleted { view.title = current.title }
        view.selected = view.versions.firstIndex { $0.number == selectedNumber } ?? min(view.selected, max(0, view.versions.count - 1))
        historyView = view
        scrollHistoryToSelection()
    }

    /// Lines of the history overlay that show at once.
    public var historyVisibleRows: Int { layout.overlayTextRows }

    /// A key while the history is open: move, restore the version under the cursor, close.
    func handleHistory(_ key: Key) throws {
        guard var view = historyView else { return }
        switch key {
        case .up, .char("k"): view.selected = max(0, view.selected - 1)
        case .down, .char("j"): view.selected = min(max(0, view.versions.count - 1), view.selected + 1)
        case .home, .char("g"): view.selected = 0
        case .end, .char("G"): view.selected = max(0, view.versions.count - 1)
        case .pageUp: view.selected = max(0, view.selected - max(1, historyVisibleRows / HistoryView.linesPerVersion))
        case .pageDown:
            view.selected = min(max(0, view.versions.count - 1), view.selected + max(1, historyVisibleRows / HistoryView.linesPerVersion))
        case .char("r"):
            return try restoreSelectedVersion()
        case .escape, .char("q"), .char("h"), .enter:
            historyView = nil
            return
        case .ctrl("c"):
            historyView = nil
            wantsToQuit = true
            return
        default:
            return
        }
        historyView = view
        scrollHistoryToSelection()
    }

    /// `r`: makes the version under the cursor current, as a new edit that `u` takes back.
    private func restoreSelectedVersion() throws {
        guard let view = historyView, let version = view.selectedVersion else { return }
        guard let number = version.number else { return status.show(text.alreadyCurrent, now: now) }
        let (before, restored) = try repository.restoreVersionKeepingPrevious(number, of: view.ideaId)
        if let before {
            if restored != before { history.record(.edit(before: before, after: restored)) }
        } else {
            history.record(.add(restored))
        }
        localChangeHappened()
        try refresh()
        try loadHistory()
        status.show(text.restoredVersion(number, restored.title), tone: .success, now: now)
    }

    /// Scrolls the history so that the version under the cursor shows whole.
    private func scrollHistoryToSelection() {
        guard var view = historyView else { return }
        let top = view.selected * HistoryView.linesPerVersion
        let bottom = top + HistoryView.linesPerVersion
        if top < view.scroll { view.scroll = top }
        if bottom > view.scroll + historyVisibleRows { view.scroll = max(0, bottom - historyVisibleRows) }
        historyView = view
    }
}
