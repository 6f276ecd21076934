import Foundation
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel

/// One drawn frame: the grid and where the terminal cursor goes (nil: hidden).
public struct Frame: Sendable, Equatable {
    /// The screen's cells.
    public var grid: CellGrid
    /// The text cursor, when a text field has focus.
    public var cursor: CursorPosition?
}

/// Draws the whole app from its model: a pure function of state, so tests compare its
/// text with the captures in `Screens/`.
public enum AppScreen {
    static let accent = CellStyle(bold: true, color: .accent)
    static let muted = CellStyle(dim: true, color: .muted)
    static let selected = CellStyle(reverse: true)
    static let highlight = CellStyle(bold: true, underline: true, color: .highlight)
    static let statusBar = CellStyle(reverse: true)

    /// The frame for `app` as it is now.
    public static func render(_ app: AppModel) -> Frame {
        var grid = CellGrid(rows: app.size.rows, columns: app.size.columns)
        if app.isTooSmall {
            drawTooSmall(app, into: &grid)
            return Frame(grid: grid, cursor: nil)
        }
        var cursor: CursorPosition?
        drawTabBar(app, into: &grid)
        if app.tab == .search {
            cursor = drawSearchField(app, into: &grid)
        }
        drawList(app, into: &grid)
        if app.showsPreviewPane {
            let preview = app.preview(width: PreviewScreen.textWidth(ofPane: app.previewPaneWidth))
            PreviewScreen.drawPane(preview, left: app.listWidth, width: app.previewPaneWidth, layout: app.layout, into: &grid)
        }
        drawHints(app, into: &grid)
        let messageFits = drawStatusBar(app, into: &grid)
        if let form = app.form {
            cursor = FormScreen.draw(form, text: app.text, deviceNames: app.deviceNames, into: &grid)
        } else if let question = app.deleteQuestion {
            drawDeleteQuestion(question, text: app.text, into: &grid)
            cursor = nil
        }
        if let log = app.syncLog {
            SyncLogScreen.draw(log, text: app.text, layout: app.layout, into: &grid)
            cursor = nil
        }
        if let view = app.historyView {
            HistoryScreen.draw(view, text: app.text, layout: app.layout, into: &grid)
            cursor = nil
        }
        if let shown = app.fullPreview {
            let preview = app.preview(width: app.layout.overlayTextWidth)
            PreviewScreen.drawFullScreen(shown, preview: preview, text: app.text, layout: app.layout, into: &grid)
            cursor = nil
        }
        if let help = app.help {
            HelpScreen.draw(help, into: &grid)
            cursor = nil
        }
        if !messageFits {
            drawMessageArea(app, into: &grid)
        }
        return Frame(grid: grid, cursor: cursor)
    }

    // MARK: Parts

    private static func drawTabBar(_ app: AppModel, into grid: inout CellGrid) {
        let layout = app.layout
        let bar = app.tabBar
        grid.put(bar.name, row: layout.tabBarRow, column: 0, style: accent)
        for (tab, column, label) in bar.labels {
            grid.put(label, row: layout.tabBarRow, column: column, style: tab == bar.openTab ? CellStyle(bold: true, reverse: true) : .plain)
        }
        grid.fill(row: layout.tabRuleRow, character: "─", style: muted)
        // Newest first goes without saying; any other order is named on the rule.
        if app.tab != .search, app.listOrder != .newestFirst {
            grid.put(" \(app.text.sortLabel(app.listOrder)) ", row: layout.tabRuleRow, column: 2, style: muted)
        }
        if !layout.hasSearchField { drawPosition(app, row: layout.tabRuleRow, into: &grid) }
    }

    /// `123/1000` at the right end of the rule above a list that does not fit the screen.
    private static func drawPosition(_ app: AppModel, row: Int, into grid: inout CellGrid) {
        let list = app.currentList
        guard list.totalCount > app.listHeight else { return }
        let position = " \(app.text.position(list.selectedIndex, of: list.totalCount)) "
        grid.put(position, row: row, column: grid.columns - TextWidth.width(of: position) - 1, style: muted)
    }

