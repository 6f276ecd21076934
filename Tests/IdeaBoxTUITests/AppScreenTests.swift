import Foundation
@testable import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import Testing

/// Whole screens of the app, driven by keys as a user would, compared with `Screens/`.
@Suite struct AppScreenTests {
    @Test func allIdeas() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.down, .down], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "all-ideas")
        checkListRows(of: app, in: frame)
        #expect(frame.cursor == nil)
    }

    @Test func staleIdeasAreMarkedAfter30DaysUnconfirmed() throws {
        // Unsent for 30 seconds, 12 days, 40 days and 90 days.
        let ideas = [0, 5, 6, 7].map { ScreenFixtures.englishIdeas[$0] }
        let app = try ScreenFixtures.app(ideas, hasSynced: true)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "stale-ideas")
        checkListRows(of: app, in: frame)
        #expect(frame.grid.renderText().components(separatedBy: "stale · ").count == 3)
        // A device that never synced waits for nothing: its ideas are local, not stale.
        let local = try ScreenFixtures.app(ideas)
        #expect(!AppScreen.render(local).grid.renderText().contains("stale"))
    }

    @Test func theSyncLogsQuestionsAndHintsFitIts76ColumnsAt80() throws {
        for language in [Language.english, .traditionalChinese] {
            let text = UIText(language: language)
            for line in [text.overwriteQuestion, text.libraryOverwriteQuestion, text.syncLogHints] {
                #expect(TextWidth.width(of: line) <= 76, "\(line)")
            }
        }
    }

    @Test func completed() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("2")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "completed")
        checkListRows(of: app, in: frame)
        #expect(app.currentList.visibleRows.allSatisfy { $0.idea.isCompleted })
    }

    @Test func searchResults() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("/")], on: app)
        var counts: [Int] = []
        for character in "sync" {
            app.handle(.char(character))
            counts.append(app.searchResults.totalCount)
        }
        // "s" is in nearly every idea; each letter narrows the results.
        #expect(counts == [8, 2, 2, 2])
        let typing = AppScreen.render(app)
        #expect(typing.cursor == CursorPosition(row: 2, column: 9 + 4))
        try Screens.expect(typing, matches: "search-results")
        checkListRows(of: app, in: typing)
        #expect(!Layout.line(2, of: typing.grid).hasPrefix(">"))
    }

    @Test func searchResultsSelected() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("/")], on: app)
        ScreenFixtures.type("SYNC", on: app)
        ScreenFixtures.press([.down, .down], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "search-results-selected")
        checkListRows(of: app, in: frame)
        #expect(frame.cursor == nil)
    }

    @Test func searchWithoutMatches() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("3")], on: app)
        ScreenFixtures.type("zebra", on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "search-no-matches")
    }

    @Test func deleteConfirmation() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("j"), .char("j"), .char("d")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "delete-confirmation")
        #expect(Layout.boxes(in: frame.grid).count == 1)
        #expect(frame.cursor == nil)
        // The long title is cut, the question's "y/n" is not.
        #expect(Layout.line(11, of: frame.grid).contains("…”? y/n │"))
    }

    @Test func deletedWithUndoHint() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("j"), .char("d"), .char("y")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "deleted-undo-hint")
        checkListRows(of: app, in: frame)
    }

    @Test func help() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("?")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "help")
        #expect(Layout.boxes(in: frame.grid).count == 1)
    }

    @Test func tooSmall() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas, rows: 8, columns: 30)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "too-small")
        let text = frame.grid.renderText()
        #expect(text.contains("Terminal too small"))
        #expect(text.contains("30×8."), "the notice wraps rather than cutting off the size")
    }

    @Test func chineseAndEmoji() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese, rows: 40, columns: 120)
        ScreenFixtures.press([.char("j")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "chinese-and-emoji")
        checkListRows(of: app, in: frame)
        let tabBar = Layout.line(0, of: frame.grid)
        #expect(tabBar.contains("全部靈感 (8)") && tabBar.contains("已完成 (3)") && tabBar.contains("搜尋"))
    }

    @Test func chineseCompleted() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese, rows: 40, columns: 120)
        ScreenFixtures.press([.tab], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "chinese-completed")
        checkListRows(of: app, in: frame)
    }

    /// At 80 columns the long Chinese titles are cut, on odd widths too.
    @Test func chineseAt80Columns() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "chinese-80x24")
        checkListRows(of: app, in: frame)
    }

    @Test func searchOneChineseCharacter() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese)
        ScreenFixtures.press([.char("/"), .char("靈")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "search-chinese-1-char")
        checkListRows(of: app, in: frame)
        #expect(app.searchResults.totalCount == 2)
        #expect(Layout.line(3, of: frame.grid).contains("找到 2 筆"))
        // "搜尋：" is 6 cells from column 1, then a space; 靈 takes two more.
        #expect(frame.cursor == CursorPosition(row: 2, column: 1 + 6 + 1 + 2))
    }

    @Test func chineseDeleteConfirmation() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese)
        ScreenFixtures.press([.char("G"), .up, .up, .char("d")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "chinese-delete-confirmation")
        #expect(Layout.boxes(in: frame.grid).count == 1)
        #expect(Layout.line(11, of: frame.grid).contains("…」？y/n"))
    }

    @Test func chineseHelp() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese)
        ScreenFixtures.press([.char("?")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "chinese-help")
        #expect(Layout.boxes(in: frame.grid).count == 1)
    }

    /// What a new user sees on the first `swift run ideabox`: the samples, stamped now.
    @Test(arguments: Language.allCases)
    func firstLaunch(language: Language) throws {
        let app = try ScreenFixtures.firstLaunchApp(language: language)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "first-launch" : "chinese-first-launch")
        checkListRows(of: app, in: frame)
        #expect(app.counts.all == 7)
        #expect(app.allIdeas.visibleRows.allSatisfy { app.text.age(of: $0.idea.updatedAt, now: app.now) == app.text.age(of: app.now, now: app.now) })
    }

    @Test(arguments: Language.allCases)
    func undoAndRedoNameWhatTheyDid(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language)
        ScreenFixtures.press([.char("d"), .char("y"), .char("x"), .char("u"), .char("u")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "undid-delete" : "chinese-undid-delete")
        #expect(app.counts.all == 8)
    }

    /// A list longer than the screen says where the selection is; at 40 columns the hint
    /// line keeps help and quit.
    @Test(arguments: Language.allCases)
    func aLongListAt40x10(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language, rows: 10, columns: 40)
        ScreenFixtures.press([.char("j"), .char("j")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "list-40x10" : "chinese-list-40x10")
        checkListRows(of: app, in: frame)
        #expect(Layout.line(1, of: frame.grid).contains(" 3/8 "))
        let hints = Layout.line(8, of: frame.grid)
        #expect(hints.hasSuffix(language == .english ? "? help  q quit" : "? 說明  q 離開"), "\(hints)")
    }

    @Test(arguments: Language.allCases)
    func helpScrolledOnAShortScreen(language: Language) throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas, language: language, rows: 12, columns: 60)
        ScreenFixtures.press([.char("?"), .char("G")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "help-scrolled" : "chinese-help-scrolled")
        let text = frame.grid.renderText()
        #expect(text.contains(app.text.keyHelp.last!.action), "the last entry shows once scrolled to the end")
        #expect(!text.contains(app.text.keyHelp.first!.action))
    }

    /// The sync log names, for each conflict, the version that won and the one that lost,
    /// with their devices and times; on a short screen it scrolls to its end.
    @Test(arguments: Language.allCases)
    func syncLogWithConflicts(language: Language) throws {
        let app = try ScreenFixtures.appWithSyncLog(language: language)
        ScreenFixtures.press([.char("l")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "sync-log-conflicts" : "chinese-sync-log-conflicts")
        let text = frame.grid.renderText()
        #expect(text.contains(language == .english ? "kept: the edit on laptop" : "保留：在筆電上"), "\(text)")
        #expect(text.contains(language == .english ? "lost: the edit on this device" : "落敗：在這台裝置上"), "\(text)")
        let logLines = try #require(app.syncLog).lines(in: app.text).map(\.text)
        #expect(logLines.contains { $0.hasSuffix(language == .english ? "kept laptop's title (the later edit)" : "保留筆電的標題（較晚的編輯）") })
        #expect(!text.contains("7c1e9a40") && !text.contains("Remote") && !text.contains("TieBreaker"), "no id, no word of ours: \(text)")
        app.resize(rows: 12, columns: 100)
        ScreenFixtures.press([.char("G")], on: app)
        let scrolled = AppScreen.render(app)
        try Screens.expect(scrolled, matches: language == .english ? "sync-log-scrolled" : "chinese-sync-log-scrolled")
        #expect(scrolled.grid.renderText().contains(language == .english ? "lost: the edit on this device" : "落敗：在這台裝置上"), "scrolled to the end")
    }

    /// Offline, the status bar says so with the changes waiting, and `s` says why nothing
    /// was sent.
    @Test(arguments: Language.allCases)
    func offlineSyncKeySaysWhy(language: Language) async throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let database = try IdeaDatabase.inMemory(firstLaunch: .init(seedsSamples: false, language: language), ids: .counting())
        let repository = database.repository(clock: .fixed(ScreenFixtures.now), ids: .counting(from: 1000))
        _ = try repository.importIdeas(ideas)
        let (app, engine, scheduler) = try ScreenFixtures.syncingApp(repository: repository, language: language)
        ScreenFixtures.press([.char("o")], on: app)
        engine.start()
        await scheduler.runDue()
        app.tick()
        ScreenFixtures.press([.char("s")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "offline-sync-key" : "chinese-offline-sync-key")
        let status = Layout.line(23, of: frame.grid)
        #expect(status.contains(language == .english ? "Offline: 8 pending" : "離線：8 筆待同步"), "\(status)")
        engine.stop()
    }

    /// Synced with a long poll held, the status bar ends with how changes arrive: `live`;
    /// when the poll is lost, `polling`.
    @Test(arguments: Language.allCases)
    func liveAndPollingInTheStatusBar(language: Language) async throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let database = try IdeaDatabase.inMemory(firstLaunch: .init(seedsSamples: false, language: language), ids: .counting())
        let repository = database.repository(clock: .fixed(ScreenFixtures.now), ids: .counting(from: 1000))
        _ = try repository.importIdeas(ideas)
        let (app, engine, scheduler) = try ScreenFixtures.syncingApp(repository: repository, language: language)
        engine.deliveryChanged(.live)
        engine.start()
        await scheduler.runDue()
        app.tick()
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "synced-live" : "chinese-synced-live")
        #expect(Layout.line(23, of: frame.grid).hasSuffix(language == .english ? "· 0 pending · live" : "· 0 筆待同步 · 即時"))

        engine.deliveryChanged(.polling)
        app.tick()
        let polling = Layout.line(23, of: AppScreen.render(app).grid)
        #expect(polling.hasSuffix(language == .english ? "· polling" : "· 輪詢中"), "\(polling)")
        engine.stop()
    }

    /// Emoji clusters (skin tones, keycaps, flags, ZWJ sequences) in the list, the delete
    /// question and the status message keep their whole cluster in one cell.
    @Test func emojiClustersEverywhere() throws {
        let titles = ["Thumbs 👍🏽 wave 👋🏿", "Keycap 1️⃣ flag 🇹🇼 👍🏽", "Family 👨‍👩‍👧‍👦 coder 🧑🏽‍💻"]
        let ideas = titles.enumerated().map { ScreenFixtures.idea(30 + $0.offset, $0.element, "❤️ 👍🏽", age: Int64($0.offset + 1) * 60) }
        let app = try ScreenFixtures.app(ideas)
        ScreenFixtures.press([.char("d"), .char("y"), .char("d")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "emoji-clusters")
        func cells(_ row: Int) -> [String] { (0..<frame.grid.columns).map { frame.grid[row, $0].text } }
        #expect(["👍🏽", "1️⃣", "🇹🇼"].allSatisfy(cells(2).contains), "whole clusters in the list's cells")
        #expect(["👨‍👩‍👧‍👦", "🧑🏽‍💻", "❤️"].allSatisfy(cells(3).contains))
        #expect(cells(11).contains("👍🏽"), "and in the delete question's")
        #expect(cells(23).contains("👋🏿"), "and in the status message's")
    }

    @Test(.disabled(if: Screens.isUpdating, "the captures are being rewritten"))
    func readmeShowsTheFirstLaunchCapture() throws {
        let readme = Screens.directory.deletingLastPathComponent().appendingPathComponent("README.md")
        let capture = Screens.directory.appendingPathComponent("first-launch.txt")
        let readmeText = try String(contentsOf: readme, encoding: .utf8)
        let captureText = try String(contentsOf: capture, encoding: .utf8)
        #expect(readmeText.contains("```\n" + captureText + "```\n"), "README.md shows Screens/first-launch.txt as it is")
    }

    @Test func everyScreenKeepsItsLayoutAtOddSizes() throws {
        for columns in [40, 41, 57, 79, 81, 99, 121] {
            for ideas in [ScreenFixtures.englishIdeas, ScreenFixtures.chineseIdeas] {
                let app = try ScreenFixtures.app(ideas, language: .traditionalChinese, rows: 13, columns: columns)
                let list = AppScreen.render(app)
                Layout.check(list.grid)
                checkListRows(of: app, in: list)
                for keys in [[Key.char("d")], [.char("?")], [.char("e")], [.char("/"), .char("靈")]] {
                    let app = try ScreenFixtures.app(ideas, language: .traditionalChinese, rows: 13, columns: columns)
                    ScreenFixtures.press(keys, on: app)
                    Layout.check(AppScreen.render(app).grid)
                }
            }
        }
    }

    /// Each list row ends with its idea's age in the same last column, and only the
    /// selected row is marked with ">".
    private func checkListRows(of app: AppModel, in frame: Frame, sourceLocation: SourceLocation = #_sourceLocation) {
        let list = app.currentList
        // The list's part of the row: left of the preview pane, when it shows.
        let columns = app.listWidth
        let isListActive = !(app.tab == .search && app.search.isFocused)
        for (offset, row) in list.visibleRows.enumerated() {
            let whole = Layout.line(app.listTop + offset, of: frame.grid)
            var line = TextWidth.truncate(whole, toWidth: columns)
            while line.hasSuffix(" ") { line.removeLast() }
            let age = app.text.age(of: row.idea.updatedAt, now: app.now)
            #expect(line.hasSuffix(age), "row \(offset) ends with its age: \(line)", sourceLocation: sourceLocation)
            #expect(TextWidth.width(of: line) == columns - 1,
                    "row \(offset)'s age ends at column \(columns - 2): \(line)", sourceLocation: sourceLocation)
            let isSelected = row.index == list.selectedIndex && isListActive
            #expect(line.hasPrefix(">") == isSelected, "row \(offset) selection mark: \(line)",
                    sourceLocation: sourceLocation)
            #expect(line.dropFirst().hasPrefix(row.idea.isCompleted ? "[x]" : "[ ]"), sourceLocation: sourceLocation)
        }
    }

    /// `u` never writes over a newer edit from another device: it says so and changes
    /// nothing; an add is undone by a delete.
    @Test(arguments: Language.allCases)
    func undoMessages(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let (app, elsewhere) = try ScreenFixtures.appAndRepository(ideas, language: language, columns: 100)
        ScreenFixtures.press([.char("e"), .end], on: app)
        ScreenFixtures.type(" v1", on: app)
        ScreenFixtures.press([.ctrl("s")], on: app)
        var theirs = ideas[0]
        theirs.title = ideas[0].title + " v1 v2"
        try ScreenFixtures.changeElsewhere(ideas[0], fields: [.title], to: theirs, in: elsewhere)
        _ = app.tick()
        ScreenFixtures.press([.char("u")], on: app)
        try Screens.expect(AppScreen.render(app), matches: language == .english ? "undo-refused" : "chinese-undo-refused")
        #expect(try elsewhere.idea(id: ideas[0].id)?.title == theirs.title)

        ScreenFixtures.press([.char("n")], on: app)
        ScreenFixtures.type(language == .english ? "Added by mistake" : "不小心新增的", on: app)
        ScreenFixtures.press([.ctrl("s"), .char("u")], on: app)
        try Screens.expect(AppScreen.render(app), matches: language == .english ? "undid-add" : "chinese-undid-add")
        #expect(try elsewhere.count(.all) == ideas.count)
    }
}


