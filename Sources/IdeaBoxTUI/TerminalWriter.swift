/// Turns frames into the bytes a terminal is sent: an absolute move to each changed run,
/// the run's attributes as SGR, and every cell's whole grapheme cluster, so skin tones,
/// variation selectors, keycaps, flags and ZWJ sequences reach the terminal intact.
///
/// The grid measures a cluster once (TextWidth), but a terminal may draw it wider or
/// narrower: one that measures scalar by scalar with `wcwidth` (tmux 3.3a among them) puts
/// 👍🏽 in four cells and 1️⃣ in one. After such a cluster the writer moves the cursor to
/// where the grid's next cell is, and rewrites the cells a wider drawing covered, so every
/// other cell stays where the grid put it whatever the terminal made of the cluster.
public struct TerminalWriter {
    /// How a terminal measures a scalar: the C library's `wcwidth`, -1 for unprintable.
    public typealias ScalarWidth = (Unicode.Scalar) -> Int

    /// Whether named colors are sent (off under `NO_COLOR`, or without color support).
    public let usesColors: Bool
    /// Whether the terminal has the 16-color palette (bright black for muted text).
    public let hasBrightColors: Bool
    /// Whether cells with a link are sent as OSC 8 hyperlinks (see `TerminalFeatures`).
    public let usesHyperlinks: Bool
    /// The terminal colors of the app's named colors.
    public let palette: TerminalPalette
    private let scalarWidth: ScalarWidth
    private var bytes: [UInt8] = []
    private var currentStyle: CellStyle?
    /// The hyperlink open on the terminal, if any: closed before the frame ends.
    private var currentLink: String?
    private var isCursorVisible = false

    private static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// A writer for a terminal with these abilities and colors, measuring scalars as it does.
    public init(
        usesColors: Bool, hasBrightColors: Bool, usesHyperlinks: Bool = false, palette: TerminalPalette = .standard,
        scalarWidth: @escaping ScalarWidth
    ) {
        self.usesColors = usesColors
        self.palette = palette
        self.hasBrightColors = hasBrightColors
        self.usesHyperlinks = usesHyperlinks
        self.scalarWidth = scalarWidth
    }

    /// The bytes that turn the screen from `previous` (nil: unknown, so every cell is
    /// written) into `grid`, on a screen of `screen` cells, with the text cursor shown at
    /// `cursor` or hidden.
    public mutating func frame(
        from previous: CellGrid?, to grid: CellGrid, screen: TerminalSize, cursor: CursorPosition?
    ) -> [UInt8] {
        bytes = []
        if previous == nil { currentStyle = nil }
        if isCursorVisible { append("\u{1B}[?25l") }
        for run in GridDiff.runs(from: previous, to: grid) where run.row < screen.rows {
            write(run, of: grid, within: screen.columns)
        }
        setLink(nil)
        append("\u{1B}[0m")
        currentStyle = .plain
        if let cursor {
            moveTo(row: cursor.row, column: cursor.column)
            append("\u{1B}[?25h")
        }
        isCursorVisible = cursor != nil
        return bytes
    }

    /// Forgets what the terminal shows, as after another program drew on it.
    public mutating func reset() {
        currentStyle = nil
        isCursorVisible = true
    }

    /// Writes the cells of `run`, and past its end as many cells of `grid` as a cluster
    /// drawn wider than its cells covered.
    private mutating func write(_ run: CellRun, of grid: CellGrid, within columns: Int) {
        moveTo(row: run.row, column: run.column)
        var column = run.column
        var end = run.column + run.cells.count
        while column < min(end, grid.columns) {
            let cell = grid[run.row, column]
            let width = column + 1 < grid.columns && grid[run.row, column + 1].isContinuation ? 2 : 1
            guard !cell.isContinuation else {
                column += 1
                continue
            }
            guard column + width <= columns else { return }
            setStyle(cell.style)
            // Most cells are one printable ASCII byte: no measuring, no encoding.
            if width == 1, cell.text.utf8.count == 1, let byte = cell.text.utf8.first, (0x20..<0x7F).contains(byte) {
                bytes.append(byte)
                column += 1
                continue
            }
            let scalars = printableScalars(of: cell.text)
            let drawnWidth = scalars.reduce(0) { $0 + max(0, scalarWidth($1)) }
            if drawnWidth < width {
                // A narrower drawing leaves the cell's last column as it was: blank it first.
                append(String(repeating: " ", count: width))
                moveTo(row: run.row, column: column)
            }
            for scalar in scalars {
                append(scalar)
            }
            column += width
            if drawnWidth != width {
                moveTo(row: run.row, column: column)
                end = max(end, column - width + drawnWidth)
            }
        }
    }

    /// The cluster's scalars, unprintable ones (controls) shown as U+FFFD.
    private func printableScalars(of text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.map { scalarWidth($0) < 0 ? Self.replacement : $0 }
    }

    private mutating func moveTo(row: Int, column: Int) {
        append("\u{1B}[\(row + 1);\(column + 1)H")
    }

    /// Opens the hyperlink `link` (closing the one open), or closes it for nil: OSC 8 with
    /// ST, which terminals without links ignore (but the writer sends none to those).
    private mutating func setLink(_ link: String?) {
        guard usesHyperlinks, link != currentLink else { return }
        if currentLink != nil { append("\u{1B}]8;;\u{1B}\\") }
        if let link { append("\u{1B}]8;;\(Self.linkSafe(link))\u{1B}\\") }
        currentLink = link
    }

    /// `link` with nothing that could end or break the sequence: only printable ASCII (a
    /// non-ASCII address is percent-encoded, as OSC 8 asks).
    static func linkSafe(_ link: String) -> String {
        var safe = ""
        for byte in link.utf8 {
            if (0x21..<0x7F).contains(byte) {
                safe.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                safe += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return safe
    }

    /// Sends the SGR for `style` unless it is already in effect; without colors, the
    /// colors that must stand out become bold. A change of link alone sends only OSC 8.
    private mutating func setStyle(_ style: CellStyle) {
        guard style != currentStyle else { return }
        defer { setLink(style.link) }
        var previous = currentStyle
        previous?.link = style.link
        currentStyle = style
        guard style != previous else { return }
        var parameters = ["0"]
        var bold = style.bold
        if !usesColors {
            switch style.color {
            case .accent, .error, .highlight: bold = true
            case .default, .muted, .success: break
            }
        }
        if bold { parameters.append("1") }
        if style.dim { parameters.append("2") }
        if style.underline { parameters.append("4") }
        if style.reverse { parameters.append("7") }
        if usesColors, let color = foreground(style.color) { parameters.append(color) }
        append("\u{1B}[" + parameters.joined(separator: ";") + "m")
    }

    private func foreground(_ color: CellColor) -> String? {
        palette.foreground(color, hasBrightColors: hasBrightColors)
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func append(_ scalar: Unicode.Scalar) {
        bytes.append(contentsOf: UTF8.encode(scalar)!)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
