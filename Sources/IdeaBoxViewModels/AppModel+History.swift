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
        guard let conflict = syncLog?.topConflict else { return status.show(text.noHistory, now: now) }
        try openHistory(of: conflict.ideaId, title: conflict.title)
    }

    /// Re-reads the open history's versions, keeping the cursor on the same version.
    func loadHistory() throws {
        guard var view = historyView else { return }
        let versions = try repository.history(of: view.ideaId)
        view.reload(versions: versions, deviceNames: try repository.deviceNames(), visibleRows: historyVisibleRows)
        historyView = view
    }

    /// Lines of the history overlay that show at once.
    public var historyVisibleRows: Int { layout.overlayTextRows }

    /// A key while the history is open: move, restore the version under the cursor, close.
    func handleHistory(_ key: Key) throws {
        guard var view = historyView else { return }
        switch view.handle(key, visibleRows: historyVisibleRows) {
        case .none: historyView = view
        case .restore: try restoreSelectedVersion()
        case .close: historyView = nil
        case .quit:
            historyView = nil
            wantsToQuit = true
        }
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
}
