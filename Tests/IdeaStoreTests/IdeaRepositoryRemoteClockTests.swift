import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// This device's clock against the remote's, in the store: measured, followed by new stamps,
/// and times from the future brought back.
@Suite struct IdeaRepositoryRemoteClockTests {
    private static let day: Int64 = 86_400_000

    @Test func aMeasuredOffsetMovesEveryNewStampToTheRemotesTime() throws {
        let store = try StoreFixture()
        try store.repository.noteRemoteTime(StoreFixture.start.adding(milliseconds: -Self.day), at: StoreFixture.start)
        let idea = try store.repository.addIdea(title: "stamped by the remote's clock")
        #expect(idea.createdAt == StoreFixture.start.adding(milliseconds: -Self.day))
        #expect(try store.repository.remoteClockEstimate()?.offset == -Self.day)
    }

    @Test func aFetchOnlyEverShowsThisClockBehind() throws {
        let store = try StoreFixture()
        try store.repository.noteRemoteTime(StoreFixture.start.adding(milliseconds: -Self.day), at: StoreFixture.start, isLowerBound: true)
        #expect(try store.repository.remoteClockEstimate() == nil, "another device's old save says nothing of this clock")
        try store.repository.noteRemoteTime(StoreFixture.start.adding(milliseconds: 60_000), at: StoreFixture.start, isLowerBound: true)
        #expect(try store.repository.remoteClockEstimate()?.offset == 60_000)
    }

    /// Times an older IdeaBox adopted from a clock a day fast, settled with the remote: brought
    /// back to the remote's present, after everything else here, and queued to be sent again.
    @Test func futureTimesAreBroughtBackOnlyByTheRemotesTime() throws {
        let store = try StoreFixture()
        let kept = try store.repository.addIdea(title: "made now")
        let future = try store.repository.addIdea(title: "from the future")
        try store.repository.acknowledge(try store.repository.pendingChanges(limit: 10), syncedAt: store.clock.now)
        let tomorrow = StoreFixture.start.adding(milliseconds: Self.day)
        try store.database.writer.write { db in
            try db.execute(
                sql: "UPDATE idea SET createdAt = ?1, updatedAt = ?1, titleAt = ?1, descriptionAt = ?1, completedAt = ?1 WHERE id = ?2",
                arguments: [tomorrow, future.idString])
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'highestTimestamp'", arguments: [tomorrow])
        }
        #expect(try store.repository.bringBackFutureTimes() == 0, "without the remote's time nothing is known to be in the future")

        try store.repository.noteRemoteTime(store.clock.now, at: store.clock.now)
        #expect(try store.repository.bringBackFutureTimes() == 1)
        let brought = try #require(try store.repository.idea(id: future.id))
        #expect(brought.updatedAt > kept.updatedAt && brought.updatedAt <= store.clock.now.adding(milliseconds: 1))
        #expect(brought.createdAt <= brought.updatedAt)
        #expect(try store.outbox().map(\.ideaId) == [future.idString])
        let next = try store.repository.addIdea(title: "after it")
        #expect(next.createdAt > brought.updatedAt)
        #expect(try store.repository.bringBackFutureTimes() == 0)
    }

    /// An export written under a clock a day fast, with stamps and without: imported, its
    /// times are now, and the next edit here is stamped now, not after tomorrow.
    @Test(arguments: [true, false])
    func anImportFromAClockAheadArrivesNow(withStamps: Bool) throws {
        let store = try StoreFixture()
        let tomorrow = StoreFixture.start.adding(milliseconds: Self.day)
        let made = Idea(id: UUID(), title: "written tomorrow", createdAt: tomorrow, deviceId: "fast")
        let stamps = withStamps ? FieldStamps(all: SyncOrder(made)) : nil
        #expect(try store.repository.importExport([ExportedIdea(idea: made, stamps: stamps)]).counts == [1, 0, 0])

        let imported = try #require(try store.repository.idea(id: made.id))
        #expect(imported.createdAt == StoreFixture.start && imported.updatedAt == StoreFixture.start)
        store.clock.advance(by: 5)
        let next = try store.repository.addIdea(title: "made after the import")
        #expect(next.createdAt == StoreFixture.start.adding(milliseconds: 5))
    }
}
