@testable import IdeaBoxTUI
import IdeaBoxViewModels
import Testing

/// OSC 8 hyperlinks and OSC 52 copies in the bytes sent to the terminal, and the `TERM`
/// rule that decides whether they are sent.
@Suite struct TerminalWriterLinkTests {
    /// The bytes of a whole first frame (or of the change from `previous`) of one row.
    private func frame(links: Bool, columns: Int, from previous: CellGrid? = nil, _ draw: (inout CellGrid) -> Void) -> String {
        var grid = CellGrid(rows: 1, columns: columns)
        draw(&grid)
        var writer = TerminalWriter(usesColors: false, hasBrightColors: true, usesHyperlinks: links, scalarWidth: { _ in 1 })
        let written = writer.frame(from: previous, to: grid, screen: TerminalSize(rows: 1, columns: columns), cursor: nil)
        return String(decoding: written, as: UTF8.self)
    }

    @Test func aLinkedRunIsWrappedInOSC8AndClosedBeforeTheFrameEnds() {
        let written = frame(links: true, columns: 13) { grid in
            grid.put("see x.org now", row: 0, column: 0)
            grid.restyle(row: 0, columns: 4..<9) { $0.link = "https://x.org/a" }
        }
        #expect(written == "\u{1B}[1;1H\u{1B}[0msee \u{1B}]8;;https://x.org/a\u{1B}\\x.org\u{1B}]8;;\u{1B}\\ now\u{1B}[0m")
    }

    @Test func withoutHyperlinksTheSameCellsAreSentPlain() {
        let written = frame(links: false, columns: 9) { grid in
            grid.put("see x.org", row: 0, column: 0)
            grid.restyle(row: 0, columns: 4..<9) { $0.link = "https://x.org/a" }
        }
        #expect(written == "\u{1B}[1;1H\u{1B}[0msee x.org\u{1B}[0m")
        #expect(!written.contains("]8;"))
    }

    @Test func aLinkThatChangesAloneIsRewritten() {
        var before = CellGrid(rows: 1, columns: 10)
        before.put("x.org", row: 0, column: 0)
        let written = frame(links: true, columns: 10, from: before) { grid in
            grid.put("x.org", row: 0, column: 0)
            grid.restyle(row: 0, columns: 0..<5) { $0.link = "https://x.org" }
        }
        #expect(written.contains("\u{1B}]8;;https://x.org\u{1B}\\x.org\u{1B}]8;;\u{1B}\\"))
    }

    @Test func aLinkWithSpacesOrNonASCIIIsPercentEncoded() {
        #expect(TerminalWriter.linkSafe("https://例.tw/a b\u{7}") == "https://%E4%BE%8B.tw/a%20b%07")
    }

    @Test func termDecidesClipboardAndLinks() {
        for term in ["xterm-256color", "tmux-256color", "screen", "alacritty", "xterm-kitty"] {
            #expect(TerminalFeatures(term: term) == TerminalFeatures(term: "xterm"), "\(term)")
            #expect(TerminalFeatures(term: term).clipboard && TerminalFeatures(term: term).hyperlinks)
        }
        for term in ["linux", "dumb", "vt100", "vt220", ""] {
            #expect(!TerminalFeatures(term: term).clipboard && !TerminalFeatures(term: term).hyperlinks, "\(term)")
        }
    }

    @Test func theCopyIsOSC52WithBase64AndBEL() {
        #expect(String(decoding: TerminalFeatures.clipboardSequence("Plan\n\n中"), as: UTF8.self) == "\u{1B}]52;c;UGxhbgoK5Lit\u{07}")
    }

    @Test func aLightPaletteAndEightColorsFallBack() {
        #expect(TerminalPalette.light.foreground(.accent, hasBrightColors: true) == "34")
        #expect(TerminalPalette.standard.foreground(.muted, hasBrightColors: true) == "90")
        #expect(TerminalPalette.standard.foreground(.muted, hasBrightColors: false) == "37")
        #expect(TerminalPalette(colors: [.error: .brightRed]).foreground(.error, hasBrightColors: false) == "31")
        #expect(TerminalPalette.standard.foreground(.default, hasBrightColors: true) == nil)
    }
}
