
extension AppModel {
    /// One row of the help overlay: keys and the first piece of what they do, or (keys
    /// empty) the rest of a description too long for one row.
    public struct HelpLine: Sendable, Equatable {
        /// The keys, on an entry's first row.
        public let keys: String
        /// What they do, or the part of it on this row.
        public let action: String
    }

    /// The help box's width: its longest entry or its longest footer, or the screen less a
    /// column each side.
    public var helpBoxWidth: Int {
        let keysWidth = text.keyHelp.map { TextWidth.width(of: $0.keys) }.max() ?? 0
        let contentWidth = text.keyHelp.map { keysWidth + 2 + TextWidth.width(of: $0.action) }.max() ?? 0
        let footerWidth = TextWidth.width(of: text.helpFooter(scrollKeys: scrollKeyLabels))
        return max(1, min(size.columns - 2, max(contentWidth, footerWidth) + 4))
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
            // A heading, or the blank row before it.
            if entry.action.isEmpty { return [HelpLine(keys: entry.keys, action: "")] }
            let pieces = TextWidth.wrap(entry.action, toWidth: width).map(\.text)
            if stacked {
                return [HelpLine(keys: entry.keys, action: "")] + pieces.map { HelpLine(keys: "", action: $0) }
            }
            return pieces.enumerated().map { HelpLine(keys: $0.offset == 0 ? entry.keys : "", action: $0.element) }
        }
    }

    /// The help's footer, wrapped to the box: the keys that scroll it when it does not fit
    /// (the list's moves and the arrows), and that any other key closes it.
    public var helpFooterLines: [String] {
        TextWidth.wrap(helpFooter, toWidth: max(1, helpBoxWidth - 4)).map(\.text)
    }

    /// The help's footer: naming the scrolling keys only when there is something to scroll.
    public var helpFooter: String {
        // The footer's own length decides whether the help fits: try it without the scroll keys.
        let closing = text.helpFooter(scrollKeys: nil)
        let closingLines = TextWidth.wrap(closing, toWidth: max(1, helpBoxWidth - 4)).count
        let fits = helpLines.count + 3 + closingLines <= size.rows
        return fits ? closing : text.helpFooter(scrollKeys: scrollKeyLabels)
    }

    /// The keys that scroll an overlay, as the texts write them: the arrows, PgUp PgDn,
    /// Home End, then the list's other keys for those moves.
    public var scrollKeyLabels: [String] {
        let fixed = Self.fixedScrollKeys.map { [$0.key] }
        let bound = Self.fixedScrollKeys.flatMap { bindings.sequences(for: $0.move) }.filter { $0.count == 1 && !fixed.contains($0) }
        return (fixed + bound).map(text.keyLabel)
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
        guard let scroll = scrolled(helpScroll, by: key, page: helpVisibleRows, limit: limit) else {
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
        if let scroll = scrolled(min(log.scroll, limit), by: key, page: syncLogVisibleRows, limit: limit) {
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
        log.deviceNames = try repository.deviceNames()
        syncLog = log
    }

    /// The keys that scroll every overlay, whatever the list's keys are, and the move each makes.
    static let fixedScrollKeys: [(key: Key, move: ListAction)] = [
        (.up, .up), (.down, .down), (.pageUp, .pageUp), (.pageDown, .pageDown), (.home, .first), (.end, .last),
    ]

    /// Where a scrolling key (an arrow, PgUp PgDn, Home End, or a key the list moves with:
    /// `j` `k` `g` `G` by default) takes a scroll position of at most `limit`; nil for any
    /// other key.
    func scrolled(_ scroll: Int, by key: Key, page: Int, limit: Int) -> Int? {
        let bound = bindings.action(for: key, after: nil).flatMap { $0.isMove ? $0 : nil }
        guard let move = Self.fixedScrollKeys.first(where: { $0.key == key })?.move ?? bound else { return nil }
        let moved: Int
        switch move {
        case .up: moved = scroll - 1
        case .down: moved = scroll + 1
        case .pageUp: moved = scroll - max(1, page - 1)
        case .pageDown: moved = scroll + max(1, page - 1)
        case .first: moved = 0
        default: moved = limit
        }
        return min(max(0, moved), limit)
    }
}