    /// The search field and the rule with the match count; returns the field's cursor.
    private static func drawSearchField(_ app: AppModel, into grid: inout CellGrid) -> CursorPosition? {
        guard let fieldRow = app.layout.searchFieldRow, let ruleRow = app.layout.searchRuleRow else { return nil }
        let search = app.search
        let start = grid.put(app.text.searchLabel, row: fieldRow, column: 1, style: search.isFocused ? accent : .plain) + 1
        let visible = TextField.visibleSlice(of: search.query, width: grid.columns - start - 1)
        grid.put(visible.text, row: fieldRow, column: start)
        grid.fill(row: ruleRow, character: "─", style: muted)
        if !search.query.characters.isEmpty {
            let matches = " \(app.text.matches(app.searchMatchCount, capped: search.isCountCapped)) "
            grid.put(matches, row: ruleRow, column: 2, style: muted)
        }
        drawPosition(app, row: ruleRow, into: &grid)
        return search.isFocused ? CursorPosition(row: fieldRow, column: start + visible.cursorColumn) : nil
    }

    private static func drawList(_ app: AppModel, into grid: inout CellGrid) {
        let list = app.currentList
        let top = app.listTop
        if list.totalCount == 0 {
            let message: String
            switch app.tab {
            case .all: message = app.text.emptyList
            case .completed: message = app.text.emptyCompleted
            case .search: message = app.search.query.characters.isEmpty ? app.text.searchPrompt : app.text.noMatches
            }
            grid.put(message, row: top + 1, column: 2, style: muted)
            return
        }
        let query: String? = app.tab == .search ? app.search.query.text : nil
        let isActive = !(app.tab == .search && app.search.isFocused)
        let selection = app.selectedRows
        for (offset, row) in list.visibleRows.enumerated() {
            drawRow(
                row.idea, row: top + offset, width: app.listWidth, isSelected: row.index == list.selectedIndex && isActive,
                isStale: app.staleIdeaIds.contains(row.idea.id), query: query, now: app.now, text: app.text,
                absoluteTime: app.showsAbsoluteTimes, into: &grid)
            if selection?.contains(row.index) == true {
                markSelected(row: top + offset, width: app.listWidth, isCursor: row.index == list.selectedIndex, into: &grid)
            }
        }
    }

    /// `> [x] Title  description snippet…        3h ago`, or `… stale · 40d ago` for an
    /// idea whose change the remote has not confirmed for 30 days.
    private static func drawRow(
        _ idea: Idea, row: Int, width: Int, isSelected: Bool, isStale: Bool, query: String?, now: Timestamp, text: UIText,
        absoluteTime: Bool = false, into grid: inout CellGrid
    ) {
        let base = isSelected ? selected : .plain
        grid.fill(row: row, width: width, style: base)
        grid.put(isSelected ? ">" : " ", row: row, column: 0, style: base)
        grid.put(idea.isCompleted ? "[x]" : "[ ]", row: row, column: AppModel.doneBoxColumns.lowerBound,
                 style: idea.isCompleted ? CellStyle(reverse: isSelected, color: .success) : base)
        let time = absoluteTime ? text.absoluteTime(idea.updatedAt) : text.age(of: idea.updatedAt, now: now)
        let age = isStale ? text.stale(time) : time
        let ageWidth = TextWidth.width(of: age)
        let ageColumn = width - ageWidth - 1
        var ageStyle = isSelected ? base : muted
        if isStale { ageStyle.color = .error }
        grid.put(age, row: row, column: ageColumn, style: ageStyle)
        let textStart = 5
        let available = ageColumn - 2 - textStart
        guard available > 0 else { return }
        // A title with no description to share the row with takes all of it.
        let titleShare = idea.description.isEmpty ? available : max(available * 3 / 5, available - 8)
        let titleWidth = min(TextWidth.width(of: idea.title), titleShare)
        let titleShown = TextWidth.truncate(idea.title, toWidth: titleWidth, ellipsis: true)
        var style = base
        if !isSelected { style.bold = true }
        let afterTitle = Highlighter.put(titleShown, query: query, row: row, column: textStart, style: style, into: &grid)
        let snippetWidth = ageColumn - 2 - (afterTitle + 2)
        guard snippetWidth > 3, !idea.description.isEmpty else { return }
        let snippet = Highlighter.snippet(of: idea.description, query: query, width: snippetWidth)
        let snippetShown = TextWidth.truncate(snippet, toWidth: snippetWidth, ellipsis: true)
        Highlighter.put(snippetShown, query: query, row: row, column: afterTitle + 2,
                        style: isSelected ? base : muted, into: &grid)
        linkCells(of: snippetShown, in: idea.description, row: row, column: afterTitle + 2, into: &grid)
    }

