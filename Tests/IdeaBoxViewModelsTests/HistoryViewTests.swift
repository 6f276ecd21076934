import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import Testing

/// `HistoryView`: the cursor over an idea's versions, kept in view, and what a key asks.
@Suite struct HistoryViewTests {
    /// The history of an idea titled `v1`, then edited to `v2` … `v<count>`.
    private func view(versions count: Int) throws -> HistoryView {
        let fixture = try ViewModelFixture()
        let idea = try fixture.repository.addIdea(title: "v1")
        for number in 2...count { _ = try fixture.repository.editIdea(id: idea.id, IdeaChanges(title: "v\(number)")) }
        var view = HistoryView(ideaId: idea.id, title: "v1")
        view.reload(versions: try fixture.repository.history(of: idea.id), deviceNames: try fixture.repository.deviceNames(), visibleRows: 6)
        return view
    }

    @Test func theCursorMovesWithinTheVersionsAndTheViewFollowsIt() throws {
        var view = try view(versions: 5)
        #expect(view.versions.count == 5)
        #expect(view.title == "v5", "the current title")
        #expect(view.handle(.up, visibleRows: 6) == .none && view.selected == 0, "never above the first")
        #expect(view.handle(.char("j"), visibleRows: 6) == .none && view.selected == 1 && view.scroll == 0)
        #expect(view.handle(.down, visibleRows: 6) == .none && view.selected == 2)
        #expect(view.scroll == 3, "two versions of three lines show in six rows: the third scrolls one in")
        #expect(view.handle(.end, visibleRows: 6) == .none && view.selected == 4 && view.scroll == 9)
        #expect(view.handle(.pageDown, visibleRows: 6) == .none && view.selected == 4, "never past the last")
        #expect(view.handle(.pageUp, visibleRows: 6) == .none && view.selected == 2 && view.scroll == 6)
        #expect(view.handle(.char("g"), visibleRows: 6) == .none && view.selected == 0 && view.scroll == 0)
        #expect(view.handle(.char("z"), visibleRows: 6) == .none && view.selected == 0)
    }

    @Test func keysAskToRestoreCloseOrQuit() throws {
        var view = try view(versions: 2)
        #expect(view.handle(.char("r"), visibleRows: 6) == .restore)
        for key in [Key.escape, .char("q"), .char("h"), .enter] {
            #expect(view.handle(key, visibleRows: 6) == .close, "\(key)")
        }
        #expect(view.handle(.ctrl("c"), visibleRows: 6) == .quit)
    }

    @Test func aReloadKeepsTheCursorOnItsVersion() throws {
        let fixture = try ViewModelFixture()
        let idea = try fixture.repository.addIdea(title: "v1")
        _ = try fixture.repository.editIdea(id: idea.id, IdeaChanges(title: "v2"))
        var view = HistoryView(ideaId: idea.id, title: "v1")
        view.reload(versions: try fixture.repository.history(of: idea.id), deviceNames: try fixture.repository.deviceNames(), visibleRows: 6)
        _ = view.handle(.down, visibleRows: 6)
        let selected = view.selectedVersion?.number
        _ = try fixture.repository.editIdea(id: idea.id, IdeaChanges(title: "v3"))
        view.reload(versions: try fixture.repository.history(of: idea.id), deviceNames: try fixture.repository.deviceNames(), visibleRows: 6)
        #expect(view.selected == 2 && view.selectedVersion?.number == selected, "a new version above moves the cursor down with its own")
        #expect(view.title == "v3")
    }
}
