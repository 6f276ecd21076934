import Foundation
import IdeaBoxFoundation
import IdeaModel
import Testing

/// A version from a clock ahead of the remote's, ordered where the remote received it.
@Suite struct ArrivalRuleTests {
    private static let received = Timestamp(milliseconds: 1_000_000)

    private static func idea(created: Int64, stamps: [Int64]) -> (Idea, FieldStamps) {
        let orders = stamps.map { SyncOrder(timestamp: Timestamp(milliseconds: $0), deviceId: "fast") }
        let fieldStamps = FieldStamps(title: orders[0], description: orders[1], isCompleted: orders[2])
        let idea = Idea(
            id: UUID(), title: "t", createdAt: Timestamp(milliseconds: created),
            updatedAt: max(Timestamp(milliseconds: created), fieldStamps.latest.timestamp), deviceId: "fast")
        return (idea, fieldStamps)
    }

    @Test func aVersionWithinToleranceIsLeftAsItIs() {
        let (idea, stamps) = Self.idea(created: 990_000, stamps: [995_000, 990_000, 1_001_000])
        let (arrived, arrivedStamps) = ArrivalRule.arrived(idea, stamps, receivedAt: Self.received)
        #expect(arrived == idea && arrivedStamps == stamps)
    }

    @Test func aVersionFromTheFutureIsOrderedAtItsReceiptAndKeepsItsEarlierTimes() {
        let day: Int64 = 86_400_000
        let (idea, stamps) = Self.idea(created: 990_000, stamps: [1_000_000 + day, 995_000, 1_000_000 + day])
        let (arrived, arrivedStamps) = ArrivalRule.arrived(idea, stamps, receivedAt: Self.received)
        #expect(arrivedStamps.title.timestamp == Self.received && arrivedStamps.isCompleted.timestamp == Self.received)
        #expect(arrivedStamps.description.timestamp == Timestamp(milliseconds: 995_000), "a time before the receipt stays")
        #expect(arrivedStamps.title.deviceId == "fast")
        #expect(arrived.updatedAt == Self.received && arrived.createdAt == idea.createdAt)
        #expect(arrivedStamps.checked(for: arrived) == arrivedStamps, "still the idea's own stamps")
    }

    @Test func aCreationFromTheFutureComesBackToo() {
        let day: Int64 = 86_400_000
        let (idea, stamps) = Self.idea(created: 1_000_000 + day, stamps: [1_000_000 + day, 1_000_000 + day, 1_000_000 + day])
        let (arrived, _) = ArrivalRule.arrived(idea, stamps, receivedAt: Self.received)
        #expect(arrived.createdAt == Self.received && arrived.updatedAt == Self.received)
    }

    @Test func aDeleteFromTheFutureIsOrderedAtItsReceipt() {
        let late = SyncOrder(timestamp: Self.received.adding(milliseconds: ArrivalRule.tolerance + 1), deviceId: "fast")
        #expect(ArrivalRule.arrived(late, receivedAt: Self.received) == SyncOrder(timestamp: Self.received, deviceId: "fast"))
        let close = SyncOrder(timestamp: Self.received.adding(milliseconds: ArrivalRule.tolerance), deviceId: "fast")
        #expect(ArrivalRule.arrived(close, receivedAt: Self.received) == close)
    }
}