/// The narrow screen: at 40 columns every tab stays on the bar and the help wraps.
@Suite struct NarrowScreenTests {
    @Test(arguments: Language.allCases)
    func theTabBarKeepsAllThreeTabsAt40Columns(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language, rows: 10, columns: 40)
        let bar = Layout.line(0, of: AppScreen.render(app).grid)
        for tab in AppModel.Tab.allCases {
            #expect(bar.contains("\(tab.rawValue + 1) \(app.text.shortTabLabel(tab))"), "\(bar)")
        }
        #expect(TextWidth.width(of: bar) <= 40)
        // A click on the third tab's label opens it.
        let search = try #require(app.tabBar.labels.last)
        app.handle(.mouse(MouseEvent(.press, row: 0, column: search.column + 1)))
        #expect(app.tab == .search)
    }

    @Test(arguments: Language.allCases)
    func theHelpWrapsItsDescriptionsAt40Columns(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language, rows: 30, columns: 40)
        app.handle(.char("?"))
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "help-40" : "chinese-help-40")
        let words = { (text: String) in text.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\n", with: "") }
        let help = try #require(app.help)
        let shown = words(help.lines.map(\.action).joined())
        for entry in app.text.keyHelp where !entry.action.isEmpty {
            #expect(shown.contains(words(entry.action)), "\(entry.action) is whole, wrapped")
        }
        #expect(words(help.footerLines.joined()) == words(help.footer), "the footer whole")
        #expect(help.lines.allSatisfy { TextWidth.width(of: $0.action) <= 40 - 4 - help.actionColumn })
    }

    @Test(arguments: Language.allCases)
    func theBarUnderTheTabsNamesAnOrderOtherThanNewestFirst(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let app = try ScreenFixtures.app(ideas, language: language)
        ScreenFixtures.press([.char("S")], on: app)
        let changed = AppScreen.render(app)
        try Screens.expect(changed, matches: language == .english ? "sorted-by-change" : "chinese-sorted-by-change")
        #expect(Layout.line(1, of: changed.grid).contains(app.text.sortLabel(IdeaOrder(.updated))))
        ScreenFixtures.press([.char("S")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "sorted-by-title" : "chinese-sorted-by-title")
        #expect(Layout.line(1, of: frame.grid).contains(app.text.sortLabel(IdeaOrder(.title))))
    }
}
