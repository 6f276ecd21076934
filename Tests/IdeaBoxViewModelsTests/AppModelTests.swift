import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import IdeaSync
import Synchronization
import Testing

/// The whole app driven by keys and ticks, over a real in-memory store.
@Suite struct AppModelTests {
    // MARK: Tabs

    @Test func startsOnAllIdeasWithCounts() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(9, completedEvery: 3)
        let app = try fixture.app()
        #expect(app.tab == .all)
        #expect(app.counts == IdeaCounts(all: 9, completed: 3))
        #expect(app.allIdeas.totalCount == 9)
        #expect(app.completedIdeas.totalCount == 3)
        #expect(app.currentList === app.allIdeas)
        #expect(app.allIdeas.selectedIdea?.title == "Idea 9")
        #expect(app.form == nil)
        #expect(!app.isShowingHelp)
        #expect(!app.wantsToQuit)
        #expect(app.status.sync.state == "Local only")
        #expect(app.status.pendingCount == 9)
    }

    @Test func numberKeysOpenTabs() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("2"))
        #expect(app.tab == .completed)
        #expect(app.currentList === app.completedIdeas)
        app.handle(.char("3"))
        #expect(app.tab == .search)
        #expect(app.currentList === app.searchResults)
        #expect(app.search.isFocused, "an empty search starts in its field")
        app.handle(.escape)
        #expect(!app.search.isFocused)
        app.handle(.char("1"))
        #expect(app.tab == .all)
    }

    @Test func tabAndShiftTabCycleTheTabs() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.tab)
        #expect(app.tab == .completed)
        app.handle(.tab)
        #expect(app.tab == .search)
        #expect(app.search.isFocused)
        app.handle(.tab)
        #expect(app.tab == .all, "Tab leaves the search field for the next tab")
        #expect(!app.search.isFocused)
        app.handle(.backTab)
        #expect(app.tab == .search)
        app.handle(.backTab)
        #expect(app.tab == .completed)
        app.handle(.backTab)
        #expect(app.tab == .all)
    }

    @Test func chineseLabelsUnderTraditionalChinese() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app(language: .traditionalChinese)
        #expect(app.text.language == .traditionalChinese)
        #expect(AppModel.Tab.allCases.map(app.text.tabLabel) == ["全部靈感", "已完成", "搜尋"])
        #expect(app.status.sync.state == "僅限本機")
        let english = try fixture.app(language: .english)
        #expect(AppModel.Tab.allCases.map(english.text.tabLabel) == ["All Ideas", "Completed", "Search"])
    }

    // MARK: Moving

    @Test func movementKeysMoveTheSelection() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(100)
        let app = try fixture.app()
        let list = app.allIdeas
        app.handle(.char("j"))
        app.handle(.down)
        #expect(list.selectedIndex == 2)
        app.handle(.char("k"))
        #expect(list.selectedIndex == 1)
        app.handle(.up)
        app.handle(.up)
        #expect(list.selectedIndex == 0)
        app.handle(.char("G"))
        #expect(list.selectedIndex == 99)
        #expect(list.selectedIdea?.title == "Idea 1")
        app.handle(.char("g"))
        #expect(list.selectedIndex == 0)
        app.handle(.end)
        #expect(list.selectedIndex == 99)
        app.handle(.home)
        app.handle(.pageDown)
        #expect(list.selectedIndex == app.listHeight - 1)
        app.handle(.pageUp)
        #expect(list.selectedIndex == 0)
    }

    // MARK: New, edit, toggle

    @Test func newIdeaIsAddedAtTheTopSelectedAndStored() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(30)
        let app = try fixture.app()
        app.handle(.char("2"))
        app.handle(.char("n"))
        let form = try #require(app.form)
        #expect(form.mode == .new)
        #expect(form.descriptionWrapWidth == AppModel.formTextWidth(columns: 80))
        app.type("新的靈感 👍🏽")
        app.handle(.tab)
        app.handle(.paste("first line\nsecond line"))
        app.handle(.ctrl("s"))

        #expect(app.form == nil)
        #expect(app.tab == .all)
        #expect(app.counts.all == 31)
        let selected = try #require(app.allIdeas.selectedIdea)
        #expect(app.allIdeas.selectedIndex == 0)
        #expect(selected.title == "新的靈感 👍🏽")
        #expect(selected.description == "first line\nsecond line")
        #expect(app.allIdeas.visibleRows.first?.idea == selected)
        #expect(try fixture.repository.idea(id: selected.id) == selected)
        #expect(app.status.message?.text == "Added “新的靈感 👍🏽”")
        #expect(app.status.message?.tone == .success)
        #expect(app.status.pendingCount == 31)
    }

    @Test func newIdeaIsSelectedEvenWhenTheSelectionWasFarDown() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(500)
        let app = try fixture.app()
        app.handle(.char("G"))
        app.handle(.char("n"))
        app.type("Top")
        app.handle(.f(2))
        #expect(app.allIdeas.selectedIndex == 0)
        #expect(app.allIdeas.scrollTop == 0)
        #expect(app.allIdeas.selectedIdea?.title == "Top")
    }

    @Test func anInvalidNewIdeaStaysInTheForm() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("n"))
        app.handle(.ctrl("s"))
        #expect(app.form?.visibleError == .emptyTitle)
        #expect(app.counts.all == 0)
        app.handle(.escape)
        #expect(app.form == nil, "nothing typed: Esc closes without asking")
        #expect(app.counts.all == 0)
    }

    @Test func escOnADirtyFormAsksBeforeDiscarding() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("n"))
        app.type("draft")
        app.handle(.escape)
        #expect(app.form?.isConfirmingDiscard == true)
        app.handle(.char("n"))
        #expect(app.form?.isConfirmingDiscard == false)
        #expect(app.form?.title.text == "draft")
        app.handle(.escape)
        app.handle(.char("y"))
        #expect(app.form == nil)
        #expect(app.counts.all == 0)
    }

    @Test("Enter and e edit the selected idea", arguments: [Key.enter, Key.char("e")])
    func editsTheSelectedIdea(key: Key) throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(5)
        let app = try fixture.app()
        app.handle(.down)
        app.handle(key)
        let form = try #require(app.form)
        #expect(form.mode == .edit(ideas[3]))
        #expect(form.title.text == "Idea 4")
        app.type(" edited")
        app.handle(.ctrl("s"))
        #expect(app.form == nil)
        #expect(try fixture.repository.idea(id: ideas[3].id)?.title == "Idea 4 edited")
        #expect(app.allIdeas.selectedIdea?.title == "Idea 4 edited")
        #expect(app.allIdeas.selectedIndex == 1)
        #expect(app.status.message?.text == "Saved “Idea 4 edited”")
    }

    @Test func editOnAnEmptyListDoesNothing() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.enter)
        app.handle(.char("e"))
        app.handle(.char("x"))
        app.handle(.char("d"))
        #expect(app.form == nil)
        #expect(app.deleteQuestion == nil)
        #expect(app.status.message == nil)
    }

    @Test("Space and x toggle completed at once", arguments: [Key.char(" "), Key.char("x")])
    func togglesCompleted(key: Key) throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(3)
        let app = try fixture.app()
        app.handle(key)
        #expect(app.counts.completed == 1)
        #expect(app.completedIdeas.totalCount == 1)
        #expect(try fixture.repository.idea(id: ideas[2].id)?.isCompleted == true)
        #expect(app.allIdeas.selectedIdea?.isCompleted == true)
        #expect(app.status.message?.text == "Marked done: “Idea 3”")
        app.handle(key)
        #expect(app.counts.completed == 0)
        #expect(app.status.message?.text == "Marked not done: “Idea 3”")
        #expect(try fixture.repository.idea(id: ideas[2].id)?.isCompleted == false)
    }

    @Test func togglingOnTheCompletedTabTakesTheIdeaOffIt() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(6, completedEvery: 2)
        let app = try fixture.app()
        app.handle(.char("2"))
        #expect(app.completedIdeas.visibleRows.map(\.idea.title) == ["Idea 6", "Idea 4", "Idea 2"])
        app.handle(.char("x"))
        #expect(app.counts.completed == 2)
        #expect(app.completedIdeas.visibleRows.map(\.idea.title) == ["Idea 4", "Idea 2"])
        #expect(app.completedIdeas.selectedIdea?.title == "Idea 4")
    }

    // MARK: Delete and undo

    @Test func deleteAsksAndNKeepsTheIdea() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(2)
        let app = try fixture.app()
        app.handle(.char("d"))
        #expect(app.deleteQuestion == .idea(ideas[1]))
        app.handle(.char("n"))
        #expect(app.deleteQuestion == nil)
        #expect(app.counts.all == 2)
        app.handle(.delete)
        #expect(app.deleteQuestion == .idea(ideas[1]))
        app.handle(.char("q"))
        #expect(!app.wantsToQuit, "the answer to the question is only an answer")
        #expect(app.counts.all == 2)
    }

    @Test func deleteYesThenUndoRestoresTheSameIdea() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(3)
        let app = try fixture.app()
        app.handle(.down)
        app.handle(.char("d"))
        app.handle(.char("y"))
        #expect(app.counts.all == 2)
        #expect(try fixture.repository.idea(id: ideas[1].id) == nil)
        #expect(app.allIdeas.visibleRows.map(\.idea.title) == ["Idea 3", "Idea 1"])
        #expect(app.status.message?.text == "Deleted “Idea 2” — u to undo")

        app.handle(.char("u"))
        #expect(app.counts.all == 3)
        let restored = try #require(try fixture.repository.idea(id: ideas[1].id))
        #expect(restored.title == "Idea 2")
        #expect(restored.createdAt == ideas[1].createdAt)
        #expect(app.allIdeas.visibleRows.map(\.idea.id) == [ideas[2].id, ideas[1].id, ideas[0].id])
        #expect(app.status.message?.text == "Undid delete of “Idea 2” — Ctrl-R to redo")

        app.handle(.char("u"))
        #expect(app.status.message?.text == "Nothing to undo")
        #expect(app.counts.all == 3)
    }

    @Test func undoWithNothingDeletedSaysSo() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app(language: .traditionalChinese)
        app.handle(.char("u"))
        #expect(app.status.message?.text == "沒有可以復原的動作")
    }

    // MARK: Search

    @Test func slashFocusesTheSearchFieldAndTypingSearches() throws {
        let fixture = try ViewModelFixture()
        _ = try fixture.repository.addIdea(title: "靈光一閃")
        _ = try fixture.repository.addIdea(title: "Something", description: "需要靈感的時候")
        _ = try fixture.repository.addIdea(title: "靈感筆記")
        _ = try fixture.repository.addIdea(title: "Unrelated")
        let app = try fixture.app()
        app.handle(.char("/"))
        #expect(app.tab == .search)
        #expect(app.search.isFocused)

        app.type("靈")
        #expect(app.search.query.text == "靈")
        #expect(app.searchResults.totalCount == 3)
        #expect(app.searchResults.visibleRows.map(\.idea.title) == ["靈感筆記", "Something", "靈光一閃"])

        app.type("感")
        #expect(app.searchResults.filter == .search("靈感"))
        #expect(app.searchResults.visibleRows.map(\.idea.title) == ["靈感筆記", "Something"])

        app.handle(.backspace)
        app.handle(.backspace)
        #expect(app.searchResults.totalCount == 0)
        app.type("THING")
        #expect(app.searchResults.visibleRows.map(\.idea.title) == ["Something"], "case-insensitive")
    }

    @Test("Esc, Enter and Down leave the search field for the results", arguments: [Key.escape, Key.enter, Key.down])
    func leavingTheSearchField(key: Key) throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(12)
        let app = try fixture.app()
        app.handle(.char("/"))
        app.type("Idea 1")
        #expect(app.searchResults.totalCount == 4)
        app.handle(key)
        #expect(!app.search.isFocused)
        #expect(app.tab == .search)
        #expect(app.search.query.text == "Idea 1")
        app.handle(.char("j"))
        #expect(app.searchResults.selectedIdea?.title == "Idea 11")
        app.handle(.char("/"))
        #expect(app.search.isFocused, "/ goes back to the field with the query kept")
        app.type("0")
        #expect(app.searchResults.visibleRows.map(\.idea.title) == ["Idea 10"])
    }

    @Test func keysThatMeanSomethingElseAreTypedInTheSearchField() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("/"))
        app.type("q1n?x d")
        #expect(app.search.query.text == "q1n?x d")
        #expect(!app.wantsToQuit)
        #expect(app.tab == .search)
        #expect(app.form == nil)
        #expect(!app.isShowingHelp)
        app.handle(.ctrl("u"))
        #expect(app.search.query.text == "")
        app.handle(.paste("pasted\nquery"))
        #expect(app.search.query.text == "pasted query")
    }

    @Test("The search field edits as the form's fields do: Ctrl-B and Ctrl-F move, Ctrl-D deletes under the cursor and searches again")
    func theSearchFieldTakesTheFormsEditingKeys() throws {
        let fixture = try ViewModelFixture()
        _ = try fixture.repository.addIdea(title: "靈感筆記")
        _ = try fixture.repository.addIdea(title: "靈光一閃")
        let app = try fixture.app()
        app.handle(.char("/"))
        app.type("靈x感")
        #expect(app.searchResults.totalCount == 0)
        app.handle(.ctrl("b"))
        app.handle(.ctrl("b"))
        app.handle(.ctrl("d"))
        #expect(app.search.query.text == "靈感")
        #expect(app.searchResults.visibleRows.map(\.idea.title) == ["靈感筆記"])
        app.handle(.ctrl("f"))
        app.type("筆")
        #expect(app.search.query.text == "靈感筆")
        #expect(app.search.isFocused)
    }

    @Test func anIdeaChangedElsewhereShowsInTheSearchResults() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(3)
        let app = try fixture.app()
        app.handle(.char("/"))
        app.type("靈感")
        #expect(app.searchResults.totalCount == 0)
        _ = try fixture.otherProcess().addIdea(title: "另一個靈感")
        #expect(app.tick())
        #expect(app.searchResults.visibleRows.map(\.idea.title) == ["另一個靈感"])
    }

    // MARK: Alt, help, quit

    @Test func altXIsEscThenX() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(2)
        let app = try fixture.app()
        app.handle(.char("/"))
        app.type("Idea 2")
        app.handle(.alt("x"))
        #expect(!app.search.isFocused, "the Esc left the field")
        #expect(app.search.query.text == "Idea 2", "the x wasn't typed")
        #expect(app.counts.completed == 1, "the x toggled the selected result")
        #expect(try fixture.repository.ideas(.completed, limit: 10).map(\.title) == ["Idea 2"])
    }

    @Test func questionMarkOpensHelpAndAnyKeyClosesIt() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(2)
        let app = try fixture.app()
        app.handle(.char("?"))
        #expect(app.isShowingHelp)
        app.handle(.char("q"))
        #expect(!app.isShowingHelp)
        #expect(!app.wantsToQuit, "the closing key does nothing else")
        app.handle(.f(1))
        #expect(app.isShowingHelp)
        app.handle(.char("x"))
        #expect(!app.isShowingHelp)
        #expect(app.counts.completed == 0)
    }

    @Test("q and Ctrl-C quit", arguments: [Key.char("q"), Key.ctrl("c")])
    func quits(key: Key) throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(key)
        #expect(app.wantsToQuit)
    }

    @Test func ctrlCQuitsFromTheSearchField() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("/"))
        app.handle(.ctrl("c"))
        #expect(app.wantsToQuit)
    }

    @Test func syncKeysSayThereIsNoSyncYet() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("s"))
        #expect(app.status.message?.text == "Sync isn't set up: ideas stay on this device")
    }

    // MARK: Other processes

    @Test func aChangeThroughAnotherRepositoryAppearsOnTheNextTick() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(3)
        let app = try fixture.app()
        #expect(!app.tick(), "nothing changed")
        let other = fixture.otherProcess()
        let added = try other.addIdea(title: "From elsewhere", isCompleted: true)
        #expect(app.counts.all == 3)
        #expect(app.tick())
        #expect(app.counts == IdeaCounts(all: 4, completed: 1))
        #expect(app.allIdeas.visibleRows.first?.idea == added)
        #expect(app.completedIdeas.visibleRows.map(\.idea) == [added])
        #expect(!app.tick())

        _ = try other.deleteIdea(id: added.id)
        #expect(app.tick())
        #expect(app.counts == IdeaCounts(all: 3, completed: 0))
    }

    @Test func aDatabaseOpenedTwiceSeesTheOthersChangesOnTick() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ideabox-viewmodels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let firstLaunch = IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english)
        let clock = ManualClock(start: ViewModelFixture.start)
        let mine = try IdeaDatabase.open(directory: directory, firstLaunch: firstLaunch, ids: .counting())
        let theirs = try IdeaDatabase.open(directory: directory, firstLaunch: firstLaunch, ids: .counting(from: 500))
        let app = AppModel(
            repository: mine.repository(clock: clock.wallClock, ids: .counting()), language: .english,
            clock: clock.wallClock)
        try app.start()
        let other = theirs.repository(clock: clock.wallClock, ids: .counting(from: 1_000_000))
        let idea = try other.addIdea(title: "Written by the other process")
        #expect(app.tick())
        #expect(app.allIdeas.selectedIdea == idea)
        _ = try other.toggleCompleted(id: idea.id)
        #expect(app.tick())
        #expect(app.counts.completed == 1)
    }

    @Test("A store error shows in the user's language", arguments: Language.allCases)
    func storeErrorInTheStatusBar(language: Language) throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(2)
        let app = try fixture.app(language: language)
        _ = try fixture.otherProcess().deleteIdea(id: ideas[1].id)
        app.handle(.char("x"))
        let message = try #require(app.status.message)
        #expect(message.tone == .error)
        #expect(message.text == IdeaStoreError.unknownId(ideas[1].idString).message(in: language))
        #expect(message.text.contains(language == .english ? "No idea has the id" : "找不到識別碼"))
    }

    @Test func savingAnEditOfAnIdeaDeletedElsewhereOffersToSaveItAsANewIdea() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(1)
        let app = try fixture.app(language: .traditionalChinese)
        app.handle(.char("e"))
        app.type("!")
        app.handle(.tab)
        app.type(" 描述")
        _ = try fixture.otherProcess().deleteIdea(id: ideas[0].id)
        app.handle(.ctrl("s"))
        #expect(app.form?.isOfferingToSaveAsNew == true, "the form says so and asks")
        #expect(app.status.message == nil, "no raw store error")
        #expect(app.form?.title.text == "Idea 1!", "what was typed isn't lost")

        app.handle(.char("n"))
        #expect(app.form?.isOfferingToSaveAsNew == false, "n goes back to the form, text intact")
        #expect(app.form?.title.text == "Idea 1!")
        app.handle(.ctrl("s"))
        app.handle(.char("y"))
        #expect(app.form == nil)
        let saved = try fixture.repository.ideas(.all, limit: 10)
        #expect(saved.map(\.title) == ["Idea 1!"])
        #expect(saved.first?.id != ideas[0].id, "a new idea")
        #expect(saved.first?.description.hasSuffix(" 描述") == true)
        #expect(app.status.message?.text == "已存成新的靈感：「Idea 1!」")
    }

    // MARK: Screen and status

    @Test func resizeLaysOutTheListsAndTellsWhenTooSmall() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(50)
        let app = try fixture.app()
        app.resize(rows: 30, columns: 100)
        #expect(app.size.rows == 30)
        #expect(app.size.columns == 100)
        #expect(app.allIdeas.viewportHeight == 26)
        #expect(app.completedIdeas.viewportHeight == 26)
        #expect(app.searchResults.viewportHeight == 24)
        #expect(app.listHeight == 26)
        #expect(!app.isTooSmall)

        app.handle(.char("G"))
        app.resize(rows: 12, columns: 60)
        #expect(app.allIdeas.viewportHeight == 8)
        #expect(app.allIdeas.visibleRows.count == 8)
        #expect(app.allIdeas.visibleRows.contains { $0.index == app.allIdeas.selectedIndex })
        #expect(!app.isTooSmall)

        app.resize(rows: 10, columns: 40)
        #expect(!app.isTooSmall)
        app.resize(rows: 9, columns: 80)
        #expect(app.isTooSmall)
        app.resize(rows: 24, columns: 39)
        #expect(app.isTooSmall)
        app.resize(rows: 3, columns: 10)
        #expect(app.isTooSmall)
        #expect(app.allIdeas.viewportHeight >= 1)
    }

    @Test func resizeWithAFormOpenRewrapsTheDescription() throws {
        let fixture = try ViewModelFixture()
        let app = try fixture.app()
        app.handle(.char("n"))
        app.resize(rows: 24, columns: 50)
        #expect(app.form?.descriptionWrapWidth == AppModel.formTextWidth(columns: 50))
        #expect(AppModel.formTextWidth(columns: 50) == 44)
        #expect(AppModel.formTextWidth(columns: 300) == 94)
        #expect(AppModel.formTextWidth(columns: 5) == 10)
    }

    @Test func messagesExpireAfterFourSeconds() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(1)
        let app = try fixture.app()
        app.handle(.char("x"))
        #expect(app.status.message != nil)
        fixture.clock.advance(by: 3999)
        #expect(!app.tick())
        #expect(app.status.message != nil)
        fixture.clock.advance(by: 2)
        #expect(app.tick())
        #expect(app.status.message == nil)
        #expect(!app.tick())
    }

    // MARK: Clock

    /// This machine's clock a day ahead of the remote's: after the first sync the bar says so,
    /// once a run; later syncs leave the bar to other news.
    @Test func aClockADayAheadIsToldOnceAfterASync() async throws {
        let fixture = try ViewModelFixture()
        let remoteClock = ManualClock(start: ViewModelFixture.start.adding(milliseconds: -86_400_000))
        let cloud = try SimulatedCloud.inMemory(clock: remoteClock.wallClock)
        let scheduler = ManualSyncScheduler(start: ViewModelFixture.start)
        let engine = SyncEngine(
            session: SyncSession(repository: fixture.repository, database: cloud.database(forDevice: "a"), clock: fixture.clock.wallClock),
            scheduler: scheduler)
        let hooks = SyncHooks(engine: engine, isNetworkOn: { true }, setNetworkOn: { _ in })
        let app = AppModel(repository: fixture.repository, language: .english, clock: fixture.clock.wallClock, sync: hooks)
        try app.start()
        app.resize(rows: 24, columns: 80)
        _ = try fixture.repository.addIdea(title: "sent under a fast clock")
        engine.start()
        await scheduler.runDue()
        app.tick()
        #expect(app.status.message?.text == app.text.clockOff(aheadBy: 86_400_000))
        #expect(app.status.message?.text.contains("1 d") == true, "\(String(describing: app.status.message))")

        fixture.clock.advance(by: 4_000)  // a message's lifetime
        app.tick()
        #expect(app.status.message == nil)
        _ = try fixture.repository.addIdea(title: "another")
        await scheduler.advance(by: SyncEngine.periodicMilliseconds)
        await scheduler.runDue()
        app.tick()
        #expect(app.status.message == nil, "told once a run")
        engine.stop()
    }

    // MARK: Library

    @Test func theLibrarysPendingFilesShowInTheStatusBarAndLThenYOverwritesTheRemoteLibrary() async throws {
        let fixture = try ViewModelFixture()
        let cloud = try SimulatedCloud.inMemory(clock: fixture.clock.wallClock)
        let scheduler = ManualSyncScheduler(start: ViewModelFixture.start)
        let library = LibraryDouble()
        let engine = SyncEngine(
            session: SyncSession(repository: fixture.repository, database: cloud.database(forDevice: "a"), clock: fixture.clock.wallClock),
            companions: [library], scheduler: scheduler)
        let hooks = SyncHooks(engine: engine, isNetworkOn: { true }, setNetworkOn: { _ in })
        let app = AppModel(repository: fixture.repository, language: .english, clock: fixture.clock.wallClock, sync: hooks)
        try app.start()
        app.resize(rows: 24, columns: 80)
        engine.start()
        await scheduler.runDue()
        app.tick()
        #expect(app.status.companionsPending.isEmpty)

        library.pending.withLock { $0 = 3 }
        try cloud.network.setOffline(true, device: "a")
        await scheduler.advance(by: SyncEngine.periodicMilliseconds)
        #expect(app.tick())
        #expect(app.status.companionsPending == [CompanionPending(name: "library", count: 3)])
        #expect(app.text.pending(app.status.companionsPending[0]) == "library: 3 pending")
        try cloud.network.setOffline(false, device: "a")

        app.handle(.char("l"))
        app.handle(.char("L"))
        #expect(app.syncLog?.confirmingOverwrite == .companion("library"))
        app.handle(.char("n"))
        #expect(app.syncLog?.confirmingOverwrite == nil)
        await scheduler.runDue()
        #expect(library.overwrites.withLock { $0 } == 0, "n asks for nothing")
        app.handle(.char("L"))
        app.handle(.char("y"))
        #expect(app.status.message?.text == app.text.libraryOverwriteRequested)
        await scheduler.runDue()
        #expect(library.overwrites.withLock { $0 } == 1)
        app.tick()
        #expect(app.status.companionsPending.isEmpty)
        engine.stop()
    }
}

/// A library folder as the sync engine sees it: changes waiting, and overwrites asked for.
private final class LibraryDouble: SyncCompanion {
    let pending = Mutex(0)
    let overwrites = Mutex(0)

    var name: String { "library" }
    var zone: RecordZoneID { RecordZoneID(zoneName: "RawLibraryZone") }
    func sync() throws { pending.withLock { $0 = 0 } }
    func pendingCount() -> Int? { pending.withLock { $0 } }
    func overwriteRemote() throws {
        overwrites.withLock { $0 += 1 }
        pending.withLock { $0 = 0 }
    }
}