    /// Gives the cells of each link shown in `shown` (drawn at `row`, `column`) its whole
    /// address from `description`, so a link cut short on screen still opens where it goes.
    static func linkCells(of shown: String, in description: String, row: Int, column: Int, into grid: inout CellGrid) {
        for range in Links.ranges(in: shown) {
            let part = shown[range].hasSuffix("…") ? String(shown[range].dropLast()) : String(shown[range])
            guard let link = Links.ranges(in: description).lazy.map({ String(description[$0]) }).first(where: { $0.hasPrefix(part) })
            else { continue }
            let start = column + TextWidth.width(of: String(shown[..<range.lowerBound]))
            grid.restyle(row: row, columns: start..<start + TextWidth.width(of: String(shown[range]))) { $0.link = link }
        }
    }

    /// A row in a selection of many (`v`): `+` before it (the cursor's keeps its `>`), and
    /// its text in the highlight color, bold, beside the cursor's reversed row.
    private static func markSelected(row: Int, width: Int, isCursor: Bool, into grid: inout CellGrid) {
        if !isCursor { grid.put("+", row: row, column: 0, style: accent) }
        grid.restyle(row: row, columns: 1..<width) { style in
            style.bold = true
            style.dim = false
            if style.color == .default || style.color == .muted { style.color = .highlight }
        }
    }

    private static func drawHints(_ app: AppModel, into grid: inout CellGrid) {
        let hints: [String]
        if app.form != nil {
            hints = app.text.formHints
        } else if let first = app.waitingSequenceKey {
            hints = app.text.sequenceHints(after: first)
        } else if let rows = app.selectedRows {
            hints = app.text.selectionHints(rows.count)
        } else if app.tab == .search && app.search.isFocused {
            hints = app.text.searchFieldHints
        } else {
            hints = app.text.listHints
        }
        grid.put(" " + fitted(hints, width: grid.columns - 1), row: app.layout.hintsRow, column: 0, maxWidth: grid.columns, style: muted)
    }

    /// The hints that fit in `width`, two spaces apart: the last ones (help and quit)
    /// always, and the others from the first as far as room is left.
    static func fitted(_ hints: [String], width: Int) -> String {
        let kept = Array(hints.suffix(UIText.keptHints))
        var shown: [String] = []
        let separator = 2
        var used = kept.reduce(0) { $0 + TextWidth.width(of: $1) } + separator * max(0, kept.count - 1)
        for hint in hints.dropLast(UIText.keptHints) {
            let needed = TextWidth.width(of: hint) + separator
            guard used + needed <= width else { break }
            shown.append(hint)
            used += needed
        }
        return (shown + kept).joined(separator: "  ")
    }

