import IdeaBoxViewModels
import Testing

/// `FullPreview`: the full-screen preview scrolls within its lines and goes back to the list.
@Suite struct FullPreviewTests {
    @Test func scrollingKeysScrollWithinItsLines() {
        var preview = FullPreview()
        let keys = ScrollKeys(.defaults)
        #expect(preview.handle(.down, lineCount: 30, visibleRows: 10, scrollKeys: keys) == .none && preview.scroll == 1)
        #expect(preview.handle(.end, lineCount: 30, visibleRows: 10, scrollKeys: keys) == .none && preview.scroll == 20)
        #expect(preview.handle(.char("j"), lineCount: 30, visibleRows: 10, scrollKeys: keys) == .none && preview.scroll == 20)
        #expect(preview.handle(.down, lineCount: 25, visibleRows: 10, scrollKeys: keys) == .none && preview.scroll == 15,
                "a preview grown shorter scrolls from its new end")
        #expect(preview.handle(.down, lineCount: 5, visibleRows: 10, scrollKeys: keys) == .none && preview.scroll == 0, "all of it shows")
    }

    @Test func escPQAndEnterGoBackAndCtrlCQuits() {
        var preview = FullPreview()
        for key in [Key.escape, .char("p"), .char("q"), .enter] {
            #expect(preview.handle(key, lineCount: 30, visibleRows: 10, scrollKeys: ScrollKeys(.defaults)) == .close, "\(key)")
        }
        #expect(preview.handle(.ctrl("c"), lineCount: 30, visibleRows: 10, scrollKeys: ScrollKeys(.defaults)) == .quit)
        #expect(preview.handle(.char("z"), lineCount: 30, visibleRows: 10, scrollKeys: ScrollKeys(.defaults)) == .none)
    }
}
