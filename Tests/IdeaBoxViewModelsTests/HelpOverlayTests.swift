import IdeaBoxViewModels
import IdeaModel
import Testing

/// `HelpOverlay`: the help's rows, box and footer for a screen size, and its scrolling.
@Suite struct HelpOverlayTests {
    @Test func onATallScreenEverythingShowsAndTheFooterOnlySaysAnyKeyCloses() {
        let help = HelpOverlay(text: UIText(language: .english), rows: 80, columns: 100)
        #expect(help.visibleRows == help.lines.count)
        #expect(help.footer == "Any key closes this help")
        #expect(help.boxHeight == help.lines.count + 3 + help.footerLines.count)
        #expect(help.boxWidth <= 98)
    }

    @Test func onAShortScreenItScrollsAndItsFooterNamesTheScrollKeys() {
        var help = HelpOverlay(text: UIText(language: .english), rows: 24, columns: 80)
        #expect(help.boxHeight == 24)
        #expect(help.visibleRows < help.lines.count)
        #expect(help.footer == "↑ ↓ PgUp PgDn Home End k j g G scroll · any other key closes")
        #expect(help.scroll(by: .down) && help.scroll == 1)
        #expect(help.scroll(by: .end) && help.scroll == help.lines.count - help.visibleRows)
        #expect(help.scroll(by: .pageDown) && help.scroll == help.lines.count - help.visibleRows, "never past the end")
        #expect(help.scroll(by: .char("g")) && help.scroll == 0)
        let scrolled = help.scroll(by: .char("x"))
        #expect(!scrolled, "any other key closes it")
    }

    @Test(arguments: Language.allCases)
    func onANarrowScreenDescriptionsWrapToTheBox(language: Language) {
        let help = HelpOverlay(text: UIText(language: language), rows: 24, columns: 40)
        #expect(help.boxWidth == 38)
        #expect(help.lines.allSatisfy { TextWidth.width(of: $0.action) <= 38 - 4 - help.actionColumn })
        #expect(help.footerLines.allSatisfy { TextWidth.width(of: $0) <= 38 - 4 })
    }

    @Test func onAWideScreenDescriptionsGoBesideTheWidestKeys() {
        let text = UIText(language: .english)
        let help = HelpOverlay(text: text, rows: 80, columns: 200)
        let keysWidth = text.keyHelp.map { TextWidth.width(of: $0.keys) }.max() ?? 0
        #expect(help.actionColumn == keysWidth + 2)
        #expect(help.lines.count == text.keyHelp.count, "nothing wraps")
    }
}
