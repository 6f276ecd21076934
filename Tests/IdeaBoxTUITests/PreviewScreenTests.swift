import Foundation
@testable import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaModel
import Testing

/// The preview (`PreviewScreen`): a pane beside the list at 120 columns and more, full
/// screen below; `p` hides the pane or opens the full screen, `Esc` goes back.
@Suite struct PreviewScreenTests {
    private static func ideas(_ language: Language) -> [Idea] {
        language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
    }

    @Test(arguments: Language.allCases)
    func thePaneShowsTheSelectedIdeaWholeAt120Columns(language: Language) throws {
        let app = try ScreenFixtures.app(Self.ideas(language), language: language, rows: 24, columns: 120)
        // The fourth idea: a description of two lines, done in English, a wide title in Chinese.
        ScreenFixtures.press([.down, .down, .down], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "preview-pane-120" : "chinese-preview-pane-120")
        let idea = try #require(app.allIdeas.selectedIdea)
        let text = frame.grid.renderText()
        for line in idea.description.split(separator: "\n") {
            #expect(text.contains(line), "the description whole: \(line)")
        }
        let row = Layout.line(app.listTop + 3, of: frame.grid)
        #expect(row.hasPrefix(">") && row.contains("│"), "the row keeps its one line, left of the pane")
    }

    @Test func pHidesThePaneAndShowsItAgain() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas, rows: 24, columns: 120)
        #expect(app.showsPreviewPane && app.listWidth == 72)
        app.handle(.char("p"))
        #expect(!app.showsPreviewPane && app.listWidth == 120)
        #expect(!AppScreen.render(app).grid.renderText().contains("│"))
        app.handle(.char("p"))
        #expect(app.showsPreviewPane)
    }

    @Test(arguments: Language.allCases)
    func belowIt120ColumnsPOpensTheIdeaFullScreenAndEscGoesBack(language: Language) throws {
        let app = try ScreenFixtures.app(Self.ideas(language), language: language)
        #expect(!app.showsPreviewPane)
        ScreenFixtures.press([.down, .down, .down, .char("p")], on: app)
        #expect(app.isShowingFullPreview)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "preview-full-80" : "chinese-preview-full-80")
        #expect(Layout.boxes(in: frame.grid).count == 1)
        app.handle(.escape)
        #expect(!app.isShowingFullPreview && app.allIdeas.selectedIndex == 3)
    }

    @Test func aLongDescriptionWrapsByWidthAndScrollsFullScreen() throws {
        let long = (1...40).map { "第 \($0) 行：寬字元算兩欄" }.joined(separator: "\n")
        let idea = ScreenFixtures.idea(1, "長描述", long, age: 60)
        let app = try ScreenFixtures.app([idea], language: .traditionalChinese)
        app.handle(.char("p"))
        let preview = try #require(app.preview(width: 20))
        #expect(preview.lines.allSatisfy { TextWidth.width(of: $0.text) <= 20 })
        app.handle(.char("G"))
        #expect(app.fullPreview?.scroll ?? 0 > 0)
        let text = AppScreen.render(app).grid.renderText()
        #expect(text.contains("裝置"), "scrolled to the end, the details show")
        #expect(!text.contains("第 1 行"))
    }
}
