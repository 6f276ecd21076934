/// The size of a terminal in cells.
public struct TerminalSize: Hashable, Sendable {
    /// The number of rows.
    public let rows: Int
    /// The number of columns.
    public let columns: Int

    /// A size of `rows` x `columns` cells.
    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }
}

/// A cell position for the visible cursor, such as the insertion point of a text field.
public struct CursorPosition: Hashable, Sendable {
    /// The row of the cursor.
    public let row: Int
    /// The column of the cursor.
    public let column: Int

    /// The cursor at `row`, `column`.
    public init(row: Int, column: Int) {
        self.row = row
        self.column = column
    }
}

/// A full-screen terminal that shows cell grids and reads input; the app gets one passed
/// in, so it can run against a fake.
public protocol TerminalBackend: AnyObject {
    /// The current size of the screen.
    var size: TerminalSize { get }
    /// Shows `grid`, writing only what changed since the last frame, with the cursor shown
    /// at `cursor` or hidden when it is nil.
    func draw(_ grid: CellGrid, cursor: CursorPosition?)
    /// Waits up to `timeoutMilliseconds` for input and returns everything then waiting, in
    /// order; empty when nothing came.
    func readInput(timeoutMilliseconds: Int) -> [RawInput]
    /// Gives the terminal to the shell and stops the process until the shell continues it
    /// (Ctrl-Z, then `fg`); the next frame is drawn whole.
    func suspend()
    /// Gives the terminal to another program as the shell had it (`work` runs the person's
    /// editor), then takes it back; the next frame is drawn whole.
    func runOutside(_ work: () -> Void)
    /// Gives the terminal back to the shell as it was; calling it again does nothing.
    func restore()
    /// Asks the terminal to put `text` on the clipboard (OSC 52); false if it cannot take it.
    func copyToClipboard(_ text: String) -> Bool
}

extension TerminalBackend {
    /// A terminal without a clipboard: every copy refused.
    public func copyToClipboard(_ text: String) -> Bool { false }
}
