import IdeaBoxCore
@testable import IdeaBoxTUI
import IdeaBoxViewModels
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
}
