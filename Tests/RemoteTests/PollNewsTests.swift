import ServerStore
import Testing

/// Which changes count for a long poll (issue 61), without a database.
@Suite struct PollNewsTests {
    @Test("A device's own changes are no news to its poll; another's, or one that named no device, are; a poll of no device counts every change")
    func ownChangesAreNoNews() {
        #expect(!PollNews.isNews(writers: [], to: "phone"))
        #expect(!PollNews.isNews(writers: ["phone"], to: "phone"))
        #expect(PollNews.isNews(writers: ["laptop"], to: "phone"))
        #expect(PollNews.isNews(writers: [nil], to: "phone"))
        #expect(PollNews.isNews(writers: ["phone", nil], to: "phone"))
        #expect(!PollNews.isNews(writers: [], to: nil))
        #expect(PollNews.isNews(writers: ["phone"], to: nil))
        #expect(PollNews.isNews(writers: [nil], to: nil))
        // Two writers read are enough: of two different ones, one is not the poll's own.
        #expect(PollNews.writersNeeded == 2)
    }
}
