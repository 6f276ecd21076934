@testable import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// The edit form, driven by keys as a user would, compared with `Screens/`.
@Suite struct FormScreenTests {
    @Test func editFormValidationError() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("j"), .char("e"), .end, .ctrl("u"), .ctrl("s")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "edit-form-validation-error")
        let form = try #require(app.form)
        #expect(form.visibleError == .emptyTitle)
        #expect(frame.grid.renderText().contains("! The title can't be empty."))
        #expect(frame.cursor == CursorPosition(row: 4, column: 2))
        #expect(Layout.boxes(in: frame.grid).count == 1)
    }

    @Test func titleTooLong() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("n"), .paste(String(repeating: "Long idea ", count: 25) + "Long idea!")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "new-form-title-too-long")
        #expect(frame.grid.renderText().contains("260/256"))
        #expect(frame.grid.renderText().contains("! The title is 260 characters long; the limit is 256."))
        // The title scrolls sideways so the cursor, at its end, stays inside the box.
        let cursor = try #require(frame.cursor)
        #expect(cursor.row == 4 && cursor.column < 2 + AppModel.formTextWidth(columns: 80))
    }

    @Test func newIdeaFormWithChineseText() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese)
        ScreenFixtures.press([.char("n")], on: app)
        ScreenFixtures.type("新的靈感 🌱 給 👩‍💻", on: app)
        ScreenFixtures.press([.enter], on: app)
        ScreenFixtures.type("第一行：記下想法 👍🏽", on: app)
        ScreenFixtures.press([.enter], on: app)
        ScreenFixtures.type("第二行是一段比較長的說明，會在表單的寬度換行，看看寬字元換行時是否對齊邊框，以及游標是否停在正確的位置。", on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "new-idea-form")
        let form = try #require(app.form)
        #expect(form.title.text == "新的靈感 🌱 給 👩‍💻")
        #expect(form.focus == .description)
        #expect(Layout.boxes(in: frame.grid).count == 1)
        #expect(frame.grid.renderText().contains("10/256"))
    }

    @Test func newIdeaFormAtChineseWidth() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese, rows: 40, columns: 120)
        ScreenFixtures.press([.char("n")], on: app)
        ScreenFixtures.type("新的靈感", on: app)
        ScreenFixtures.press([.tab, .tab], on: app)
        ScreenFixtures.press([.char(" ")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "new-idea-form-120x40")
        #expect(app.form?.isCompleted == true)
        #expect(frame.cursor == nil)
    }

    @Test func discardQuestion() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("e")], on: app)
        ScreenFixtures.type(" v2", on: app)
        ScreenFixtures.press([.escape], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "edit-form-discard-question")
        #expect(app.form?.isConfirmingDiscard == true)
        #expect(frame.cursor == nil)
    }

    @Test func savedIdeaShowsAtTheTop() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas)
        ScreenFixtures.press([.char("n")], on: app)
        ScreenFixtures.type("Try the terminal app", on: app)
        ScreenFixtures.press([.ctrl("s")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "new-idea-saved")
        #expect(app.form == nil)
        #expect(Layout.line(2, of: frame.grid).hasPrefix(">[ ] Try the terminal app"))
        #expect(Layout.line(23, of: frame.grid).contains("Added “Try the terminal app”"))
    }

    /// On short screens every label, field, counter and edge keeps a row of its own, in
    /// Tab order from the top, and the description gives up its lines first.
    @Test(arguments: [(40, 10), (60, 10), (80, 11), (80, 12)])
    func theFormOnShortScreens(columns: Int, rows: Int) throws {
        let app = try ScreenFixtures.app(ScreenFixtures.englishIdeas, rows: rows, columns: columns)
        ScreenFixtures.press([.char("j"), .char("j"), .char("j"), .char("e"), .tab], on: app)
        ScreenFixtures.press([.ctrl("e"), .paste(String(repeating: "x", count: 260))], on: app)
        ScreenFixtures.press([.backTab, .end], on: app)
        ScreenFixtures.type(String(repeating: "!", count: 250), on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "form-\(columns)x\(rows)")
        Layout.check(frame.grid)
        #expect(Layout.boxes(in: frame.grid).count == 1)
        let lines = (0..<rows).map { Layout.line($0, of: frame.grid) }
        func row(_ text: String) -> Int? { lines.firstIndex { $0.contains(text) } }
        let title = try #require(row("Title"))
        let description = try #require(row("Description"))
        let completed = try #require(row("[x] Completed"))
        let error = try #require(row("! The title is"))
        #expect(title < description && description < completed && completed < error, "\(frame.grid.renderText())")
        #expect(description - title >= 2, "the title's text has a row of its own")
        #expect(completed - description >= 2, "the description has at least one line")
        #expect(lines[title].contains("/256") && lines[description].contains("/4096"))
        let cursor = try #require(frame.cursor)
        #expect(cursor.row == title + 1)
        #expect(!lines[error + 1].contains("!"), "the error stays on its own row")
    }

    @Test(arguments: Language.allCases)
    func anEditOfAnIdeaDeletedElsewhereOffersToSaveItAsNew(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let (app, elsewhere) = try ScreenFixtures.appAndRepository(ideas, language: language)
        let idea = try #require(app.currentList.selectedIdea)
        ScreenFixtures.press([.char("e"), .end], on: app)
        ScreenFixtures.type(" 👍🏽", on: app)
        // The laptop deletes it, and its record says the laptop's name.
        let order = SyncOrder(timestamp: ScreenFixtures.now.adding(milliseconds: 5_000), deviceId: ScreenFixtures.laptop)
        _ = try elsewhere.applyRemoteChanges(
            [.deleted(ideaId: idea.id, order: order)],
            deviceNames: [DeviceNaming(deviceId: ScreenFixtures.laptop, name: "laptop", namedAt: order.timestamp)],
            changeToken: .keep, syncedAt: ScreenFixtures.now, rule: ConflictRule.decide)
        ScreenFixtures.press([.ctrl("s")], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: language == .english ? "form-deleted-elsewhere" : "chinese-form-deleted-elsewhere")
        #expect(app.form?.isOfferingToSaveAsNew == true)
        #expect(frame.grid.renderText().contains(language == .english ? "Deleted on laptop." : "這筆靈感已在 laptop 上刪除"))
        #expect(frame.cursor == nil)
    }

    @Test func theChineseFormAt40x10() throws {
        let app = try ScreenFixtures.app(ScreenFixtures.chineseIdeas, language: .traditionalChinese, rows: 10, columns: 40)
        ScreenFixtures.press([.char("e"), .tab], on: app)
        let frame = AppScreen.render(app)
        try Screens.expect(frame, matches: "chinese-form-40x10")
        Layout.check(frame.grid)
        #expect(frame.cursor?.row == 4, "in the description's one line")
    }

    /// Another device changes the idea in an open form: the form says which fields, and
    /// `Ctrl-S` asks about the field both changed.
    @Test(arguments: Language.allCases)
    func theFormNoticesAnotherDevicesChangeAndAsks(language: Language) throws {
        let ideas = language == .english ? ScreenFixtures.englishIdeas : ScreenFixtures.chineseIdeas
        let (app, elsewhere) = try ScreenFixtures.appAndRepository(ideas, language: language, columns: 100)
        ScreenFixtures.press([.char("e"), .end], on: app)
        ScreenFixtures.type(language == .english ? " here" : "（這裡）", on: app)
        var theirs = ideas[0]
        theirs.title = language == .english ? "Offline-first sync, edited on the laptop" : "學習 SwiftData（筆電）"
        theirs.description = language == .english ? "The laptop's notes." : "筆電上的筆記。"
        try ScreenFixtures.changeElsewhere(ideas[0], fields: [.title, .description], to: theirs, in: elsewhere)
        _ = app.tick()
        let notice = AppScreen.render(app)
        try Screens.expect(notice, matches: language == .english ? "form-changed-elsewhere" : "chinese-form-changed-elsewhere")
        #expect(app.form?.changedElsewhere == [.title, .description])
        #expect(notice.grid.renderText().contains(language == .english ? "Changed on laptop: title" : "在 laptop 上已修改：標題"))

        ScreenFixtures.press([.ctrl("s")], on: app)
        let question = AppScreen.render(app)
        try Screens.expect(question, matches: language == .english ? "form-mine-or-theirs" : "chinese-form-mine-or-theirs")
        #expect(app.form?.changedOnBothSides == [.title])

        // Theirs: their title and description stay; the typed title goes to the history.
        ScreenFixtures.press([.char("t")], on: app)
        #expect(app.form == nil)
        let saved = try #require(try elsewhere.idea(id: ideas[0].id))
        #expect(saved.title == theirs.title && saved.description == theirs.description)
        let kept = try elsewhere.history(of: ideas[0].id).map(\.title)
        #expect(kept.contains(ideas[0].title + (language == .english ? " here" : "（這裡）")))
    }
}
