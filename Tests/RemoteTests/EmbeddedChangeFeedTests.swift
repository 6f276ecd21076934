import CloudKitModel
import EmbeddedRemote
import Foundation
import Testing

/// The embedded remote's feed: processes of one data root wake each other through the
/// change file beside the remote, watched with inotify; nobody polls the database.
@Suite struct EmbeddedChangeFeedTests {
    static let ideas = RecordZoneID(zoneName: "Ideas")
    static let library = RecordZoneID(zoneName: "RawLibraryZone")

    /// A remote file in a new folder, opened twice as two processes would.
    final class Root: Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-feed-\(UUID().uuidString)")
        let writer: SimulatedCloud
        let reader: SimulatedCloud

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            writer = try SimulatedCloud.open(directory: directory, clock: .system)
            reader = try SimulatedCloud.open(directory: directory, clock: .system)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Saves one record in `zone` as `device`.
        func save(_ name: String, in zone: RecordZoneID, as device: String) throws {
            let database = writer.database(forDevice: device)
            try database.createZone(zone)
            _ = try database.modify(
                saving: [RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: name, zoneID: zone))], deleting: [], savePolicy: .allKeys)
        }
    }

    @Test func anotherDevicesWriteWakesTheWaitWithItsZoneButOwnWritesAndOtherAccountsDoNot() async throws {
        let root = try Root()
        try root.writer.network.signIn(device: "stranger", account: "bob")
        let feed = try #require(root.reader.changeFeed(forDevice: "b"))
        let cursor = try feed.startWatching([Self.ideas, Self.library])

        try root.save("own", in: Self.ideas, as: "b")
        try root.save("bob's", in: Self.ideas, as: "stranger")
        try root.save("unwatched", in: RecordZoneID(zoneName: "Other"), as: "a")
        let (quiet, waited) = try await Self.onThread {
            let started = ContinuousClock.now
            return (try feed.waitForChanges(after: cursor, seconds: 1), ContinuousClock.now - started)
        }
        #expect(quiet == nil && waited >= .seconds(1))

        let waiting = Task { try await Self.onThread { try feed.waitForChanges(after: cursor, seconds: 30) } }
        try await Task.sleep(for: .milliseconds(50))
        try root.save("a's", in: Self.library, as: "a")
        let notice = try #require(try await waiting.value)
        #expect(notice.zones == [Self.library])
        // Past that line, nothing new: the next wait times out.
        #expect(try await Self.onThread { try feed.waitForChanges(after: notice.cursor, seconds: 1) } == nil)
    }

    @Test func aWriteBeforeTheWaitAnswersItAtOnce() async throws {
        let root = try Root()
        let feed = try #require(root.reader.changeFeed(forDevice: "b"))
        let cursor = try feed.startWatching([Self.ideas])
        try root.save("early", in: Self.ideas, as: "a")
        // Timed on the waiting thread: a busy test pool may resume this test much later.
        let (notice, took) = try await Self.onThread {
            let started = ContinuousClock.now
            return (try feed.waitForChanges(after: cursor, seconds: 30), ContinuousClock.now - started)
        }
        #expect(notice?.zones == [Self.ideas])
        #expect(took < .seconds(5))
    }

    @Test func aChangeFileThatStartedOverMeansEveryWatchedZoneMayHaveChanged() async throws {
        let root = try Root()
        try root.save("one", in: Self.ideas, as: "a")
        let feed = try #require(root.reader.changeFeed(forDevice: "b"))
        let cursor = try feed.startWatching([Self.ideas, Self.library])
        try Data().write(to: root.directory.appendingPathComponent(SimulatedCloud.fileName + "-changes"))
        let notice = try await Self.onThread { try feed.waitForChanges(after: cursor, seconds: 5) }
        #expect(notice?.zones == [Self.ideas, Self.library])
    }

    @Test func anInMemoryRemoteHasNoFeed() throws {
        #expect(try SimulatedCloud.inMemory(clock: .system).changeFeed(forDevice: "b") == nil)
    }

    /// Runs a blocking call on a thread of its own, off Swift's cooperative pool.
    static func onThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
