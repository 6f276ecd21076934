@testable import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import Testing

/// The history overlay (`h`): every version of an idea this device knows, a value another
/// device's edit replaced among them, and `r` making it current again.
@Suite struct HistoryScreenTests {
    @Test(arguments: Language.allCases)
    func historyShowsAReplacedValueAndRestoresIt(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let (app, elsewhere) = try ScreenFixtures.appAndRepository(ideas, language: language, columns: 100)
        let mine = language == .english ? " (my words)" : "（我的文字）"
        ScreenFixtures.press([.char("e"), .end], on: app)
        ScreenFixtures.type(mine, on: app)
        ScreenFixtures.press([.ctrl("s")], on: app)
        var theirs = ideas[0]
        theirs.title = language == .english ? "Offline-first sync, the laptop's words" : "學習 SwiftData（筆電的文字）"
        try ScreenFixtures.changeElsewhere(ideas[0], fields: [.title], to: theirs, in: elsewhere)
        _ = app.tick()

        ScreenFixtures.press([.char("h")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "history" : "chinese-history")
        let text = frame.grid.renderText()
        #expect(text.contains(ideas[0].title + mine), "my replaced title is kept: \(text)")
        // Each version says the device it was written on, by name, never by id.
        #expect(text.contains(language == .english ? "on laptop" : "在 laptop 上"), "\(text)")
        #expect(text.contains(language == .english ? "on this device  lost a merge (title)" : "在這台裝置上  合併時落敗（標題）"), "\(text)")
        #expect(!text.contains(ScreenFixtures.laptop.prefix(8)), "\(text)")

        ScreenFixtures.press([.char("j"), .char("r")], on: app)
        #expect(try elsewhere.idea(id: ideas[0].id)?.title == ideas[0].title + mine)
        let restored = AppScreen.render(app)
        try Screens.expect(restored, matches: language == .english ? "history-restored" : "chinese-history-restored")
        ScreenFixtures.press([.escape, .char("u")], on: app)
        #expect(try elsewhere.idea(id: ideas[0].id)?.title == theirs.title, "u takes the restore back")
    }

    @Test func theSyncLogsConflictOpensItsIdeasHistory() throws {
        let app = try ScreenFixtures.appWithSyncLog(language: .english)
        ScreenFixtures.press([.char("l"), .char("G"), .char("h")], on: app)
        let view = try #require(app.historyView)
        #expect(view.title.contains("Keyboard shortcuts cheat sheet"))
        #expect(view.versions.count >= 2)
        ScreenFixtures.press([.escape], on: app)
        #expect(app.historyView == nil && app.syncLog != nil)
    }
}
