import Foundation
import IdeaModel
import Testing

/// The seven ideas a new data directory starts with.
@Suite struct SampleIdeasTests {
    @Test("Seven valid samples per language", arguments: Language.allCases)
    func sevenValidSamples(language: Language) throws {
        let ideas = SampleIdeas.ideas(in: language)
        #expect(ideas.count == 7)
        for idea in ideas {
            #expect(try idea.validated() == idea, "samples are already normalized: \(idea.title)")
            #expect(idea.version == 0)
            #expect(idea.createdAt == idea.updatedAt)
            #expect(idea.lastSyncedAt == nil)
            #expect(idea.deviceId == "sample-\(language.rawValue)")
        }
        #expect(ideas.filter { $0.isCompleted }.count == 2)
    }

    @Test func sameIdsAndTimesInEveryLanguage() {
        let english = SampleIdeas.ideas(in: .english)
        let chinese = SampleIdeas.ideas(in: .traditionalChinese)
        #expect(english.map(\.id) == chinese.map(\.id))
        #expect(english.map(\.createdAt) == chinese.map(\.createdAt))
        #expect(english.map(\.isCompleted) == chinese.map(\.isCompleted))
        #expect(english.map(\.title) != chinese.map(\.title))
        #expect(english.map(\.deviceId) != chinese.map(\.deviceId))
    }

    @Test func fixedIdsAndTimestamps() {
        let ideas = SampleIdeas.ideas(in: .english)
        #expect(ideas.map(\.idString) == (1...7).map { "1dea000\($0)-5a3e-4000-8000-5a3e1dea5a3e" })
        #expect(ideas.map(\.createdAt.iso8601) == [
            "2025-11-04T09:00:00.000Z", "2025-11-04T10:00:00.000Z", "2025-11-04T11:00:00.000Z",
            "2025-11-04T12:00:00.000Z", "2025-11-04T13:00:00.000Z", "2025-11-04T14:00:00.000Z",
            "2025-11-04T15:00:00.000Z",
        ])
        #expect(ideas.first?.title == "Learn SwiftData")
        #expect(SampleIdeas.ideas(in: .traditionalChinese).first?.title == "學習 SwiftData")
    }

    @Test func repeatedCallsGiveTheSameIdeas() {
        for language in Language.allCases {
            #expect(SampleIdeas.ideas(in: language) == SampleIdeas.ideas(in: language))
        }
    }

    @Test func shortIdsAreDistinct() {
        let shortIds = SampleIdeas.ideas(in: .english).map(\.shortId)
        #expect(Set(shortIds).count == 7)
        #expect(shortIds.allSatisfy { $0.count == 8 })
    }
}
