import Foundation
import IdeaBoxViewModels
import IdeaModel
import Testing

/// The edit form: focus, typing, live validation, saving and cancelling.
@Suite struct IdeaFormTests {
    private static let existing = Idea(
        id: UUID(uuidString: "00000000-0000-0000-0000-000000000007")!,
        title: "Old title", description: "Line one\nLine two", isCompleted: true,
        createdAt: ViewModelFixture.start, updatedAt: ViewModelFixture.start, deviceId: "device", version: 3)

    private static func type(_ text: String, into form: inout IdeaForm) {
        for character in text {
            let outcome = form.handle(.char(character))
            #expect(outcome == .editing)
        }
    }

    @Test func newFormStartsEmptyOnTheTitle() {
        let form = IdeaForm(mode: .new)
        #expect(form.focus == .title)
        #expect(form.title.text == "")
        #expect(!form.title.isMultiline)
        #expect(form.description.text == "")
        #expect(form.description.isMultiline)
        #expect(!form.isCompleted)
        #expect(!form.isDirty)
        #expect(!form.isConfirmingDiscard)
        #expect(form.validationError == .emptyTitle)
        #expect(form.visibleError == nil, "an empty new form shows no error before a save is tried")
    }

    @Test func tabAndShiftTabCycleTheFields() {
        var form = IdeaForm(mode: .new)
        let outcome = form.handle(.tab)
        #expect(outcome == .editing)
        #expect(form.focus == .description)
        _ = form.handle(.tab)
        #expect(form.focus == .completed)
        _ = form.handle(.tab)
        #expect(form.focus == .title)
        _ = form.handle(.backTab)
        #expect(form.focus == .completed)
        _ = form.handle(.backTab)
        #expect(form.focus == .description)
        _ = form.handle(.backTab)
        #expect(form.focus == .title)
        #expect(!form.isDirty, "moving between fields changes nothing")
    }

    @Test func typedKeysGoToTheFocusedField() {
        var form = IdeaForm(mode: .new)
        Self.type("靈感 👍🏽", into: &form)
        _ = form.handle(.tab)
        Self.type("desc", into: &form)
        #expect(form.title.text == "靈感 👍🏽")
        #expect(form.title.count == 4)
        #expect(form.description.text == "desc")
        #expect(form.description.count == 4)
        #expect(form.isDirty)
    }

    @Test func enterInTheTitleMovesToTheDescriptionWhereItIsANewLine() {
        var form = IdeaForm(mode: .new)
        Self.type("Title", into: &form)
        let outcome = form.handle(.enter)
        #expect(outcome == .editing)
        #expect(form.focus == .description)
        #expect(form.title.text == "Title")
        Self.type("one", into: &form)
        _ = form.handle(.enter)
        Self.type("two", into: &form)
        #expect(form.focus == .description)
        #expect(form.description.text == "one\ntwo")
    }

    @Test func editingKeysWorkInBothTextFields() {
        var form = IdeaForm(mode: .new)
        Self.type("中文abc", into: &form)
        _ = form.handle(.left)
        _ = form.handle(.backspace)
        _ = form.handle(.home)
        _ = form.handle(.delete)
        #expect(form.title.text == "文ac")
        _ = form.handle(.ctrl("e"))
        _ = form.handle(.ctrl("u"))
        #expect(form.title.text == "")
        _ = form.handle(.paste("pasted\nline"))
        #expect(form.title.text == "pasted line", "a pasted line break becomes a space in the title")
        _ = form.handle(.ctrl("a"))
        _ = form.handle(.ctrl("f"))
        _ = form.handle(.ctrl("k"))
        #expect(form.title.text == "p")
        _ = form.handle(.tab)
        _ = form.handle(.paste("a\nb"))
        _ = form.handle(.ctrl("b"))
        _ = form.handle(.ctrl("d"))
        #expect(form.description.text == "a\n")
    }

    @Test func upAndDownMoveBetweenFieldsAtTheEdgesOfTheDescription() {
        var form = IdeaForm(mode: .new)
        _ = form.handle(.down)
        #expect(form.focus == .description)
        _ = form.handle(.paste("one\ntwo"))
        _ = form.handle(.up)
        #expect(form.focus == .description)
        #expect(form.description.cursor == 3)
        _ = form.handle(.up)
        #expect(form.focus == .title)
        _ = form.handle(.down)
        _ = form.handle(.down)
        #expect(form.focus == .description)
        #expect(form.description.cursor == 7)
        _ = form.handle(.down)
        #expect(form.focus == .completed)
        _ = form.handle(.up)
        #expect(form.focus == .description)
    }

