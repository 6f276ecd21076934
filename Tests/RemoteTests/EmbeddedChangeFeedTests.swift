import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import ProcessTestSupport
import Synchronization
import Testing

/// The embedded remote's feed: processes of one data root wake each other through the
/// change file beside the remote, watched with inotify; nobody polls the database.
@Suite struct EmbeddedChangeFeedTests {
    static let ideas = RecordZoneID(zoneName: "Ideas")
    static let library = RecordZoneID(zoneName: "RawLibraryZone")
    /// The remote's clock: what it stamps plays no part in waking.
    static let clock = WallClock.fixed(Timestamp(milliseconds: 1_767_225_600_000))

    /// A remote file in a new folder, opened twice as two processes would.
    final class Root: Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-feed-\(UUID().uuidString)")
        let writer: SimulatedCloud
        let reader: SimulatedCloud

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            writer = try SimulatedCloud.open(directory: directory, clock: EmbeddedChangeFeedTests.clock)
            reader = try SimulatedCloud.open(directory: directory, clock: EmbeddedChangeFeedTests.clock)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// The change file the feeds watch.
        var changeFile: URL { directory.appendingPathComponent(SimulatedCloud.fileName + "-changes") }

        /// Saves one record in `zone` as `device`.
        func save(_ name: String, in zone: RecordZoneID, as device: String) async throws {
            let database = writer.database(forDevice: device)
            try await database.createZone(zone)
            _ = try await database.modify(
                saving: [RemoteRecord(recordType: "Idea", recordID: RecordID(recordName: name, zoneID: zone))], deleting: [], savePolicy: .allKeys)
        }
    }

    @Test func anotherDevicesWriteWakesTheWaitWithItsZoneButItsOwnAndOtherAccountsDoNot() async throws {
        let root = try Root()
        try root.writer.network.signIn(device: "stranger", account: "bob")
        let feed = try #require(root.reader.changeFeed(forDevice: "b"))
        let cursor = try await feed.startWatching([Self.ideas, Self.library])

        try await root.save("own", in: Self.ideas, as: "b")
        try await root.save("bob's", in: Self.ideas, as: "stranger")
        try await root.save("unwatched", in: RecordZoneID(zoneName: "Other"), as: "a")
        let started = ContinuousClock.now
        let quiet = try await feed.waitForChanges(after: cursor, seconds: 1)
        let waited = ContinuousClock.now - started
        #expect(quiet == nil && waited >= .seconds(1))

        // The write comes once the wait has read the change file to its end: what wakes it is
        // the write itself (inotify), not a line already there when it looked.
        // The wait holds no thread, so a busy test pool cannot keep it from its answer.
        let reads = try ReadWatch(root.changeFile)
        let waiting = Task { try await feed.waitForChanges(after: cursor, seconds: 60) }
        let sawRead = try await OwnThread.run { reads.waitForRead(seconds: 30) }
        try await root.save("a's", in: Self.library, as: "a")
        let answer = try await waiting.value
        #expect(sawRead, "the wait never read the change file")
        let notice = try #require(answer)
        #expect(notice.zones == [Self.library])
        // Past that line, nothing new: the next wait times out.
        #expect(try await feed.waitForChanges(after: notice.cursor, seconds: 1) == nil)
    }

    @Test func aWriteBeforeTheWaitAnswersItAtOnce() async throws {
        let root = try Root()
        let feed = try #require(root.reader.changeFeed(forDevice: "b"))
        let cursor = try await feed.startWatching([Self.ideas])
        try await root.save("early", in: Self.ideas, as: "a")
        let started = ContinuousClock.now
        let notice = try await feed.waitForChanges(after: cursor, seconds: 30)
        let took = ContinuousClock.now - started
        #expect(notice?.zones == [Self.ideas])
        // Well inside the wait's 30 s: answered by the write, not by the time running out.
        // (Awaited, the answer resumes on the test pool, which a full run keeps busy for seconds.)
        #expect(took < .seconds(20))
    }

    @Test func aChangeFileThatStartedOverMeansEveryWatchedZoneMayHaveChanged() async throws {
        let root = try Root()
        try await root.save("one", in: Self.ideas, as: "a")
        let feed = try #require(root.reader.changeFeed(forDevice: "b"))
        let cursor = try await feed.startWatching([Self.ideas, Self.library])
        try Data().write(to: root.changeFile)
        let notice = try await feed.waitForChanges(after: cursor, seconds: 5)
        #expect(notice?.zones == [Self.ideas, Self.library])
    }

    @Test func anInMemoryRemoteHasNoFeed() throws {
        #expect(try SimulatedCloud.inMemory(clock: Self.clock).changeFeed(forDevice: "b") == nil)
    }

    /// Reads of a file, seen through inotify: a reader that opened it read-only and closed it.
    final class ReadWatch: Sendable {
        private let descriptor: Int32

        init(_ file: URL) throws {
            descriptor = inotify_init1(Int32(IN_CLOEXEC))
            guard descriptor >= 0, inotify_add_watch(descriptor, file.path, UInt32(IN_CLOSE_NOWRITE)) >= 0 else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
        }

        deinit { close(descriptor) }

        /// Whether a read ended (since the watch began or the last one seen) within `seconds`.
        func waitForRead(seconds: Int32) -> Bool {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, seconds * 1000) == 1 else { return false }
            var buffer = [UInt8](repeating: 0, count: 4096)
            return buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } > 0
        }
    }
}
