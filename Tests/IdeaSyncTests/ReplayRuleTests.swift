import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import IdeaSync
import Testing

/// The replay rule with plain values: what is older than the settled state, and what is news.
@Suite("ReplayRule")
struct ReplayRuleTests {
    private static let id = UUID(hexText: "8f2c1e9a-0000-4000-8000-000000000001")!

    private static func order(_ time: Int64, _ device: String = "a") -> SyncOrder {
        SyncOrder(timestamp: Timestamp(milliseconds: time), deviceId: device)
    }

    private static func saved(title: Int64, description: Int64, done: Int64) -> RemoteChange {
        let stamps = FieldStamps(title: order(title), description: order(description), isCompleted: order(done))
        let idea = Idea(
            id: id, title: "t", description: "", isCompleted: false, createdAt: Timestamp(milliseconds: 1),
            updatedAt: stamps.latest.timestamp, deviceId: "a", version: 1)
        return .saved(idea, stamps)
    }

    private static func deleted(_ time: Int64) -> RemoteChange {
        .deleted(ideaId: id, order: order(time))
    }

    @Test func aVersionOlderInEveryFieldIsAReplay() {
        let settled = Self.saved(title: 30, description: 20, done: 10)
        #expect(ReplayRule.isReplay(Self.saved(title: 5, description: 20, done: 10), settled: settled))
        #expect(ReplayRule.isReplay(Self.saved(title: 5, description: 5, done: 5), settled: settled))
    }

    @Test func theSameVersionIsNotAReplay() {
        let settled = Self.saved(title: 30, description: 20, done: 10)
        #expect(!ReplayRule.isReplay(settled, settled: settled))
    }

    @Test func aVersionNewerInOneFieldIsNewsEvenIfOlderOverall() {
        let settled = Self.saved(title: 30, description: 20, done: 10)
        #expect(!ReplayRule.isReplay(Self.saved(title: 5, description: 21, done: 10), settled: settled))
        #expect(!ReplayRule.isReplay(Self.saved(title: 30, description: 20, done: 10).withDevice("b"), settled: settled))
    }

    @Test func deletesAgainstIdeasCompareAsWholes() {
        let idea = Self.saved(title: 30, description: 20, done: 10)
        #expect(ReplayRule.isReplay(Self.deleted(25), settled: idea))
        #expect(!ReplayRule.isReplay(Self.deleted(31), settled: idea))
        #expect(ReplayRule.isReplay(idea, settled: Self.deleted(31)))
        #expect(!ReplayRule.isReplay(idea, settled: Self.deleted(25)))
        #expect(ReplayRule.isReplay(Self.deleted(25), settled: Self.deleted(31)))
        #expect(!ReplayRule.isReplay(Self.deleted(31), settled: Self.deleted(31)))
    }
}

extension RemoteChange {
    /// The same stamps, each by `device` instead (later in the order at the same times when
    /// `device` sorts after).
    fileprivate func withDevice(_ device: String) -> RemoteChange {
        guard case .saved(let idea, let stamps) = self else { return self }
        func moved(_ order: SyncOrder) -> SyncOrder { SyncOrder(timestamp: order.timestamp, deviceId: device) }
        return .saved(idea, FieldStamps(title: moved(stamps.title), description: moved(stamps.description), isCompleted: moved(stamps.isCompleted)))
    }
}