    /// The bar: the sync state's words first (they always show), then what waits, how
    /// changes arrive, and last the state's detail, cut to the room left. A message goes
    /// beside it when it fits whole; says whether it did (or there was none).
    private static func drawStatusBar(_ app: AppModel, into grid: inout CellGrid) -> Bool {
        let row = app.layout.statusRow
        grid.fill(row: row, style: statusBar)
        var parts: [String] = []
        if app.status.isEncrypted { parts.append(app.text.encrypted) }
        if app.status.showsPendingCount { parts.append(app.text.pending(app.status.pendingCount)) }
        parts += app.status.companionsPending.map(app.text.pending)
        if let delivery = app.status.delivery { parts.append(app.text.delivery(delivery)) }
        // The state's words always; then each part that fits whole; then the detail, cut to
        // the room left (a detail cut to a few columns says nothing, and goes).
        let room = grid.columns - 2
        var sync = TextWidth.truncate(app.status.sync.state, toWidth: room, ellipsis: true)
        for part in parts {
            guard TextWidth.width(of: sync) + 3 + TextWidth.width(of: part) <= room else { break }
            sync += " · " + part
        }
        if let detail = app.status.sync.detail {
            let left = room - TextWidth.width(of: sync) - 3
            if left >= min(16, TextWidth.width(of: detail)) {
                sync += " · " + TextWidth.truncate(detail, toWidth: left, ellipsis: true)
            }
        }
        let end = grid.put(" " + sync + " ", row: row, column: 0, maxWidth: grid.columns, style: CellStyle(bold: true, reverse: true))
        guard let message = app.status.message else { return true }
        guard TextWidth.width(of: message.text) <= grid.columns - end - 2 else { return false }
        grid.put("│ " + message.text, row: row, column: end, style: messageStyle(message.tone, base: statusBar))
        return true
    }

    /// A message too long for the bar: whole, wrapped, on the rows above it (the hints'
    /// row first), over whatever is there for the few seconds it shows.
    private static func drawMessageArea(_ app: AppModel, into grid: inout CellGrid) {
        guard let message = app.status.message else { return }
        let lines = TextWidth.wrap(message.text, toWidth: grid.columns - 2).map(\.text)
        let shown = lines.prefix(max(1, grid.rows - 3))
        let top = grid.rows - 1 - shown.count
        let style = messageStyle(message.tone, base: .plain)
        for (offset, line) in shown.enumerated() {
            grid.fill(row: top + offset, style: .plain)
            grid.put(" " + line, row: top + offset, column: 0, maxWidth: grid.columns, style: style)
        }
    }

    private static func messageStyle(_ tone: StatusModel.Tone, base: CellStyle) -> CellStyle {
        var style = base
        switch tone {
        case .info: break
        case .success: style.color = .success
        case .error: style.color = .error; style.bold = true
        }
        return style
    }

    private static func drawDeleteQuestion(_ question: DeleteQuestion, text: UIText, into grid: inout CellGrid) {
        let box = Box.centered(height: 5, width: DeleteQuestion.boxWidth(columns: grid.columns), in: grid)
        Box.clear(box, in: &grid)
        grid.drawBox(top: box.top, left: box.left, height: box.height, width: box.width, title: text.deleteTitle, style: accent)
        grid.put(question.question(in: text, columns: grid.columns), row: box.top + 2, column: box.left + 2, maxWidth: box.width - 4,
                 style: CellStyle(bold: true))
    }

    private static func drawTooSmall(_ app: AppModel, into grid: inout CellGrid) {
        // Wrapped, not cut: the size the notice reports comes last and must show.
        let notice = app.text.tooSmall(rows: app.size.rows, columns: app.size.columns)
        let lines = notice.enumerated().flatMap { index, line in
            TextWidth.wrap(line, toWidth: grid.columns).map { (text: $0.text, isHeading: index == 0) }
        }
        let top = max(0, (grid.rows - lines.count) / 2)
        for (offset, line) in lines.enumerated() {
            let column = max(0, (grid.columns - TextWidth.width(of: line.text)) / 2)
            grid.put(line.text, row: top + offset, column: column, style: line.isHeading ? accent : .plain)
        }
    }
}

