import IdeaBoxViewModels
import Testing

/// `SearchField`: typing edits it, a bound key leaves it, a sequence's first key waits.
@Suite struct SearchFieldTests {
    @Test func typingEditsAndAKeyThatChangesNothingSaysSo() {
        var field = SearchField()
        field.isFocused = true
        #expect(field.handle(.char("b"), keys: .defaults) == .edited)
        #expect(field.handle(.char("e"), keys: .defaults) == .edited)
        #expect(field.query.text == "be")
        #expect(field.handle(.ctrl("b"), keys: .defaults) == .none, "the cursor moved; the text did not change")
        #expect(field.handle(.backspace, keys: .defaults) == .edited)
        #expect(field.query.text == "e")
        #expect(field.isFocused)
    }

    @Test func aBoundKeyLeavesTheField() {
        var field = SearchField()
        field.isFocused = true
        #expect(field.handle(.escape, keys: .defaults) == .action(.leave))
        #expect(!field.isFocused)
    }

    @Test func aSequencesFirstKeyWaitsForItsSecond() throws {
        let keys = try SearchKeys(replacing: [.quit: [[.ctrl("x"), .ctrl("c")]]])
        var field = SearchField()
        field.isFocused = true
        #expect(field.handle(.ctrl("x"), keys: keys) == .none)
        #expect(field.handle(.ctrl("c"), keys: keys) == .action(.quit))
        #expect(!field.isFocused)
    }
}
