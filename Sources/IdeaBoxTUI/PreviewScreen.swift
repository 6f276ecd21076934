import IdeaBoxViewModels

/// Draws the selected idea whole: in a pane beside the list on a wide screen, or full
/// screen over the list (`p` on a narrow one).
enum PreviewScreen {
    /// The pane right of the list: a rule on its left edge, then the preview from its top.
    static func drawPane(_ app: AppModel, into grid: inout CellGrid) {
        let layout = app.layout
        let left = app.listWidth
        let rows = layout.listTop..<layout.hintsRow
        for row in rows {
            grid.fill(row: row, column: left, width: app.previewPaneWidth)
            grid.put("│", row: row, column: left, style: AppScreen.muted)
        }
        let width = app.previewPaneWidth - 3
        guard let preview = app.preview(width: width) else { return }
        for (offset, line) in preview.lines.prefix(rows.count).enumerated() {
            grid.put(line.text, row: rows.lowerBound + offset, column: left + 2, maxWidth: width, style: style(line.kind))
        }
    }

    /// The preview over the list, framed as the other overlays are, scrolled by
    /// `previewScroll`.
    static func drawFullScreen(_ app: AppModel, into grid: inout CellGrid) {
        let layout = app.layout
        let box = Box(top: layout.overlayTop, left: 0, height: layout.overlayHeight, width: grid.columns)
        Box.clear(box, in: &grid)
        grid.drawBox(top: box.top, left: box.left, height: box.height, width: box.width, title: app.text.previewTitle, style: AppScreen.accent)
        guard let preview = app.preview(width: layout.overlayTextWidth) else { return }
        let height = app.previewVisibleRows
        let first = min(app.previewScroll, max(0, preview.lines.count - height))
        for (offset, line) in preview.lines.dropFirst(first).prefix(height).enumerated() {
            grid.put(line.text, row: box.top + 1 + offset, column: box.left + 2, maxWidth: box.width - 4, style: style(line.kind))
        }
        grid.put(app.text.previewFooter, row: box.top + box.height - 2, column: box.left + 2, maxWidth: box.width - 4, style: AppScreen.muted)
    }

    private static func style(_ kind: IdeaPreview.Line.Kind) -> CellStyle {
        switch kind {
        case .title: CellStyle(bold: true)
        case .body: .plain
        case .detail: AppScreen.muted
        }
    }
}
