import IdeaBoxViewModels
import IdeaStore
import Testing

/// The app takes out deleted ideas' search entries (left for later by each delete) a few at a
/// tick, once nobody has typed for a second.
@Suite struct AppModelSearchUpkeepTests {
    @Test func ticksTakeOutLeftEntriesOnlyOnceTheKeysStop() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(30)
        let app = try fixture.app()
        _ = try fixture.otherProcess().deleteIdeas(ids: ideas.dropLast().map(\.id))
        #expect(try fixture.repository.leftSearchEntryCount() == 29)

        app.handle(.char("j"))
        fixture.clock.advance(by: 999)
        app.tick()
        #expect(try fixture.repository.leftSearchEntryCount() == 29, "a key came under a second ago")
        #expect(app.counts.all == 1, "the tick still saw the deletes")

        fixture.clock.advance(by: 1)
        app.tick()
        #expect(try fixture.repository.leftSearchEntryCount() == 29 - AppModelSearchUpkeepTests.perTick)
        app.tick()
        #expect(try fixture.repository.leftSearchEntryCount() == 0)
        app.tick()
        #expect(try fixture.repository.leftSearchEntryCount() == 0)
        #expect(try fixture.repository.count(.search("Idea")) == 1)
    }

    /// `AppModel.searchEntriesClearedPerTick`.
    private static let perTick = 24
}
