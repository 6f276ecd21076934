import IdeaBoxViewModels
import Testing

/// `ScrollKeys`: the keys that scroll an overlay, and where each takes it.
@Suite struct ScrollKeysTests {
    @Test func theArrowsPagesAndEndsScrollWithinTheLimit() {
        let keys = ScrollKeys(.defaults)
        #expect(keys.scrolled(5, by: .up, page: 10, limit: 20) == 4)
        #expect(keys.scrolled(5, by: .down, page: 10, limit: 20) == 6)
        #expect(keys.scrolled(5, by: .pageUp, page: 10, limit: 20) == 0)
        #expect(keys.scrolled(5, by: .pageDown, page: 10, limit: 20) == 14)
        #expect(keys.scrolled(5, by: .home, page: 10, limit: 20) == 0)
        #expect(keys.scrolled(5, by: .end, page: 10, limit: 20) == 20)
        #expect(keys.scrolled(20, by: .down, page: 10, limit: 20) == 20, "never past the end")
        #expect(keys.scrolled(0, by: .up, page: 10, limit: 20) == 0, "never above the top")
    }

    @Test func theListsMovesScrollAndAnyOtherKeyDoesNot() throws {
        #expect(ScrollKeys(.defaults).scrolled(1, by: .char("j"), page: 10, limit: 20) == 2)
        #expect(ScrollKeys(.defaults).scrolled(1, by: .char("x"), page: 10, limit: 20) == nil)
        let remapped = ScrollKeys(try KeyBindings(replacing: [.down: [[.down], [.char("n")]], .new: [[.char("j")]]]))
        #expect(remapped.scrolled(1, by: .char("n"), page: 10, limit: 20) == 2)
        #expect(remapped.scrolled(1, by: .char("j"), page: 10, limit: 20) == nil, "j is new now, not a move")
    }

    @Test func theLabelsNameTheFixedKeysThenTheListsOwn() throws {
        let text = UIText(language: .english)
        #expect(ScrollKeys(.defaults).labels(in: text) == ["↑", "↓", "PgUp", "PgDn", "Home", "End", "k", "j", "g", "G"])
        let remapped = ScrollKeys(try KeyBindings(replacing: [.down: [[.down], [.char("n")]], .new: [[.char("j")]]]))
        #expect(remapped.labels(in: text) == ["↑", "↓", "PgUp", "PgDn", "Home", "End", "k", "n", "g", "G"])
    }
}
