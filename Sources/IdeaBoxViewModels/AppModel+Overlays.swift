
extension AppModel {
    /// One row of the help overlay: keys and the first piece of what they do, or (keys
    /// empty) the rest of a description too long for one row.
    public struct HelpLine: Sendable, Equatable {
        /// The keys, on an entry's first row.
        public let keys: String
        /// What they do, or the part of it on this row.
        public let action: String
    }

    /// The help box's width: its longest entry, or the screen less a column each side.
    public var helpBoxWidth: Int {
        let keysWidth = text.keyHelp.map { TextWidth.width(of: $0.keys) }.max() ?? 0
        let contentWidth = text.keyHelp.map { keysWidth + 2 + TextWidth.width(of: $0.action) }.max() ?? 0
        return max(1, min(size.columns - 2, contentWidth + 4))
    }

    /// Where descriptions start in the help box, from its text's left edge: beside the
    /// widest keys, or, when that leaves them fewer than `helpMinimumActionWidth` columns
    /// (a narrow screen), two columns in on the rows under their keys.
    public var helpActionColumn: Int {
        let keysWidth = text.keyHelp.map { TextWidth.width(of: $0.keys) }.max() ?? 0
        return helpBoxWidth - 4 - keysWidth - 2 >= Self.helpMinimumActionWidth ? keysWidth + 2 : 2
    }

    /// The fewest columns a description gets beside its keys before it goes under them.
    static let helpMinimumActionWidth = 16

    /// The help's rows at this width: each description wrapped, never cut.
    public var helpLines: [HelpLine] {
        let column = helpActionColumn
        let width = max(1, helpBoxWidth - 4 - column)
        let stacked = column == 2
        return text.keyHelp.flatMap { entry in
            let pieces = TextWidth.wrap(entry.action, toWidth: width).map(\.text)
            if stacked {
                return [HelpLine(keys: entry.keys, action: "")] + pieces.map { HelpLine(keys: "", action: $0) }
            }
            return pieces.enumerated().map { HelpLine(keys: $0.offset == 0 ? entry.keys : "", action: $0.element) }
        }
    }

    /// The help's footer, wrapped to the box.
    public var helpFooterLines: [String] {
        TextWidth.wrap(text.helpFooter, toWidth: max(1, helpBoxWidth - 4)).map(\.text)
    }

    /// The help box's height: its rows, a blank line, the footer and the edges, or the
    /// whole screen.
    public var helpBoxHeight: Int {
        min(size.rows, helpLines.count + 3 + helpFooterLines.count)
    }

    /// Lines of the help overlay that show at once: all of them on a tall enough screen.
    public var helpVisibleRows: Int {
        max(1, min(helpLines.count, helpBoxHeight - 2 - helpFooterLines.count))
    }

    /// Lines of the sync log overlay that show at once: the screen less the header, the
    /// box's edges, its footer and the status lines.
    public var syncLogVisibleRows: Int { layout.overlayTextRows }
    /// The columns a sync log line may take before it wraps: the overlay's, less its frame.
    public var syncLogTextWidth: Int { layout.overlayTextWidth }

    /// A key while help is open: the scrolling keys scroll it, any other key closes it.
    func handleHelp(_ key: Key) {
        let limit = max(0, helpLines.count - helpVisibleRows)
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
