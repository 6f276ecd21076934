/// A stretch of cells on one row to be written from `column`; it never ends between a wide
/// cluster and its continuation, so each cell's width can be read from the run itself.
public struct CellRun: Hashable, Sendable {
    /// The row of the run.
    public let row: Int
    /// The column of the first cell.
    public let column: Int
    /// The cells, left to right.
    public let cells: [Cell]

    /// A run of `cells` starting at `row`, `column`.
    public init(row: Int, column: Int, cells: [Cell]) {
        self.row = row
        self.column = column
        self.cells = cells
    }
}

/// The difference between two frames, so a terminal redraws only what changed.
public enum GridDiff {
    /// The runs of `next` that differ from `previous`; every row whole when there is no
    /// previous frame or its size differs.
    public static func runs(from previous: CellGrid?, to next: CellGrid) -> [CellRun] {
        guard let previous, previous.rows == next.rows, previous.columns == next.columns else {
            return (0..<next.rows).compactMap { row in
                run(of: next, row: row, columns: 0..<next.columns)
            }
        }
        var runs: [CellRun] = []
        for row in 0..<next.rows {
            var column = 0
            while column < next.columns {
                guard previous[row, column] != next[row, column] else {
                    column += 1
                    continue
                }
                var end = column + 1
                while end < next.columns
                    && (previous[row, end] != next[row, end] || next[row, end].isContinuation) {
                    end += 1
                }
                if let run = run(of: next, row: row, columns: column..<end) {
                    runs.append(run)
                }
                column = end
            }
        }
        return runs
    }

    private static func run(of grid: CellGrid, row: Int, columns: Range<Int>) -> CellRun? {
        guard !columns.isEmpty else { return nil }
        return CellRun(row: row, column: columns.lowerBound, cells: columns.map { grid[row, $0] })
    }
}
