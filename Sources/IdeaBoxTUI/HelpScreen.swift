import IdeaBoxViewModels

/// Draws the help overlay: every action with its keys in a centered box, scrolled, with the
/// footer at its bottom.
enum HelpScreen {
    static func draw(_ help: HelpOverlay, into grid: inout CellGrid) {
        let entries = help.lines
        let actionColumn = help.actionColumn
        let box = Box.centered(height: help.boxHeight, width: help.boxWidth, in: grid)
        Box.clear(box, in: &grid)
        grid.drawBox(top: box.top, left: box.left, height: box.height, width: box.width, title: help.text.helpTitle, style: AppScreen.accent)
        // The blank line above the footer goes first when the screen is short of a row; then
        // the entries scroll.
        let rows = help.visibleRows
        let first = min(help.scroll, max(0, entries.count - rows))
        for (offset, entry) in entries.dropFirst(first).prefix(rows).enumerated() {
            let row = box.top + 1 + offset
            grid.put(entry.keys, row: row, column: box.left + 2, maxWidth: box.width - 4, style: AppScreen.accent)
            grid.put(entry.action, row: row, column: box.left + 2 + actionColumn, maxWidth: box.width - 4 - actionColumn)
        }
        let footer = help.footerLines
        for (offset, line) in footer.enumerated() {
            grid.put(line, row: box.top + box.height - 1 - footer.count + offset, column: box.left + 2, maxWidth: box.width - 4,
                     style: AppScreen.muted)
        }
    }
}
