import Dispatch
import IdeaBoxViewModels
import IdeaStore
import Synchronization
import Testing

/// A search with many hits shows a capped count at once and counts exactly beside the keys
/// (`backgroundReads`), whether the search was typed or a change (a sync's) re-reads it.
@Suite struct AppModelSearchCountTests {
    @Test func aSearchWithManyHitsCountsExactlyOnTheNextTick() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(1005)
        let app = try fixture.app()
        app.handle(.char("/"))
        app.type("idea")
        #expect(app.search.isCountCapped)
        #expect(app.searchMatchCount == 1000, "shown as 1000+ until the exact count")
        #expect(app.searchResults.totalCount == 1001, "the list holds the capped count as counted")
        #expect(app.tick())
        #expect(!app.search.isCountCapped)
        #expect(app.searchResults.totalCount == 1005)
        #expect(app.searchMatchCount == 1005)
        #expect(!app.tick())
    }

    /// The exact count runs beside the keys (`backgroundReads`): the capped count stays until
    /// it has come, and a count for a query typed over is never shown.
    @Test func theExactCountComesFromAReadBesideTheKeys() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(1005)
        _ = try fixture.repository.addIdea(title: "Idea with more")
        let app = try fixture.app()
        let queue = DispatchQueue(label: "counts")
        queue.suspend()
        let finished = Mutex(0)
        app.backgroundReads = .on(queue) { finished.withLock { $0 += 1 } }
        app.handle(.char("/"))
        app.type("idea")
        #expect(!app.tick(), "the count runs; nothing new to draw")
        #expect(app.search.isCountCapped)
        app.type(" ")
        #expect(app.search.isCountCapped, "a trailing space is trimmed: the same many hits")
        #expect(!app.tick())
        queue.resume()
        queue.sync {}
        #expect(finished.withLock { $0 } == 2)
        #expect(app.tick())
        #expect(!app.search.isCountCapped)
        #expect(app.searchMatchCount == 1006, "the count of the query as it is now")
        app.type("w")
        #expect(app.searchMatchCount == 1, "“idea w” has one hit: counted exactly at once")
        #expect(app.searchResults.visibleRows.map(\.idea.title) == ["Idea with more"])
    }

    /// A change while a search with many hits is open (a sync's, say) counts them beside the
    /// keys as typing does, not on the main loop; the list keeps its length and its place
    /// until the exact count has come.
    @Test func aChangeWithABigSearchOpenCountsBesideTheKeys() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(1005)
        let app = try fixture.app()
        app.handle(.char("/"))
        app.type("idea")
        #expect(app.tick())
        #expect(app.searchResults.totalCount == 1005)
        app.searchResults.select(1002)
        let selected = try #require(app.searchResults.selectedIdea)

        let queue = DispatchQueue(label: "counts")
        queue.suspend()
        app.backgroundReads = .on(queue) {}
        _ = try fixture.otherProcess().addIdea(title: "Idea from elsewhere")
        #expect(app.tick(), "the change shows")
        #expect(app.search.isCountCapped, "counted up to the cap only: the exact count is beside the keys")
        #expect(app.searchMatchCount == 1000)
        #expect(app.searchResults.totalCount == 1005, "the list keeps its length meanwhile")
        #expect(app.searchResults.selectedIdea?.id == selected.id, "and its place")

        queue.resume()
        queue.sync {}
        #expect(app.tick())
        #expect(!app.search.isCountCapped)
        #expect(app.searchMatchCount == 1006)
        #expect(app.searchResults.selectedIdea?.id == selected.id)
    }
}
