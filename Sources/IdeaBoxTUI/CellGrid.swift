import IdeaBoxViewModels

/// An in-memory screen of `rows` x `columns` cells that the UI draws into; a wide cluster
/// takes its cell and a continuation cell to its right.
public struct CellGrid: Hashable, Sendable {
    /// The number of rows.
    public let rows: Int
    /// The number of columns.
    public let columns: Int
    private var cells: [Cell]

    /// A grid of blank cells; negative sizes count as zero.
    public init(rows: Int, columns: Int) {
        self.rows = max(0, rows)
        self.columns = max(0, columns)
        cells = Array(repeating: .blank, count: self.rows * self.columns)
    }

    /// The cell at `row`, `column`; both must be inside the grid.
    public subscript(row: Int, column: Int) -> Cell {
        precondition(contains(row: row, column: column), "cell (\(row), \(column)) is outside the grid")
        return cells[row * columns + column]
    }

    /// Changes the style of the cells of `row` in `columns` (clamped to the grid), text kept.
    public mutating func restyle(row: Int, columns: Range<Int>, _ change: (inout CellStyle) -> Void) {
        guard row >= 0, row < rows else { return }
        for column in max(0, columns.lowerBound)..<min(self.columns, max(0, columns.upperBound)) {
            change(&cells[row * self.columns + column].style)
        }
    }

    /// Writes `text` from `row`, `column` in `style`, cluster by cluster, within `maxWidth`
    /// cells and the grid; stops before the first cluster that does not fit whole and skips
    /// clusters with no width. Returns the column after the last cell written.
    @discardableResult
    public mutating func put(
        _ text: String,
        row: Int,
        column: Int,
        maxWidth: Int = .max,
        style: CellStyle = .plain
    ) -> Int {
        guard (0..<rows).contains(row), maxWidth > 0 else { return column }
        let limit = column > columns - maxWidth ? columns : min(columns, column + maxWidth)
        var cursor = column
        for character in text {
            let width = TextWidth.width(of: character)
            if width == 0 { continue }
            if cursor + width > limit { break }
            if cursor >= 0 {
                place(String(character), width: width, row: row, column: cursor, style: style)
            }
            cursor += width
        }
        return cursor
    }

    /// Fills `width` cells of `row` from `column` with `character` in `style`.
    public mutating func fill(
        row: Int,
        column: Int = 0,
        width: Int = .max,
        character: Character = " ",
        style: CellStyle = .plain
    ) {
        let available = column > columns - width ? columns - column : width
        let count = max(0, available) / max(1, TextWidth.width(of: character))
        put(String(repeating: String(character), count: count), row: row, column: column, maxWidth: width, style: style)
    }

    /// Blanks every cell of `rows` in `style`.
    public mutating func fillRows(_ rows: Range<Int>, style: CellStyle = .plain) {
        for row in rows {
            fill(row: row, style: style)
        }
    }

    /// Draws a single-line frame with its corners at `top`, `left` and `height`, `width`
    /// cells apart, and `title` (cut with "…" when long) in its top edge; the inside is
    /// left as it is. Frames smaller than 2 x 2 are not drawn.
    public mutating func drawBox(
        top: Int,
        left: Int,
        height: Int,
        width: Int,
        title: String? = nil,
        style: CellStyle = .plain
    ) {
        guard height >= 2, width >= 2 else { return }
        let bottom = top + height - 1
        let right = left + width - 1
        put("┌", row: top, column: left, style: style)
        fill(row: top, column: left + 1, width: width - 2, character: "─", style: style)
        put("┐", row: top, column: right, style: style)
        for row in top + 1..<bottom {
            put("│", row: row, column: left, style: style)
            put("│", row: row, column: right, style: style)
        }
        put("└", row: bottom, column: left, style: style)
        fill(row: bottom, column: left + 1, width: width - 2, character: "─", style: style)
        put("┘", row: bottom, column: right, style: style)
        if let title, width >= 5 {
            let shown = TextWidth.truncate(title, toWidth: width - 4, ellipsis: true)
            put(" \(shown) ", row: top, column: left + 1, maxWidth: width - 2, style: style)
        }
    }

    /// The screen as plain text: each row's clusters with trailing spaces trimmed, rows
    /// joined by "\n". This is what the snapshot files under `Screens/` hold.
    public func renderText() -> String {
        (0..<rows).map { row in
            var line = ""
            for column in 0..<columns {
                line += cells[row * columns + column].text
            }
            while line.last == " " {
                line.removeLast()
            }
            return line
        }
        .joined(separator: "\n")
    }

    private func contains(row: Int, column: Int) -> Bool {
        (0..<rows).contains(row) && (0..<columns).contains(column)
    }

    /// Stores a cluster of `width` cells, first blanking what is left of any wide cluster
    /// it covers half of, so no half character stays behind.
    private mutating func place(_ text: String, width: Int, row: Int, column: Int, style: CellStyle) {
        let start = row * columns + column
        if cells[start].isContinuation && column > 0 {
            cells[start - 1].text = " "
        }
        let after = start + width
        if column + width < columns && cells[after].isContinuation {
            cells[after].text = " "
        }
        cells[start] = Cell(text: text, style: style)
        if width == 2 {
            cells[start + 1] = Cell(text: "", style: style)
        }
    }
}
