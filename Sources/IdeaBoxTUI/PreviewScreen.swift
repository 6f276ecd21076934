import IdeaBoxViewModels

/// Draws the selected idea whole: in a pane beside the list on a wide screen, or full
/// screen over the list (`p` on a narrow one).
enum PreviewScreen {
    /// The pane right of the list, from column `left`, `width` columns wide: a rule on its
    /// left edge, then `preview` (nil: an empty list) from its top.
    static func drawPane(_ preview: IdeaPreview?, left: Int, width paneWidth: Int, layout: ScreenLayout, into grid: inout CellGrid) {
        let rows = layout.listTop..<layout.hintsRow
        for row in rows {
            grid.fill(row: row, column: left, width: paneWidth)
            grid.put("│", row: row, column: left, style: AppScreen.muted)
        }
        let width = textWidth(ofPane: paneWidth)
        guard let preview else { return }
        for (offset, line) in preview.lines.prefix(rows.count).enumerated() {
            grid.put(line.text, row: rows.lowerBound + offset, column: left + 2, maxWidth: width, style: style(line.kind))
        }
    }

    /// The columns the preview's text takes in a pane `width` wide: less the rule and a margin each side.
    static func textWidth(ofPane width: Int) -> Int { width - 3 }

    /// `preview` (wrapped to the overlay's text width; nil: an empty list) over the list,
    /// framed as the other overlays are, scrolled as `shown` is, in `text`'s words.
    static func drawFullScreen(
        _ shown: FullPreview, preview: IdeaPreview?, text: UIText, layout: ScreenLayout, into grid: inout CellGrid
    ) {
        let box = Box(top: layout.overlayTop, left: 0, height: layout.overlayHeight, width: grid.columns)
        Box.clear(box, in: &grid)
        grid.drawBox(top: box.top, left: box.left, height: box.height, width: box.width, title: text.previewTitle, style: AppScreen.accent)
        guard let preview else { return }
        let height = layout.overlayTextRows
        let first = min(shown.scroll, max(0, preview.lines.count - height))
        for (offset, line) in preview.lines.dropFirst(first).prefix(height).enumerated() {
            grid.put(line.text, row: box.top + 1 + offset, column: box.left + 2, maxWidth: box.width - 4, style: style(line.kind))
        }
        grid.put(text.previewFooter, row: box.top + box.height - 2, column: box.left + 2, maxWidth: box.width - 4, style: AppScreen.muted)
    }

    private static func style(_ kind: IdeaPreview.Line.Kind) -> CellStyle {
        switch kind {
        case .title: CellStyle(bold: true)
        case .body: .plain
        case .detail: AppScreen.muted
        }
    }
}
