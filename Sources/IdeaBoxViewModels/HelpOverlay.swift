/// The help overlay (`?`): every action with the keys bound to it, in a box as wide as its
/// longest entry (at most the screen), its descriptions wrapped, scrolled when it does not fit.
public struct HelpOverlay: Sendable {
    /// One row of the help: keys and the first piece of what they do, or (keys empty) the
    /// rest of a description too long for one row.
    public struct Line: Sendable, Equatable {
        /// The keys, on an entry's first row.
        public let keys: String
        /// What they do, or the part of it on this row.
        public let action: String
    }

    /// The words of the help, naming the keys bound.
    public var text: UIText
    /// The screen's rows.
    public var rows: Int
    /// The screen's columns.
    public var columns: Int
    /// How many lines are scrolled off its top.
    public var scroll = 0

    /// The fewest columns a description gets beside its keys before it goes under them.
    static let minimumActionWidth = 16

    /// The help in `text`'s words on a screen of `rows` x `columns`, scrolled to its top.
    public init(text: UIText, rows: Int, columns: Int) {
        self.text = text
        self.rows = rows
        self.columns = columns
    }

    /// The keys that scroll it.
    var scrollKeys: ScrollKeys { ScrollKeys(text.keys.list) }

    /// The box's width: its longest entry or its longest footer, or the screen less a
    /// column each side.
    public var boxWidth: Int {
        let keysWidth = text.keyHelp.map { TextWidth.width(of: $0.keys) }.max() ?? 0
        let contentWidth = text.keyHelp.map { keysWidth + 2 + TextWidth.width(of: $0.action) }.max() ?? 0
        let footerWidth = TextWidth.width(of: text.helpFooter(scrollKeys: scrollKeys.labels(in: text)))
        return max(1, min(columns - 2, max(contentWidth, footerWidth) + 4))
    }

    /// Where descriptions start in the box, from its text's left edge: beside the widest
    /// keys, or, when that leaves them fewer than `minimumActionWidth` columns (a narrow
    /// screen), two columns in on the rows under their keys.
    public var actionColumn: Int {
        let keysWidth = text.keyHelp.map { TextWidth.width(of: $0.keys) }.max() ?? 0
        return boxWidth - 4 - keysWidth - 2 >= Self.minimumActionWidth ? keysWidth + 2 : 2
    }

    /// The rows at this width: each description wrapped, never cut.
    public var lines: [Line] {
        let column = actionColumn
        let width = max(1, boxWidth - 4 - column)
        let stacked = column == 2
        return text.keyHelp.flatMap { entry in
            // A heading, or the blank row before it.
            if entry.action.isEmpty { return [Line(keys: entry.keys, action: "")] }
            let pieces = TextWidth.wrap(entry.action, toWidth: width).map(\.text)
            if stacked {
                return [Line(keys: entry.keys, action: "")] + pieces.map { Line(keys: "", action: $0) }
            }
            return pieces.enumerated().map { Line(keys: $0.offset == 0 ? entry.keys : "", action: $0.element) }
        }
    }

    /// The footer, wrapped to the box: the keys that scroll it when it does not fit (the
    /// list's moves and the arrows), and that any other key closes it.
    public var footerLines: [String] {
        TextWidth.wrap(footer, toWidth: max(1, boxWidth - 4)).map(\.text)
    }

    /// The footer: naming the scrolling keys only when there is something to scroll.
    public var footer: String {
        // The footer's own length decides whether the help fits: try it without the scroll keys.
        let closing = text.helpFooter(scrollKeys: nil)
        let closingLines = TextWidth.wrap(closing, toWidth: max(1, boxWidth - 4)).count
        let fits = lines.count + 3 + closingLines <= rows
        return fits ? closing : text.helpFooter(scrollKeys: scrollKeys.labels(in: text))
    }

    /// The box's height: its rows, a blank line, the footer and the edges, or the whole screen.
    public var boxHeight: Int {
        min(rows, lines.count + 3 + footerLines.count)
    }

    /// Lines that show at once: all of them on a tall enough screen.
    public var visibleRows: Int {
        max(1, min(lines.count, boxHeight - 2 - footerLines.count))
    }

    /// A key: a scrolling key scrolls and this returns true; any other key returns false,
    /// and closes the help.
    public mutating func scroll(by key: Key) -> Bool {
        let limit = max(0, lines.count - visibleRows)
        guard let scrolled = scrollKeys.scrolled(scroll, by: key, page: visibleRows, limit: limit) else { return false }
        scroll = scrolled
        return true
    }
}
