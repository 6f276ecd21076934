import Foundation
@testable import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaModel
import Testing

/// The help overlay: every action of every context with the keys bound to it, scrolled when
/// it does not fit, its footer naming the keys that scroll and close it.
@Suite struct HelpScreenTests {
    /// Every row the help shows, read page by page with PgDn from the top to its end.
    private func everyRowShown(_ app: AppModel) -> String {
        var shown = AppScreen.render(app).grid.renderText()
        var last: Int? = -1
        while app.help?.scroll != last {
            last = app.help?.scroll
            app.handle(.pageDown)
            shown += AppScreen.render(app).grid.renderText()
        }
        return shown
    }

    /// Pages through the help with PgDn and expects each of its rows on some page, and each
    /// entry of `keyHelp` whole in its rows.
    private func expectEveryRowShown(_ app: AppModel, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let help = try #require(app.help, sourceLocation: sourceLocation)
        let shown = everyRowShown(app)
        for line in help.lines {
            // An empty part (a heading's action, a wrapped row's keys) is in every text.
            let keysShown = line.keys.isEmpty || shown.contains(line.keys)
            let actionShown = line.action.isEmpty || shown.contains(line.action)
            #expect(keysShown && actionShown, "\(line)", sourceLocation: sourceLocation)
        }
        let rows = Self.words(help.lines.map { $0.keys + $0.action }.joined())
        for entry in app.text.keyHelp where !(entry.keys + entry.action).isEmpty {
            #expect(rows.contains(Self.words(entry.keys + entry.action)), "\(entry)", sourceLocation: sourceLocation)
        }
    }

    private static func words(_ text: String) -> String {
        text.filter { !$0.isWhitespace && $0 != "│" }
    }

    @Test(arguments: Language.allCases)
    func at80x24EveryEntryShowsOnceScrolledAndTheFooterNamesTheScrollKeys(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language)
        app.handle(.char("?"))
        let top = AppScreen.render(app)
        let help = try #require(app.help)
        #expect(help.lines.count > help.visibleRows, "the whole help is longer than 24 rows")
        #expect(help.footer == (language == .english ? "↑ ↓ PgUp PgDn Home End k j g G scroll · any other key closes"
                                                        : "↑ ↓ PgUp PgDn Home End k j g G 捲動 · 其他任何鍵關閉"))
        #expect(help.footerLines.allSatisfy { top.grid.renderText().contains($0) })
        try expectEveryRowShown(app)
        let end = AppScreen.render(app)
        try Screens.expect(end, matches: language == .english ? "help-80x24-end" : "chinese-help-80x24-end")
        #expect(Layout.boxes(in: end.grid).count == 1)
        // k and ↑ scroll back; Home goes to the top; any other key closes.
        app.handle(.char("k"))
        app.handle(.up)
        #expect(app.help?.scroll == help.lines.count - help.visibleRows - 2)
        app.handle(.home)
        #expect(app.help?.scroll == 0)
        app.handle(.char("z"))
        #expect(!app.isShowingHelp)
    }

    @Test(arguments: Language.allCases)
    func at40ColumnsAndTwentyFourRowsItWrapsAndScrolls(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language, rows: 24, columns: 40)
        app.handle(.char("?"))
        try Screens.expect(AppScreen.render(app), matches: language == .english ? "help-40x24" : "chinese-help-40x24")
        let help = try #require(app.help)
        #expect(help.lines.allSatisfy { TextWidth.width(of: $0.action) <= 40 - 4 - help.actionColumn })
        try expectEveryRowShown(app)
        #expect(Self.words(help.footerLines.joined()) == Self.words(help.footer), "the footer whole")
    }

    /// A config file that moves keys: help names the keys bound, in every context.
    @Test(arguments: Language.allCases)
    func afterARemapHelpNamesTheKeysBound(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language, rows: 60, columns: 80)
        app.keys = try AppKeys(
            list: KeyBindings(replacing: [
                .toggleDone: [[.char("t")]], .undo: [[.char("z")]], .down: [[.down], [.char("n")]], .new: [[.char("a")]],
                .help: [[.f(1)]], .network: [],
            ]),
            form: FormKeys(replacing: [.save: [[.ctrl("o")], [.f(2)]], .openInEditor: [[.f(4)]]]),
            search: SearchKeys(replacing: [.leave: [[.ctrl("g")]]]))
        app.handle(.f(1))
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "help-remapped" : "chinese-help-remapped")
        let help = try #require(app.help)
        #expect(help.visibleRows == help.lines.count, "all of it shows on 60 rows")
        let text = frame.grid.renderText()
        #expect(text.contains(language == .english ? "Any key closes this help" : "按任何鍵關閉說明"))
        #expect(!text.contains("Ctrl-S") && !text.contains("Ctrl-X Ctrl-E"))
        #expect(text.contains("Ctrl-O  F2"))
        #expect(text.contains(language == .english ? "(none)" : "（無）"))
        // The hint line under the list names them too.
        app.handle(.escape)
        let hints = Layout.line(app.layout.hintsRow, of: AppScreen.render(app).grid)
        #expect(hints.contains(language == .english ? "t done" : "t 完成"), "\(hints)")
        #expect(hints.hasSuffix(language == .english ? "F1 help  q quit" : "F1 說明  q 離開"), "\(hints)")
    }
}
