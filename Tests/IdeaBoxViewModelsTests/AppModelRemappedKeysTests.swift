import IdeaBoxViewModels
import IdeaModel
import Testing

/// Keys bound by a config file: the form's and the search field's act as bound, and every
/// text that names a key (hints, help, messages) names the key bound, not the default.
@Suite struct AppModelRemappedKeysTests {
    /// The lists' done, undo, redo and new on other keys; the form's save, cancel and editor
    /// on others; the search field left with Ctrl-G.
    static func remapped() throws -> AppKeys {
        try AppKeys(
            list: KeyBindings(replacing: [
                .toggleDone: [[.char("t")]], .undo: [[.char("z")]], .redo: [[.char("Z")]], .new: [[.char("a")]],
                .network: [[.char("O")]], .cycleOrder: [[.char("r")]], .history: [[.char("H")]],
            ]),
            form: FormKeys(replacing: [.save: [[.ctrl("o")]], .cancel: [[.ctrl("q")]], .openInEditor: [[.f(4)]]]),
            search: SearchKeys(replacing: [.leave: [[.ctrl("g")]], .results: [[.f(5)]]]))
    }

    @Test func theFormSavesAndCancelsWithItsBoundKeysOnly() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.keys = try Self.remapped()
        app.handle(.char("a"))
        app.type("Bound")
        app.handle(.ctrl("s"))
        #expect(app.form != nil, "Ctrl-S is no longer save")
        app.handle(.escape)
        #expect(app.form?.isConfirmingDiscard == false, "Esc is no longer cancel")
        app.handle(.ctrl("o"))
        #expect(app.form == nil)
        #expect(try fixture.repository.counts().all == 1)
        app.handle(.char("a"))
        app.type("x")
        app.handle(.ctrl("q"))
        #expect(app.form?.isConfirmingDiscard == true)
        app.handle(.ctrl("q"))
        #expect(app.form == nil, "the cancel key twice discards")
        #expect(try fixture.repository.counts().all == 1)
    }

    @Test func theFormOpensTheEditorWithASingleBoundKeyAndCtrlXCtrlETypesNothing() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.keys = try Self.remapped()
        app.handle(.char("a"))
        app.type("T")
        app.handle(.ctrl("x"))
        app.handle(.ctrl("e"))
        #expect(app.editorRequest == nil, "Ctrl-X Ctrl-E is unbound")
        app.handle(.f(4))
        #expect(app.editorRequest?.source == .form)
        #expect(app.editorRequest?.text.title == "T")
        // The editor's text is saved with the form's save, whatever key that is.
        app.finishEditing(.changed("Edited\n"))
        #expect(app.form == nil)
        #expect(try fixture.repository.ideas(.all, limit: 10).map(\.title) == ["Edited"])
    }

    @Test func aFormSequenceWaitsForItsSecondKeyAndAnyOtherIsTakenAsItself() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.keys.form = try FormKeys(replacing: [.save: [[.ctrl("k"), .ctrl("s")]]])
        app.handle(.char("n"))
        app.type("ab")
        app.handle(.ctrl("k"))
        app.type("c")
        #expect(app.form?.title.text == "abc", "after the sequence's first key, c types")
        app.handle(.ctrl("k"))
        app.handle(.ctrl("s"))
        #expect(app.form == nil)
        #expect(try fixture.repository.ideas(.all, limit: 10).map(\.title) == ["abc"])
    }

    @Test func theSearchFieldLeavesWithItsBoundKeysAndTypesTheOldOnes() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(2)
        let app = try fixture.app()
        app.keys = try Self.remapped()
        app.handle(.char("/"))
        app.type("Idea")
        app.handle(.escape)
        #expect(app.search.isFocused, "Esc is no longer leave")
        app.handle(.ctrl("g"))
        #expect(!app.search.isFocused)
        app.handle(.char("/"))
        app.handle(.f(5))
        #expect(!app.search.isFocused)
        #expect(app.search.query.text == "Idea")
    }

    @Test(arguments: Language.allCases)
    func hintsNameTheBoundKeys(language: Language) throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(3)
        let app = try fixture.app(language: language)
        app.keys = try Self.remapped()
        let english = language == .english
        #expect(app.text.listHints.first == (english ? "a new" : "a 新增"))
        #expect(app.text.listHints.contains(english ? "t done" : "t 完成"))
        #expect(app.text.listHints.contains(english ? "z undo" : "z 復原"))
        #expect(!app.text.listHints.contains(english ? "x done" : "x 完成"))
        #expect(app.text.formHints == (english ? ["Tab next field", "Ctrl-O save", "Ctrl-Q cancel"] : ["Tab 下一欄", "Ctrl-O 儲存", "Ctrl-Q 取消"]))
        #expect(app.text.searchFieldHints.contains(english ? "Ctrl-G leave" : "Ctrl-G 離開"))
        #expect(app.text.searchFieldHints.contains(english ? "F5 results" : "F5 結果"))
        app.handle(.char("v"))
        app.handle(.char("j"))
        #expect(app.text.selectionHints(2).contains(english ? "t done" : "t 完成"))
    }

    @Test func messagesNameTheBoundKeys() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(2)
        let app = try fixture.app()
        app.keys = try Self.remapped()
        app.handle(.char("d"))
        app.handle(.char("y"))
        #expect(app.status.message?.text == "Deleted “Idea 2” — z to undo")
        app.handle(.char("z"))
        #expect(app.status.message?.text == "Undid delete of “Idea 2” — Z to redo")
        app.handle(.char("r"))
        #expect(app.status.message?.text == "Sorted: last changed first (r for the next order)")
        #expect(app.text.syncWhileOffline == "Nothing sent: offline. Press O to go online.")
        #expect(app.text.emptyList == "No ideas yet. Press a to add one.")
        #expect(
            app.text.changedElsewhereNotice([.title], by: "elsewhere", names: app.deviceNames)
                == "Changed on another device: title — Ctrl-O saves only what you changed")
        #expect(app.text.changedElsewhere(.add(try #require(fixture.repository.ideas(.all, limit: 10).first)), undoing: true)
            == "Changed on another device since; nothing undone — H shows the history")
        // An action left with no key: the message says what happened and names no key.
        app.keys.list = try KeyBindings(replacing: [.undo: []])
        #expect(app.text.deleted("x") == "Deleted “x”")
        #expect(app.text.keyHelp.contains { $0.keys == "(none)" && $0.action.hasPrefix("undo") })
    }

    @Test func helpListsEveryActionOfEveryContextWithItsBoundKeys() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.keys = try Self.remapped()
        let help = app.text.keyHelp
        #expect(help.count == ListAction.allCases.count + FormAction.allCases.count + SearchAction.allCases.count + 8)
        #expect(help.contains { $0.keys == "t" && $0.action == "toggle completed" })
        #expect(help.contains { $0.keys == "Ctrl-O" && $0.action == "save" })
        #expect(help.contains { $0.keys == "F4" && $0.action.hasPrefix("edit in your own editor") })
        #expect(help.contains { $0.keys == "Ctrl-G" && $0.action == "leave the field" })
        #expect(!help.contains { $0.keys.contains("Ctrl-S") })
        #expect(KeyBindings.defaults != app.keys.list)
        let defaults = UIText(language: .english).keyHelp
        #expect(defaults.contains { $0.keys == "x  Space" && $0.action == "toggle completed" })
        #expect(defaults.contains { $0.keys == "Ctrl-X Ctrl-E" })
    }

    @Test func helpScrollsWithTheListsMovesAndTheArrowsAndItsFooterSaysSo() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.keys.list = try KeyBindings(replacing: [.down: [[.down], [.char("n")]], .new: [[.char("j")]]])
        app.handle(.char("?"))
        #expect(app.help?.footer == "↑ ↓ PgUp PgDn Home End k n g G scroll · any other key closes")
        app.handle(.char("n"))
        #expect(app.help?.scroll == 1)
        app.handle(.down)
        #expect(app.help?.scroll == 2)
        app.handle(.char("j"))
        #expect(!app.isShowingHelp, "j is new now, not a move: it closes help")
        // On a screen tall enough for all of it, nothing scrolls and the footer says so.
        app.resize(rows: 80, columns: 100)
        app.handle(.char("?"))
        let help = try #require(app.help)
        #expect(help.footer == "Any key closes this help")
        #expect(help.visibleRows == help.lines.count)
    }
}
