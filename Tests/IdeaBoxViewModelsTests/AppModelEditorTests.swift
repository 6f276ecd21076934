import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import Testing

/// `E` and Ctrl-X Ctrl-E (`AppModel+Editor`): the idea in the person's own editor, with the
/// editor's outcome handed in as the terminal layer would hand it.
@Suite struct AppModelEditorTests {
    @Test func eAsksForTheSelectedIdeaAsTitleBlankLineDescription() throws {
        let fixture = try ViewModelFixture()
        _ = try fixture.repository.addIdea(title: "Bake bread", description: "sourdough\nwith seeds")
        let app = try fixture.app()
        app.handle(.char("E"))
        let request = try #require(app.editorRequest)
        #expect(request.text.fileText == "Bake bread\n\nsourdough\nwith seeds\n")
    }

    @Test func aChangedTextIsSavedAsOneUndoableEdit() throws {
        let fixture = try ViewModelFixture()
        let idea = try fixture.repository.addIdea(title: "Bake bread", description: "old")
        let app = try fixture.app()
        app.handle(.char("E"))
        app.finishEditing(.changed("Bake rye bread\n\nnew 麵包\nsecond line\n\n"))
        #expect(app.editorRequest == nil && app.form == nil)
        let saved = try #require(try fixture.repository.idea(id: idea.id))
        #expect(saved.title == "Bake rye bread" && saved.description == "new 麵包\nsecond line")
        #expect(app.status.message?.text.contains("Bake rye bread") == true)
        app.handle(.char("u"))
        let undone = try #require(try fixture.repository.idea(id: idea.id))
        #expect(undone.title == "Bake bread" && undone.description == "old")
    }

    @Test(arguments: [("\n\nonly a description\n", IdeaValidationError.emptyTitle),
                      (String(repeating: "靈", count: 257) + "\n", .titleTooLong(length: 257))])
    func aTextTheRulesRefuseOpensTheFormWithTheTextKept(file: String, error: IdeaValidationError) throws {
        let fixture = try ViewModelFixture()
        let idea = try fixture.repository.addIdea(title: "Keep me", description: "as is")
        let app = try fixture.app()
        app.handle(.char("E"))
        app.finishEditing(.changed(file))
        let form = try #require(app.form)
        #expect(form.visibleError == error)
        let edited = IdeaText(fileText: file)
        #expect(form.title.text == edited.title && form.description.text == edited.description)
        #expect(try fixture.repository.idea(id: idea.id) == idea, "nothing saved")
    }

    @Test(arguments: [
        (EditorOutcome.unchanged, "Nothing changed: the editor left the text as it was."),
        (.failed(status: 1), "Nothing changed: the editor exited with status 1."),
        (.couldNotRun("no such file"), "Nothing changed: the editor could not run (no such file)."),
    ])
    func anEditorThatFailsOrChangesNothingChangesNothingAndSaysSo(outcome: EditorOutcome, message: String) throws {
        let fixture = try ViewModelFixture()
        let idea = try fixture.repository.addIdea(title: "Untouched")
        let app = try fixture.app()
        let revision = try fixture.repository.revision()
        app.handle(.char("E"))
        app.finishEditing(outcome)
        #expect(app.status.message?.text == message)
        #expect(app.form == nil && app.editorRequest == nil)
        #expect(try fixture.repository.revision() == revision)
        #expect(try fixture.repository.idea(id: idea.id) == idea)
        app.handle(.char("u"))
        #expect(app.status.message?.text == "Nothing to undo")
    }

    @Test func ctrlXCtrlEInTheFormEditsWhatIsTypedThenSaves() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("n"))
        app.type("Half a tit")
        app.handle(.ctrl("x"))
        app.handle(.ctrl("e"))
        let request = try #require(app.editorRequest)
        #expect(request.source == .form && request.text.fileText == "Half a tit\n")
        app.finishEditing(.changed("A whole title\n\nand a description\n"))
        #expect(app.form == nil)
        let added = try fixture.repository.ideas(.all, limit: 5)
        #expect(added.map(\.title) == ["A whole title"] && added[0].description == "and a description")
    }

    @Test func ctrlXThenAnotherKeyIsThatKey() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("n"))
        app.handle(.ctrl("x"))
        app.type("ab")
        #expect(app.editorRequest == nil)
        #expect(app.form?.title.text == "ab")
    }

    @Test func anUnchangedTextFromTheFormLeavesTheFormAsItWas() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("n"))
        app.type("Draft")
        app.handle(.ctrl("x"))
        app.handle(.ctrl("e"))
        app.finishEditing(.failed(status: 2))
        #expect(app.form?.title.text == "Draft")
        #expect(try fixture.repository.counts().all == 0)
    }

    @Test func onAnEmptyListEAsksForNothing() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("E"))
        #expect(app.editorRequest == nil)
    }
}
