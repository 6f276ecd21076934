import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import Testing

/// `S`: the order of All Ideas and Completed, remembered for the profile.
@Suite struct AppModelOrderTests {
    /// Three ideas created b, a, c, then a changed last.
    @discardableResult
    private func threeIdeas(_ fixture: ViewModelFixture) throws -> [Idea] {
        var ideas: [Idea] = []
        for title in ["Banana", "apple", "Cherry"] {
            fixture.clock.advance(by: 1000)
            ideas.append(try fixture.repository.addIdea(title: title, isCompleted: true))
        }
        fixture.clock.advance(by: 1000)
        ideas[1] = try fixture.repository.editIdea(id: ideas[1].id, IdeaChanges(description: "changed"))
        return ideas
    }

    @Test func sCyclesCreatedUpdatedTitleOnBothListsAndSaysWhich() throws {
        let fixture = try ViewModelFixture()
        try threeIdeas(fixture)
        let app = try fixture.app()
        let titles = { (list: IdeaListModel) in list.visibleRows.map(\.idea.title) }
        #expect(app.listOrder == .newestFirst)
        #expect(titles(app.allIdeas) == ["Cherry", "apple", "Banana"])
        app.handle(.char("S"))
        #expect(app.listOrder == IdeaOrder(.updated))
        #expect(titles(app.allIdeas) == ["apple", "Cherry", "Banana"])
        #expect(titles(app.completedIdeas) == ["apple", "Cherry", "Banana"])
        #expect(app.status.message?.text == "Sorted: last changed first (S for the next order)")
        app.handle(.char("S"))
        #expect(titles(app.allIdeas) == ["apple", "Banana", "Cherry"], "case-insensitive")
        app.handle(.char("S"))
        #expect(app.listOrder == .newestFirst)
    }

    @Test func theOrderIsRememberedForTheProfile() throws {
        let fixture = try ViewModelFixture()
        try threeIdeas(fixture)
        let app = try fixture.app()
        app.handle(.char("S"))
        app.handle(.char("S"))
        let next = try fixture.app()
        #expect(next.listOrder == IdeaOrder(.title))
        #expect(next.allIdeas.visibleRows.map(\.idea.title) == ["apple", "Banana", "Cherry"])
    }

    @Test func theSettingsGiveTheOrderUntilThePersonPicksOne() throws {
        let fixture = try ViewModelFixture()
        try threeIdeas(fixture)
        let app = AppModel(
            repository: fixture.repository, language: .english, clock: fixture.clock.wallClock,
            settings: AppSettings(sortOrder: IdeaOrder(.title, isReversed: true)))
        try app.start()
        #expect(app.allIdeas.visibleRows.map(\.idea.title) == ["Cherry", "Banana", "apple"])
        try fixture.repository.setListOrder(IdeaOrder(.updated))
        try app.start()
        #expect(app.listOrder == IdeaOrder(.updated))
    }

    @Test func onTheSearchTabSSaysSearchKeepsNewestFirst() throws {
        let fixture = try ViewModelFixture()
        try threeIdeas(fixture)
        let app = try fixture.app()
        app.handle(.char("3"))
        app.handle(.escape)
        app.handle(.char("S"))
        #expect(app.listOrder == .newestFirst)
        #expect(app.status.message?.text == "Search results are always newest first; S sorts All Ideas and Completed.")
    }
}
