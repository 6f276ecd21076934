import Foundation
@testable import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaModel
import Testing

/// A selection of many rows (`v`) on screen, its delete question, and links in the rows,
/// in English and Traditional Chinese.
@Suite struct SelectionScreenTests {
    @Test(arguments: [Language.english, .traditionalChinese])
    func aSelectionMarksItsRowsAndTheHintsCountThem(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language)
        ScreenFixtures.press([.char("j"), .char("v"), .char("j"), .char("j")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "selection" : "chinese-selection")
        let top = app.listTop
        #expect(Layout.line(top, of: frame.grid).hasPrefix(" "), "the row above the selection is not in it")
        #expect(Layout.line(top + 1, of: frame.grid).hasPrefix("+"))
        #expect(Layout.line(top + 2, of: frame.grid).hasPrefix("+"))
        #expect(Layout.line(top + 3, of: frame.grid).hasPrefix(">"), "the cursor keeps its mark")
        #expect(frame.grid[top + 1, 6].style.bold && frame.grid[top + 1, 6].style.color == .highlight)
        #expect(Layout.line(frame.grid.rows - 2, of: frame.grid).contains(language == .english ? "3 selected" : "已選取 3 筆"))
    }

    @Test(arguments: [Language.english, .traditionalChinese])
    func aSelectionsDeleteAsksOnceNamingTheCount(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language)
        ScreenFixtures.press([.char("v"), .char("j"), .char("j"), .char("d")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "selection-delete-confirmation" : "chinese-selection-delete-confirmation")
        #expect(Layout.boxes(in: frame.grid).count == 1)
        #expect(frame.grid.renderText().contains(app.text.deleteQuestion(count: 3)))
    }

    @Test func aLinkInARowsDescriptionCarriesItsWholeAddress() throws {
        let idea = ScreenFixtures.idea(1, "Read later", "notes at https://example.com/a/very/long/path/that/does/not/fit/in/the/row/at/all ok", age: 60)
        let app = try ScreenFixtures.app([idea])
        let frame = AppScreen.render(app)
        let row = app.listTop
        let columns = (0..<frame.grid.columns).filter { frame.grid[row, $0].style.link != nil }
        #expect(!columns.isEmpty)
        #expect(columns.allSatisfy {
            frame.grid[row, $0].style.link == "https://example.com/a/very/long/path/that/does/not/fit/in/the/row/at/all"
        })
        let shown = columns.map { frame.grid[row, $0].text }.joined()
        #expect(shown.hasPrefix("https://example.com/"))
    }
}
