import EmbeddedRemote
import Foundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import IdeaSync
import Testing

/// The app's extensions (`AppModel+Undo`, `+Mouse`, `+Overlays`): undo and redo, the mouse,
/// Ctrl-Z, scrolling help, and what `s` says when nothing can sync.
@Suite struct AppModelHabitsTests {
    // MARK: Undo and redo

    @Test func twoDeletesThenUUndoBothAndCtrlRRedoes() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(3)
        let app = try fixture.app()
        for _ in 0..<2 {
            app.handle(.char("d"))
            app.handle(.char("y"))
        }
        #expect(app.counts.all == 1)
        app.handle(.char("u"))
        #expect(app.status.message?.text == "Undid delete of “Idea 2” — Ctrl-R to redo")
        app.handle(.char("u"))
        #expect(app.status.message?.text == "Undid delete of “Idea 3” — Ctrl-R to redo")
        #expect(app.counts.all == 3)
        #expect(try fixture.repository.ideas(.all, limit: 10).map(\.title) == ["Idea 3", "Idea 2", "Idea 1"])
        app.handle(.ctrl("r"))
        #expect(app.status.message?.text == "Redid delete of “Idea 3”")
        #expect(app.counts.all == 2)
        app.handle(.char("u"))
        #expect(app.counts.all == 3)
    }

    @Test func doneAndEditsAreUndoneInReverseOrder() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(1)
        let app = try fixture.app()
        app.handle(.char("x"))
        app.handle(.char("e"))
        app.type(" changed")
        app.handle(.ctrl("s"))
        let edited = try #require(try fixture.repository.idea(id: ideas[0].id))
        #expect(edited.title == "Idea 1 changed" && edited.isCompleted)

        app.handle(.char("u"))
        #expect(app.status.message?.text == "Undid edit of “Idea 1 changed” — Ctrl-R to redo")
        #expect(try fixture.repository.idea(id: ideas[0].id)?.title == "Idea 1")
        app.handle(.char("u"))
        #expect(try fixture.repository.idea(id: ideas[0].id)?.isCompleted == false)
        app.handle(.char("u"))
        #expect(app.status.message?.text == "Nothing to undo")
        app.handle(.ctrl("r"))
        app.handle(.ctrl("r"))
        let redone = try #require(try fixture.repository.idea(id: ideas[0].id))
        #expect(redone.title == "Idea 1 changed" && redone.isCompleted)
        app.handle(.ctrl("r"))
        #expect(app.status.message?.text == "Nothing to redo")
    }

    @Test func aNewActionForgetsWhatCouldBeRedone() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(2)
        let app = try fixture.app()
        app.handle(.char("x"))
        app.handle(.char("u"))
        app.handle(.char("j"))
        app.handle(.char("x"))
        app.handle(.ctrl("r"))
        #expect(app.status.message?.text == "Nothing to redo")
    }

    @Test func theHistoryKeepsTheLastHundredActions() {
        var history = UndoHistory()
        let idea = Idea(
            id: UUID(), title: "t", description: "", isCompleted: false, createdAt: ViewModelFixture.start,
            updatedAt: ViewModelFixture.start, deviceId: "d", version: 0)
        for index in 0..<150 {
            history.record(.setCompleted(idea, isCompleted: index.isMultiple(of: 2)))
        }
        #expect(history.undoable.count == UndoHistory.limit)
        #expect(UndoHistory.limit >= 50)
    }

    @Test func undoingAnIdeaDeletedElsewhereSaysSoAndChangesNothing() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(1)
        let app = try fixture.app(language: .traditionalChinese)
        app.handle(.char("x"))
        _ = try fixture.otherProcess().deleteIdea(id: ideas[0].id)
        app.handle(.char("u"))
        #expect(app.status.message?.text == "無法復原完成「Idea 1」：這筆靈感已在其他裝置刪除")
        #expect(try fixture.repository.idea(id: ideas[0].id) == nil)
    }

    @Test func aRefusedUndoIsDroppedAndTheNextUGoesToTheActionBeforeIt() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(2)
        let app = try fixture.app()
        app.handle(.char("x"))
        app.handle(.char("j"))
        app.handle(.char("e"))
        app.type(" mine")
        app.handle(.ctrl("s"))
        let other = fixture.otherProcess()
        _ = try other.editIdea(id: ideas[0].id, IdeaChanges(title: "theirs"))
        app.tick()

        app.handle(.char("u"))
        #expect(app.status.message?.text.hasPrefix("Changed on another device since; nothing undone") == true)
        #expect(try fixture.repository.idea(id: ideas[0].id)?.title == "theirs")
        app.handle(.char("u"))
        #expect(app.status.message?.text == "Undid done on “Idea 2” — Ctrl-R to redo")
        #expect(try fixture.repository.idea(id: ideas[1].id)?.isCompleted == false)
        app.handle(.char("u"))
        #expect(app.status.message?.text == "Nothing to undo")
        #expect(try fixture.repository.idea(id: ideas[0].id)?.title == "theirs", "the refused edit is never retried")
    }

    // MARK: Mouse

    @Test func aClickSelectsARowAndASecondClickEditsIt() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(5)
        let app = try fixture.app()
        app.handle(.mouse(MouseEvent(.press, row: app.listTop + 2, column: 10)))
        #expect(app.allIdeas.selectedIdea?.title == "Idea 3")
        #expect(app.form == nil)
        fixture.clock.advance(by: 1000)
        app.handle(.mouse(MouseEvent(.press, row: app.listTop + 2, column: 10)))
        #expect(app.form == nil, "a second click a second later is another single click")
        fixture.clock.advance(by: 200)
        app.handle(.mouse(MouseEvent(.press, row: app.listTop + 2, column: 10)))
        guard case .edit(let idea)? = app.form?.mode else { Issue.record("a double click edits"); return }
        #expect(idea.title == "Idea 3")
        app.handle(.mouse(MouseEvent(.press, row: app.listTop, column: 10)))
        #expect(app.allIdeas.selectedIdea?.title == "Idea 3", "the form takes no clicks")
    }

    @Test func aClickOnTheBoxTogglesDoneAndUUndoesIt() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(3)
        let app = try fixture.app()
        for column in [0, 4] {
            fixture.clock.advance(by: 1000)
            app.handle(.mouse(MouseEvent(.press, row: app.listTop + 1, column: column)))
            #expect(try fixture.repository.idea(id: ideas[1].id)?.isCompleted == false, "column \(column) is beside the box")
        }
        for (column, done) in [(1, true), (3, false), (2, true)] {
            fixture.clock.advance(by: 1000)
            app.handle(.mouse(MouseEvent(.press, row: app.listTop + 1, column: column)))
            #expect(try fixture.repository.idea(id: ideas[1].id)?.isCompleted == done)
            #expect(app.form == nil, "clicks on the box never open the form")
        }
        #expect(app.allIdeas.selectedIdea?.id == ideas[1].id)
        app.handle(.char("u"))
        #expect(try fixture.repository.idea(id: ideas[1].id)?.isCompleted == false)
    }

    @Test func twoClicksOnOneRowAreNoDoubleClickWhenTheWheelMovedAnotherIdeaThere() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(30)
        let app = try fixture.app()
        for _ in 0..<4 { app.handle(.mouse(MouseEvent(.wheelDown, row: 5, column: 5))) }
        let row = app.listTop + 1
        app.handle(.mouse(MouseEvent(.press, row: row, column: 10)))
        let first = app.allIdeas.selectedIdea
        app.handle(.mouse(MouseEvent(.wheelDown, row: 5, column: 5)))
        for _ in 0..<10 { app.handle(.mouse(MouseEvent(.wheelDown, row: 5, column: 5))) }
        fixture.clock.advance(by: 100)
        app.handle(.mouse(MouseEvent(.press, row: row, column: 10)))
        #expect(app.allIdeas.selectedIdea != first, "another idea is under the pointer now")
        #expect(app.form == nil, "so this is a click, not a double click")
    }

    @Test func aClickOnATabOpensItAndTheWheelMovesTheSelection() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(9, completedEvery: 3)
        let app = try fixture.app()
        let completed = try #require(app.tabBar.labels.first { $0.tab == .completed })
        app.handle(.mouse(MouseEvent(.press, row: 0, column: completed.column + 2)))
        #expect(app.tab == .completed)
        app.handle(.mouse(MouseEvent(.press, row: 0, column: 1)))
        #expect(app.tab == .completed, "the app's name is not a tab")
        app.handle(.char("1"))
        app.handle(.mouse(MouseEvent(.wheelDown, row: 5, column: 5)))
        #expect(app.allIdeas.selectedIndex == 3)
        app.handle(.mouse(MouseEvent(.wheelUp, row: 5, column: 5)))
        #expect(app.allIdeas.selectedIndex == 0)
    }

    // MARK: Suspend, help

    @Test func ctrlZAsksTheTerminalToSuspendAndNothingElse() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(2)
        let app = try fixture.app()
        app.handle(.ctrl("z"))
        #expect(app.wantsToSuspend)
        #expect(!app.wantsToQuit)
        app.resumed()
        #expect(!app.wantsToSuspend)
    }

    @Test func helpScrollsOnAShortScreenAndAnyOtherKeyClosesIt() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.resize(rows: 10, columns: 40)
        app.handle(.char("?"))
        let help = try #require(app.help)
        let hidden = help.lines.count - help.visibleRows
        #expect(hidden > 0)
        app.handle(.char("j"))
        #expect(app.help?.scroll == 1)
        app.handle(.char("G"))
        #expect(app.help?.scroll == hidden)
        app.handle(.pageDown)
        #expect(app.help?.scroll == hidden, "never past the end")
        app.handle(.char("g"))
        #expect(app.help?.scroll == 0)
        app.handle(.char("x"))
        #expect(!app.isShowingHelp)
        #expect(app.counts.completed == 0)
    }

    // MARK: Sync keys

    @Test func sWhileOfflineOrSignedOutSaysWhyNothingWasSent() async throws {
        let fixture = try ViewModelFixture()
        let cloud = try SimulatedCloud.inMemory(clock: fixture.clock.wallClock)
        let scheduler = ManualSyncScheduler(start: ViewModelFixture.start)
        let engine = SyncEngine(
            session: SyncSession(repository: fixture.repository, database: cloud.database(forDevice: "a"), clock: fixture.clock.wallClock),
            scheduler: scheduler)
        let hooks = SyncHooks(
            engine: engine, isNetworkOn: { try !cloud.status(device: "a").isOffline },
            setNetworkOn: { try cloud.network.setOffline(!$0, device: "a") })
        let app = AppModel(repository: fixture.repository, language: .english, clock: fixture.clock.wallClock, sync: hooks)
        try app.start()
        app.resize(rows: 24, columns: 80)
        engine.start()
        await scheduler.runDue()
        app.handle(.char("s"))
        #expect(app.status.message?.text == "Syncing now")

        app.handle(.char("o"))
        app.handle(.char("s"))
        #expect(app.status.message?.text == "Nothing sent: offline. Press o to go online.")
        app.handle(.char("o"))

        try cloud.network.signOut(device: "a")
        engine.syncNow()
        await scheduler.runDue()
        #expect(engine.status == .notSignedIn)
        app.handle(.char("s"))
        #expect(app.status.message?.text == "Nothing sent: not signed in (ideabox account sign-in).")
        engine.stop()
    }
}
