import IdeaBoxViewModels

/// Draws the history overlay: one idea's versions, the one under the cursor marked, with
/// the keys at the bottom.
enum HistoryScreen {
    /// Draws `view` in `text`'s words over the screen laid out as `layout` says.
    static func draw(_ view: HistoryView, text: UIText, layout: ScreenLayout, into grid: inout CellGrid) {
        let box = Box(top: layout.overlayTop, left: 0, height: layout.overlayHeight, width: grid.columns)
        Box.clear(box, in: &grid)
        let title = TextWidth.truncate(text.historyTitle(view.title), toWidth: max(1, box.width - 6), ellipsis: true)
        grid.drawBox(top: box.top, left: box.left, height: box.height, width: box.width, title: title, style: AppScreen.accent)
        let lines = view.lines(in: text)
        let height = layout.overlayTextRows
        let first = min(view.scroll, max(0, lines.count - height))
        for (offset, line) in lines.dropFirst(first).prefix(height).enumerated() {
            let style: CellStyle = switch line.tone {
            case .heading: CellStyle(bold: true, reverse: true, color: .accent)
            case .muted: AppScreen.muted
            case .warning: CellStyle(color: .highlight)
            case .error: CellStyle(color: .error)
            case .plain: .plain
            }
            grid.put(line.text, row: box.top + 1 + offset, column: box.left + 2, maxWidth: box.width - 4, style: style)
        }
        grid.put(text.historyHints, row: box.top + box.height - 2, column: box.left + 2, maxWidth: box.width - 4, style: AppScreen.muted)
    }
}