/// A rectangle of the screen.
struct Box {
    var top: Int
    var left: Int
    var height: Int
    var width: Int

    /// A box of at most `height` x `width`, centered in `grid`.
    static func centered(height: Int, width: Int, in grid: CellGrid) -> Box {
        let height = min(height, grid.rows)
        let width = min(width, grid.columns)
        return Box(top: (grid.rows - height) / 2, left: (grid.columns - width) / 2, height: height, width: width)
    }

    /// Blanks the box, so what is under it doesn't show through.
    static func clear(_ box: Box, in grid: inout CellGrid) {
        for row in box.top..<box.top + box.height {
            grid.fill(row: row, column: box.left, width: box.width)
        }
    }
}

/// Draws text with the matches of a search query picked out.
enum Highlighter {
    /// Writes `text` at `row`, `column`, the case-insensitive matches of `query` in the
    /// highlight style; returns the column after the text.
    @discardableResult
    static func put(
        _ text: String, query: String?, row: Int, column: Int, style: CellStyle, into grid: inout CellGrid
    ) -> Int {
        let ranges = matchRanges(of: query, in: text)
        guard !ranges.isEmpty else { return grid.put(text, row: row, column: column, style: style) }
        var matchStyle = AppScreen.highlight
        matchStyle.reverse = style.reverse
        var cursor = column
        var index = text.startIndex
        for range in ranges {
            cursor = grid.put(String(text[index..<range.lowerBound]), row: row, column: cursor, style: style)
            cursor = grid.put(String(text[range]), row: row, column: cursor, style: matchStyle)
            index = range.upperBound
        }
        return grid.put(String(text[index...]), row: row, column: cursor, style: style)
    }

    /// At most `width` cells' worth of the description on one line, starting near the first
    /// match when there is one, so the match shows even in a long description. Only that
    /// much of the description is read: a row never pays for the rest of a long text.
    static func snippet(of description: String, query: String?, width: Int) -> String {
        var start = description.startIndex
        var lead = ""
        if let needle = query?.trimmingCharacters(in: .whitespacesAndNewlines), !needle.isEmpty,
           let first = description.range(of: needle, options: [.caseInsensitive]),
           description.distance(from: start, to: first.lowerBound) > 20 {
            start = description.index(first.lowerBound, offsetBy: -10)
            lead = "…"
        }
        let shown = description[start...].prefix(max(0, width + 1)).map { $0 == "\n" || $0 == "\t" ? " " : $0 }
        return lead + String(shown)
    }

    /// Where `query` (trimmed, case-insensitive) occurs in `text`, without overlaps.
    static func matchRanges(of query: String?, in text: String) -> [Range<String.Index>] {
        guard let needle = query?.trimmingCharacters(in: .whitespacesAndNewlines), !needle.isEmpty else { return [] }
        var ranges: [Range<String.Index>] = []
        var start = text.startIndex
        while start < text.endIndex,
              let range = text.range(of: needle, options: [.caseInsensitive], range: start..<text.endIndex) {
            ranges.append(range)
            start = range.upperBound
        }
        return ranges
    }
}

/// What part of a one-line text field shows in a given width, keeping the cursor visible.
enum TextField {
    /// The visible text and the cursor's column within it.
    static func visibleSlice(of buffer: TextBuffer, width: Int) -> (text: String, cursorColumn: Int) {
        let width = max(1, width)
        var start = 0
        var cursorColumn = buffer.characters[..<buffer.cursor].reduce(0) { $0 + TextWidth.width(of: $1) }
        while cursorColumn >= width, start < buffer.cursor {
            cursorColumn -= TextWidth.width(of: buffer.characters[start])
            start += 1
        }
        let shown = TextWidth.truncate(String(buffer.characters[start...]), toWidth: width)
        return (shown, cursorColumn)
    }
}
