import CNcurses
import Glibc
@testable import IdeaBoxTUI
import IdeaBoxViewModels
import Testing

/// The bytes sent to the terminal for a frame: every cell's whole cluster, the cursor put
/// back where the grid's next cell is when a terminal may draw a cluster wider or narrower.
@Suite struct TerminalWriterTests {
    /// A terminal that measures like glibc's `wcwidth` (as tmux 3.3a does): 👍 and 🏽 two
    /// cells each, a ZWJ and VS16 none, a regional indicator one.
    private static func systemWidth(_ scalar: Unicode.Scalar) -> Int {
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return -1 }
        return TextWidth.width(of: scalar)
    }

    private func bytes(_ text: String, columns: Int = 10, colors: Bool = false) -> String {
        var grid = CellGrid(rows: 1, columns: columns)
        grid.put(text, row: 0, column: 0)
        var writer = TerminalWriter(usesColors: colors, hasBrightColors: true, scalarWidth: Self.systemWidth)
        let written = writer.frame(from: CellGrid(rows: 1, columns: columns), to: grid, screen: TerminalSize(rows: 1, columns: columns), cursor: nil)
        return String(decoding: written, as: UTF8.self)
    }

    @Test func plainTextIsOneMoveAndTheCharacters() {
        #expect(bytes("ab") == "\u{1B}[1;1H\u{1B}[0mab\u{1B}[0m")
    }

    @Test(arguments: ["👍🏽", "👋🏿", "🧑🏽‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈"])
    func clustersWiderForTheTerminalAreSentWholeAndTheCursorIsPutBack(cluster: String) {
        let written = bytes(cluster + "x")
        #expect(written.contains(cluster), "the whole cluster reaches the terminal")
        // Then the cursor goes to column 3 (the cell after the cluster's two) before "x".
        #expect(written.contains(cluster + "\u{1B}[1;3Hx"), "\(written.debugDescription)")
    }

    @Test func keycapsAndNarrowEmojiBlankTheirCellsFirst() {
        // 1️⃣ is one cell to wcwidth, two in the grid: both cells are blanked, then the
        // keycap is drawn from the first, and the cursor goes to the third.
        #expect(bytes("1️⃣x") == "\u{1B}[1;1H\u{1B}[0m  \u{1B}[1;1H1️⃣\u{1B}[1;3Hx\u{1B}[0m")
        #expect(bytes("❤️").contains("  \u{1B}[1;1H❤️\u{1B}[1;3H"))
    }

    @Test func flagsAndCJKNeedNoMove() {
        #expect(bytes("🇺🇸中x") == "\u{1B}[1;1H\u{1B}[0m🇺🇸中x\u{1B}[0m")
    }

    @Test func cellsAfterAWiderClusterAreRewrittenEvenWhenUnchanged() {
        var before = CellGrid(rows: 1, columns: 8)
        before.put("ab cdef", row: 0, column: 0)
        var after = before
        after.put("👍🏽", row: 0, column: 0)
        var writer = TerminalWriter(usesColors: false, hasBrightColors: true, scalarWidth: Self.systemWidth)
        let written = String(decoding: writer.frame(from: before, to: after, screen: TerminalSize(rows: 1, columns: 8), cursor: nil), as: UTF8.self)
        // The terminal drew 👍🏽 over four cells: " c" after it are written again.
        #expect(written == "\u{1B}[1;1H\u{1B}[0m👍🏽\u{1B}[1;3H c\u{1B}[0m")
    }

    @Test func stylesAreSGRAndColorsFollowNO_COLOR() {
        var grid = CellGrid(rows: 1, columns: 4)
        grid.put("a", row: 0, column: 0, style: CellStyle(bold: true, reverse: true, color: .accent))
        grid.put("b", row: 0, column: 1, style: CellStyle(color: .error))
        for (colors, expected) in [(true, "\u{1B}[0;1;7;36ma\u{1B}[0;31mb"), (false, "\u{1B}[0;1;7ma\u{1B}[0;1mb")] {
            var writer = TerminalWriter(usesColors: colors, hasBrightColors: true, scalarWidth: Self.systemWidth)
            let written = String(decoding: writer.frame(from: nil, to: grid, screen: TerminalSize(rows: 1, columns: 4), cursor: nil), as: UTF8.self)
            #expect(written.contains(expected), "\(written.debugDescription)")
        }
    }

    @Test func theCursorIsShownWhereAFieldHasFocusAndHiddenOtherwise() {
        let grid = CellGrid(rows: 2, columns: 4)
        var writer = TerminalWriter(usesColors: false, hasBrightColors: true, scalarWidth: Self.systemWidth)
        let shown = String(decoding: writer.frame(from: nil, to: grid, screen: TerminalSize(rows: 2, columns: 4), cursor: CursorPosition(row: 1, column: 2)), as: UTF8.self)
        #expect(shown.hasSuffix("\u{1B}[2;3H\u{1B}[?25h"))
        let hidden = String(decoding: writer.frame(from: grid, to: grid, screen: TerminalSize(rows: 2, columns: 4), cursor: nil), as: UTF8.self)
        #expect(hidden == "\u{1B}[?25l\u{1B}[0m")
    }

    @Test func aFrameBiggerThanTheScreenIsClipped() {
        var grid = CellGrid(rows: 2, columns: 6)
        grid.put("abcdef", row: 0, column: 0)
        grid.put("second", row: 1, column: 0)
        var writer = TerminalWriter(usesColors: false, hasBrightColors: true, scalarWidth: Self.systemWidth)
        let written = String(decoding: writer.frame(from: nil, to: grid, screen: TerminalSize(rows: 1, columns: 3), cursor: nil), as: UTF8.self)
        #expect(written == "\u{1B}[1;1H\u{1B}[0mabc\u{1B}[0m")
    }

    /// What the terminal's C library calls unprintable is not sent as it is (printable ASCII
    /// never asks).
    @Test func unprintableScalarsBecomeTheReplacementCharacter() {
        var grid = CellGrid(rows: 1, columns: 2)
        grid.put("é", row: 0, column: 0)
        var writer = TerminalWriter(usesColors: false, hasBrightColors: true, scalarWidth: { _ in -1 })
        let written = String(decoding: writer.frame(from: nil, to: grid, screen: TerminalSize(rows: 1, columns: 2), cursor: nil), as: UTF8.self)
        #expect(written.contains("\u{FFFD}"))
    }

    /// The grid measures with TextWidth's table and the terminal with the C library: they must agree.
    @Test func textWidthAgreesWithTheSystemWcwidth() throws {
        try #require(setlocale(LC_CTYPE, "C.UTF-8") != nil)
        var disagreements: [String] = []
        for value in UInt32(0x20)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let system = Int(cncurses_wcwidth(wchar_t(bitPattern: value)))
            if system >= 0 && system != TextWidth.width(of: scalar) {
                disagreements.append(String(value, radix: 16))
            }
        }
        #expect(disagreements.isEmpty)
    }
}
