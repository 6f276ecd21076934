import CNcurses

/// One ncurses cell write: a spacing scalar and the scalars the terminal joins to it, and
/// the cells the terminal advances for it (the `wcwidth` of the first scalar, as ncurses
/// assumes too).
struct TerminalGlyph: Hashable, Sendable {
    /// The scalars to write, the spacing one first.
    let scalars: [Unicode.Scalar]
    /// The cells the terminal and ncurses advance.
    let width: Int

    /// The glyphs to write for one grid cell holding `cluster` so that the terminal advances
    /// exactly `cellWidth` cells. Terminals using `wcwidth` split some clusters that the grid
    /// counts as one two-cell cluster: tmux 3.3a draws 👍🏽 as 👍 and 🏽 (four cells), ❤️
    /// in one cell, and 🇺🇸 as two one-cell letters; with `joinsAfterZeroWidthJoiner`
    /// it joins the scalar after a ZWJ into the cell before (👩‍💻 in two cells). Parts that
    /// would overflow the cell are dropped and a short cluster is padded with spaces, so
    /// the columns after it stay where the grid put them.
    static func layout(
        _ cluster: String,
        cellWidth: Int,
        joinsAfterZeroWidthJoiner: Bool,
        scalarWidth: (Unicode.Scalar) -> Int
    ) -> [TerminalGlyph] {
        var pieces: [TerminalGlyph] = []
        var followsJoiner = false
        for original in cluster.unicodeScalars {
            let width = scalarWidth(original)
            let scalar = width < 0 ? replacement : original
            if let last = pieces.last, width == 0 || (followsJoiner && joinsAfterZeroWidthJoiner) {
                pieces[pieces.count - 1] = TerminalGlyph(scalars: last.scalars + [scalar], width: last.width)
            } else if width != 0 {
                pieces.append(TerminalGlyph(scalars: [scalar], width: max(width, 1)))
            }
            followsJoiner = scalar == zeroWidthJoiner
        }
        var glyphs: [TerminalGlyph] = []
        var used = 0
        for piece in pieces.map(fittedToCell) {
            if used + piece.width > cellWidth { break }
            glyphs.append(piece)
            used += piece.width
        }
        let space = TerminalGlyph(scalars: [" "], width: 1)
        return glyphs + Array(repeating: space, count: max(0, cellWidth - used))
    }

    private static let zeroWidthJoiner: Unicode.Scalar = "\u{200D}"
    private static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// Keeps a glyph within the scalars one ncurses cell stores (a ZWJ sequence that is too
    /// long keeps only its first emoji) and without a trailing ZWJ, which would make the
    /// terminal join the next cell's character to this one.
    private static func fittedToCell(_ glyph: TerminalGlyph) -> TerminalGlyph {
        var scalars = glyph.scalars
        let capacity = Int(CCHARW_MAX)
        if scalars.count > capacity {
            if let joiner = scalars.firstIndex(of: zeroWidthJoiner) {
                scalars.removeSubrange(joiner...)
            }
            scalars = Array(scalars.prefix(capacity))
        }
        while scalars.count > 1 && scalars.last == zeroWidthJoiner {
            scalars.removeLast()
        }
        return TerminalGlyph(scalars: scalars, width: glyph.width)
    }
}
