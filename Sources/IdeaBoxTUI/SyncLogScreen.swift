import IdeaBoxViewModels

/// Draws the sync log overlay: the newest log lines, then the conflicts, scrollable, with
/// the "overwrite remote" question at the bottom when it is asked.
enum SyncLogScreen {
    /// Draws `log` in `text`'s words over the screen laid out as `layout` says.
    static func draw(_ log: SyncLogView, text: UIText, layout: ScreenLayout, into grid: inout CellGrid) {
        let box = Box(top: layout.overlayTop, left: 0, height: layout.overlayHeight, width: grid.columns)
        Box.clear(box, in: &grid)
        grid.drawBox(top: box.top, left: box.left, height: box.height, width: box.width, title: text.syncLogTitle, style: AppScreen.accent)
        let lines = log.rows(in: text, width: layout.overlayTextWidth).map { line -> (String, CellStyle) in
            let style: CellStyle = switch line.tone {
            case .plain: .plain
            case .muted: AppScreen.muted
            case .heading: AppScreen.accent
            case .warning: CellStyle(color: .highlight)
            case .error: CellStyle(color: .error)
            }
            return (line.text, style)
        }
        let height = layout.overlayTextRows
        let first = min(log.scroll, max(0, lines.count - height))
        for (offset, line) in lines.dropFirst(first).prefix(height).enumerated() {
            grid.put(line.0, row: box.top + 1 + offset, column: box.left + 2, maxWidth: box.width - 4, style: line.1)
        }
        let bottom = box.top + box.height - 2
        if let overwrite = log.confirmingOverwrite {
            let question = overwrite == .ideas ? text.overwriteQuestion : text.libraryOverwriteQuestion
            grid.put(question, row: bottom, column: box.left + 2, maxWidth: box.width - 4,
                     style: CellStyle(bold: true, color: .error))
        } else {
            grid.put(text.syncLogHints, row: bottom, column: box.left + 2, maxWidth: box.width - 4, style: AppScreen.muted)
        }
    }
}
