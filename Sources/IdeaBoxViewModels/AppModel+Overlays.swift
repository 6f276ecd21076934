
extension AppModel {
    /// Lines of the help overlay that show at once: all of them on a tall enough screen.
    public var helpVisibleRows: Int {
        let count = text.keyHelp.count
        let boxHeight = min(size.rows - 2, count + 4)
        return max(1, min(count, boxHeight - 3))
    }

    /// Lines of the sync log overlay that show at once: the screen less the header, the
    /// box's edges, its footer and the status lines.
    public var syncLogVisibleRows: Int { layout.overlayTextRows }
    /// The columns a sync log line may take before it wraps: the overlay's, less its frame.
    public var syncLogTextWidth: Int { layout.overlayTextWidth }

    /// A key while help is open: the scrolling keys scroll it, any other key closes it.
    func handleHelp(_ key: Key) {
        let limit = max(0, text.keyHelp.count - helpVisibleRows)
        guard let scroll = Self.scrolled(helpScroll, by: key, page: helpVisibleRows, limit: limit) else {
            isShowingHelp = false
            return
        }
        helpScroll = scroll
    }

    /// A key while the sync log is open: scrolling, the overwrite questions, or closing it.
    func handleSyncLog(_ key: Key) throws {
        guard var log = syncLog else { return }
        if let overwrite = log.confirmingOverwrite {
            log.confirmingOverwrite = nil
            syncLog = log
            guard key == .char("y") || key == .char("Y"), let sync else { return }
            switch overwrite {
            case .ideas:
                sync.engine.overwriteRemote()
                status.show(text.overwriteRequested, now: now)
            case .companion(let name):
                sync.engine.overwriteRemote(companionNamed: name)
                status.show(text.libraryOverwriteRequested, now: now)
            }
            return
        }
        let limit = max(0, log.rows(in: text, width: syncLogTextWidth).count - syncLogVisibleRows)
        if let scroll = Self.scrolled(min(log.scroll, limit), by: key, page: syncLogVisibleRows, limit: limit) {
            log.scroll = scroll
            syncLog = log
            return
        }
        switch key {
        case .escape, .char("q"), .char("l"), .enter:
            syncLog = nil
        case .ctrl("c"):
            syncLog = nil
            wantsToQuit = true
        case .char("h"):
            try openHistoryOfTopConflict()
        case .char("O"):
            log.confirmingOverwrite = .ideas
            syncLog = log
        case .char("L") where sync?.engine.companionNames.contains(Self.libraryCompanion) == true:
            log.confirmingOverwrite = .companion(Self.libraryCompanion)
            syncLog = log
        default:
            break
        }
    }

    /// Re-reads the sync log overlay's lines.
    func loadSyncLog() throws {
        guard var log = syncLog else { return }
        log.entries = try repository.syncLog(limit: 200)
        log.conflicts = try repository.conflicts()
        syncLog = log
    }

    /// Where a scrolling key (`j` `k`, arrows, PgUp PgDn, `g` `G`, Home End) takes a scroll
    /// position of at most `limit`; nil for any other key.
    static func scrolled(_ scroll: Int, by key: Key, page: Int, limit: Int) -> Int? {
        let moved: Int
        switch key {
        case .up, .char("k"): moved = scroll - 1
        case .down, .char("j"): moved = scroll + 1
        case .pageUp: moved = scroll - max(1, page - 1)
        case .pageDown: moved = scroll + max(1, page - 1)
        case .home, .char("g"): moved = 0
        case .end, .char("G"): moved = limit
        default: return nil
        }
        return min(max(0, moved), limit)
    }
}
