import Foundation
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import Testing

/// `AppModel+Selection`: a selection of many (`v`), done, delete and one undo for all of it,
/// copy (`y`) and open (`g x`).
@Suite struct AppModelSelectionTests {
    @Test func vThenMovesSelectARangeAndXMarksThemAllDoneInOneUndo() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(5)
        let app = try fixture.app()
        app.handle(.char("j"))
        app.handle(.char("v"))
        app.handle(.char("j"))
        app.handle(.down)
        #expect(app.selectedRows == 1...3)
        let revision = try fixture.repository.revision()
        app.handle(.char("x"))
        #expect(try fixture.repository.revision() == revision + 1, "one transaction for the three")
        #expect(app.counts.completed == 3)
        #expect(app.selectedRows == nil, "the action ends the selection")
        #expect(app.status.message?.text == "Marked 3 ideas done")
        app.handle(.char("u"))
        #expect(app.counts.completed == 0)
        #expect(app.status.message?.text == "Undid done on 3 ideas — Ctrl-R to redo")
        app.handle(.ctrl("r"))
        #expect(app.counts.completed == 3)
    }

    @Test func xOnASelectionAllDoneMarksThemAllNotDone() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(4, completedEvery: 1)
        let app = try fixture.app()
        app.handle(.char("v"))
        app.handle(.char("G"))
        app.handle(.char("x"))
        #expect(app.counts.completed == 0)
        #expect(app.status.message?.text == "Marked 4 ideas not done")
    }

    @Test func xOnAMixedSelectionMarksThemAllDone() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(4, completedEvery: 2)
        let app = try fixture.app()
        app.handle(.char("v"))
        app.handle(.end)
        app.handle(.char("x"))
        #expect(app.counts.completed == 4)
        app.handle(.char("u"))
        #expect(app.counts.completed == 2, "the undo puts back only what the action changed")
    }

    @Test func dAsksOnceNamingTheCountAndOneUndoBringsThemAllBack() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(5)
        let app = try fixture.app(language: .traditionalChinese)
        app.handle(.char("v"))
        app.handle(.char("j"))
        app.handle(.char("j"))
        app.handle(.char("d"))
        guard case .ideas(let asked)? = app.deleteQuestion else {
            Issue.record("no question about the selection")
            return
        }
        #expect(asked.count == 3)
        #expect(app.text.deleteQuestion(count: 3) == "刪除選取的 3 筆靈感？y/n")
        app.handle(.char("y"))
        #expect(app.counts.all == 2)
        #expect(app.status.message?.text == "已刪除 3 筆靈感— 按 u 復原")
        app.handle(.char("u"))
        #expect(app.counts.all == 5)
    }

    @Test func nAtTheQuestionDeletesNothing() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(3)
        let app = try fixture.app()
        app.handle(.char("v"))
        app.handle(.char("j"))
        app.handle(.char("d"))
        app.handle(.char("n"))
        #expect(app.counts.all == 3)
        #expect(app.deleteQuestion == nil)
    }

    @Test func anUndoOfASelectionChangedElsewhereChangesNoneOfIt() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(3)
        let app = try fixture.app()
        app.handle(.char("v"))
        app.handle(.char("G"))
        app.handle(.char("x"))
        _ = try fixture.otherProcess().setCompleted(false, id: ideas[0].id)
        app.tick()
        app.handle(.char("u"))
        #expect(app.counts.completed == 2, "all or nothing: the two untouched stay done")
        #expect(app.status.message?.text.hasPrefix("Changed on another device since") == true)
    }

    @Test func escAndATabSwitchLeaveTheSelection() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(3)
        let app = try fixture.app()
        app.handle(.char("v"))
        #expect(app.selectedRows == 0...0)
        app.handle(.escape)
        #expect(app.selectedRows == nil)
        app.handle(.char("v"))
        app.handle(.char("2"))
        app.handle(.char("1"))
        #expect(app.selectedRows == nil)
        app.handle(.char("x"))
        #expect(app.counts.completed == 1, "without a selection x toggles the one idea")
    }

    @Test func yAsksToCopyTitleBlankLineDescription() throws {
        let fixture = try ViewModelFixture()
        _ = try fixture.repository.addIdea(title: "Plan", description: "see https://example.com/a")
        let app = try fixture.app()
        app.handle(.char("y"))
        #expect(app.takeClipboardRequest() == "Plan\n\nsee https://example.com/a")
        #expect(app.takeClipboardRequest() == nil, "taken once")
        app.clipboardCopied(true)
        #expect(app.status.message?.text == "Copied to the clipboard")
        app.clipboardCopied(false)
        #expect(app.status.message?.text.hasPrefix("This terminal refused the copy") == true)
    }

    @Test func gxOpensTheFirstLinkOfTheIdeaUnderTheCursorNotTheTopOne() throws {
        let fixture = try ViewModelFixture()
        _ = try fixture.repository.addIdea(title: "Second", description: "see https://example.com/b, then http://x.org")
        _ = try fixture.repository.addIdea(title: "Top", description: "https://example.com/top")
        let app = try fixture.app()
        var opened: [String] = []
        app.openLink = { opened.append($0); return true }
        app.handle(.char("j"))
        app.handle(.char("g"))
        app.handle(.char("x"))
        #expect(opened == ["https://example.com/b"])
        #expect(app.allIdeas.selectedIndex == 1)
        #expect(app.counts.completed == 0, "g x is not x")
        app.handle(.char("g"))
        #expect(app.allIdeas.selectedIndex == 0, "g alone still goes to the top")
        app.handle(.char("j"))
        #expect(app.allIdeas.selectedIndex == 1)
    }

    @Test func gxWithoutAnOpenerOrALinkSaysSoInOneSentence() throws {
        let fixture = try ViewModelFixture()
        _ = try fixture.repository.addIdea(title: "Plain")
        _ = try fixture.repository.addIdea(title: "Linked", description: "https://example.com")
        let app = try fixture.app()
        app.handle(.char("g"))
        app.handle(.char("x"))
        #expect(app.status.message?.text == "No xdg-open on this machine to open links with")
        app.handle(.char("G"))
        app.handle(.char("g"))
        app.handle(.char("j"))
        app.handle(.char("g"))
        app.handle(.char("x"))
        #expect(app.status.message?.text == "This idea has no link")
    }

    @Test func aRemappedKeyDoesItsNewActionAndTheOldKeyNothing() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(2)
        let app = try fixture.app()
        app.bindings = try KeyBindings(replacing: [.toggleDone: [[.char("t")]]])
        app.handle(.char("x"))
        #expect(app.counts.completed == 0)
        app.handle(.char("t"))
        #expect(app.counts.completed == 1)
    }
}