    @Test func countersAreLive() {
        var form = IdeaForm(mode: .new)
        Self.type("中文👩‍💻", into: &form)
        #expect(form.title.count == 3)
        _ = form.handle(.backspace)
        #expect(form.title.count == 2)
        _ = form.handle(.tab)
        _ = form.handle(.paste(String(repeating: "字", count: 100)))
        #expect(form.description.count == 100)
    }

    @Test func aTitleOverTheLimitShowsItsErrorWhileTyping() {
        var form = IdeaForm(mode: .new)
        _ = form.handle(.paste(String(repeating: "字", count: 256)))
        #expect(form.validationError == nil)
        #expect(form.visibleError == nil)
        _ = form.handle(.char("x"))
        #expect(form.title.count == 257)
        #expect(form.visibleError == .titleTooLong(length: 257))
        var outcome = form.handle(.ctrl("s"))
        #expect(outcome == .editing, "an invalid form can't be saved")
        outcome = form.handle(.f(2))
        #expect(outcome == .editing)
        _ = form.handle(.backspace)
        #expect(form.visibleError == nil)
        outcome = form.handle(.ctrl("s"))
        #expect(outcome == .save(
            title: String(repeating: "字", count: 256), description: "", isCompleted: false))
    }

    @Test func aDescriptionOverTheLimitShowsItsError() {
        var form = IdeaForm(mode: .new)
        Self.type("t", into: &form)
        _ = form.handle(.tab)
        _ = form.handle(.paste(String(repeating: "👍🏽", count: 4097)))
        #expect(form.visibleError == .descriptionTooLong(length: 4097))
        let outcome = form.handle(.ctrl("s"))
        #expect(outcome == .editing)
    }

    @Test func anEmptyTitleErrorShowsOnlyAfterASaveAttempt() {
        var form = IdeaForm(mode: .new)
        _ = form.handle(.tab)
        Self.type("only a description", into: &form)
        #expect(form.visibleError == nil)
        var outcome = form.handle(.ctrl("s"))
        #expect(outcome == .editing)
        #expect(form.triedToSave)
        #expect(form.visibleError == .emptyTitle)
        _ = form.handle(.backTab)
        Self.type("   ", into: &form)
        #expect(form.visibleError == .emptyTitle, "a title of spaces is still empty")
        outcome = form.handle(.f(2))
        #expect(outcome == .editing)
        Self.type("T", into: &form)
        #expect(form.visibleError == nil)
    }

    @Test("Ctrl-S and F2 save valid input", arguments: [Key.ctrl("s"), Key.f(2)])
    func savesValidInput(key: Key) {
        var form = IdeaForm(mode: .new)
        Self.type("A title", into: &form)
        _ = form.handle(.enter)
        Self.type("Body", into: &form)
        _ = form.handle(.enter)
        Self.type("中", into: &form)
        _ = form.handle(.tab)
        _ = form.handle(.char(" "))
        let outcome = form.handle(key)
        #expect(outcome == .save(title: "A title", description: "Body\n中", isCompleted: true))
    }

    @Test("Space, x and Enter toggle Completed", arguments: [Key.char(" "), Key.char("x"), Key.enter])
    func togglesCompleted(key: Key) {
        var form = IdeaForm(mode: .new)
        _ = form.handle(.backTab)
        #expect(form.focus == .completed)
        _ = form.handle(key)
        #expect(form.isCompleted)
        #expect(form.isDirty)
        _ = form.handle(key)
        #expect(!form.isCompleted)
        #expect(!form.isDirty)
        _ = form.handle(.char("a"))
        #expect(!form.isCompleted, "other keys leave the toggle alone")
        #expect(form.title.text == "", "typing on the toggle types nowhere")
    }

    @Test("Esc and Ctrl-C close a clean form at once", arguments: [Key.escape, Key.ctrl("c")])
    func cleanFormCancels(key: Key) {
        var form = IdeaForm(mode: .new)
        let outcome = form.handle(key)
        #expect(outcome == .cancel)
        var edit = IdeaForm(mode: .edit(Self.existing))
        _ = edit.handle(.tab)
        let editOutcome = edit.handle(key)
        #expect(editOutcome == .cancel)
    }

    @Test func escOnADirtyFormAsksThenYCancels() {
        var form = IdeaForm(mode: .new)
        Self.type("draft", into: &form)
        var outcome = form.handle(.escape)
        #expect(outcome == .editing)
        #expect(form.isConfirmingDiscard)
        outcome = form.handle(.char("y"))
        #expect(outcome == .cancel)
    }

    @Test("Any key but y answers no and goes back to editing", arguments: [
        Key.char("n"), Key.char("q"), Key.escape, Key.enter, Key.ctrl("s"), Key.char("x"),
    ])
    func escOnADirtyFormThenAnotherKeyKeepsEditing(key: Key) {
        var form = IdeaForm(mode: .new)
        Self.type("draft", into: &form)
        var outcome = form.handle(.escape)
        #expect(outcome == .editing)
        #expect(form.isConfirmingDiscard)
        outcome = form.handle(key)
        #expect(outcome == .editing)
        #expect(!form.isConfirmingDiscard)
        #expect(form.title.text == "draft", "the answer is not typed into the field")
        #expect(form.focus == .title)
        outcome = form.handle(.ctrl("s"))
        #expect(outcome == .save(title: "draft", description: "", isCompleted: false))
    }

    @Test func editModeStartsWithTheIdeasValues() {
        var form = IdeaForm(mode: .edit(Self.existing))
        #expect(form.mode == .edit(Self.existing))
        #expect(form.title.text == "Old title")
        #expect(form.title.cursor == 9)
        #expect(form.description.text == "Line one\nLine two")
        #expect(form.isCompleted)
        #expect(!form.isDirty)
        #expect(form.visibleError == nil)
        Self.type("!", into: &form)
        #expect(form.isDirty)
        _ = form.handle(.backspace)
        #expect(!form.isDirty, "back to the stored values is clean again")
        _ = form.handle(.backTab)
        _ = form.handle(.char("x"))
        #expect(form.isDirty)
        var outcome = form.handle(.escape)
        #expect(outcome == .editing)
        #expect(form.isConfirmingDiscard)
        outcome = form.handle(.char("Y"))
        #expect(outcome == .cancel)
    }

    @Test func editModeSavesTheChangedValues() {
        var form = IdeaForm(mode: .edit(Self.existing))
        _ = form.handle(.ctrl("u"))
        Self.type("New", into: &form)
        _ = form.handle(.tab)
        _ = form.handle(.end)
        _ = form.handle(.backspace)
        _ = form.handle(.backspace)
        _ = form.handle(.backspace)
        _ = form.handle(.tab)
        _ = form.handle(.enter)
        let outcome = form.handle(.ctrl("s"))
        #expect(outcome == .save(title: "New", description: "Line one\nLine ", isCompleted: false))
    }

    /// Another device changed the idea while the form was open: the form names the fields,
    /// saves only what the person changed, and asks only about a field both changed.
    @Test func aChangeElsewhereIsNotedAndOnlyAFieldBothChangedIsAskedAbout() {
        var form = IdeaForm(mode: .edit(Self.existing))
        Self.type(" here", into: &form)
        var theirs = Self.existing
        theirs.description = "Their notes"
        form.ideaChangedElsewhere(theirs)
        #expect(form.changedElsewhere == [.description] && form.changedHere == [.title])
        #expect(form.changedOnBothSides.isEmpty && form.fieldsToSave == [.title])
        #expect(form.handle(.ctrl("s")) == .save(title: "Old title here", description: "Line one\nLine two", isCompleted: true))

        var both = IdeaForm(mode: .edit(Self.existing))
        Self.type(" mine", into: &both)
        theirs.title = "Their title"
        both.ideaChangedElsewhere(theirs)
        #expect(both.changedOnBothSides == [.title])
        #expect(both.handle(.ctrl("s")) == .editing && both.isAskingMineOrTheirs)
        #expect(both.handle(.char("x")) == .editing && both.isAskingMineOrTheirs, "only m, t or Esc answer")
        #expect(both.handle(.char("t")) == .save(title: "Old title mine", description: "Line one\nLine two", isCompleted: true))
        #expect(both.keepsTheirs && both.fieldsToSave.isEmpty)

        var mine = IdeaForm(mode: .edit(Self.existing))
        Self.type(" mine", into: &mine)
        mine.ideaChangedElsewhere(theirs)
        _ = mine.handle(.ctrl("s"))
        _ = mine.handle(.char("m"))
        #expect(!mine.keepsTheirs && mine.fieldsToSave == [.title])
    }
}

