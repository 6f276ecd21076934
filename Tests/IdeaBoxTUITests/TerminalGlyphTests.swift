import CNcurses
import Glibc
import IdeaBoxCore
@testable import IdeaBoxTUI
import Testing

@Suite struct TerminalGlyphTests {
    private func layout(_ cluster: String, width: Int, joining: Bool = true) -> [String] {
        TerminalGlyph.layout(
            cluster,
            cellWidth: width,
            joinsAfterZeroWidthJoiner: joining,
            scalarWidth: { TextWidth.width(of: $0) }
        )
        .map { String(String.UnicodeScalarView($0.scalars)) }
    }

    @Test func plainClustersAreOneGlyph() {
        #expect(layout("a", width: 1) == ["a"])
        #expect(layout("中", width: 2) == ["中"])
        #expect(layout("e\u{301}", width: 1) == ["e\u{301}"])
        #expect(layout("😀", width: 2) == ["😀"])
    }

    @Test func skinToneModifiersAreDroppedBecauseTerminalsDrawThemApart() {
        #expect(layout("👍🏽", width: 2) == ["👍"])
        #expect(layout("🧑🏽‍💻", width: 2) == ["🧑"])
    }

    @Test func zwjSequencesJoinOnlyWhereTheTerminalJoinsThem() {
        #expect(layout("👩‍💻", width: 2) == ["👩‍💻"])
        #expect(layout("👩‍💻", width: 2, joining: false) == ["👩"])
    }

    @Test func zwjSequencesTooLongForOneCellKeepTheirFirstEmoji() {
        #expect(layout("👨‍👩‍👧‍👦", width: 2) == ["👨"])
    }

    @Test func flagsAreTwoOneCellLetters() {
        #expect(layout("🇺🇸", width: 2) == ["🇺", "🇸"])
    }

    @Test func narrowEmojiPresentationIsPaddedToTwoCells() {
        #expect(layout("❤️", width: 2) == ["❤️", " "])
        #expect(layout("🏳️‍🌈", width: 2) == ["🏳️‍🌈", " "])
        #expect(layout("🏳️‍🌈", width: 2, joining: false) == ["🏳️", " "])
    }

    @Test func unprintableScalarsBecomeTheReplacementCharacter() {
        let glyphs = TerminalGlyph.layout("x", cellWidth: 1, joinsAfterZeroWidthJoiner: true, scalarWidth: { _ in -1 })
        #expect(glyphs == [TerminalGlyph(scalars: ["\u{FFFD}"], width: 1)])
    }

    @Test func glyphsTooWideForTheCellBecomeSpaces() {
        #expect(layout("中", width: 1) == [" "])
    }

    /// The grid measures with TextWidth's table and ncurses with the C library: they must agree.
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
