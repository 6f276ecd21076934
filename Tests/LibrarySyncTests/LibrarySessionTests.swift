import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import LibrarySync
import Synchronization
import Testing

/// The RawLibrary spec's acceptance tests, across two devices with folders of their own
/// and one remote, plus the input a library must refuse.
@Suite("LibrarySession")
struct LibrarySessionTests {
    @Test("A adds a file: B has it with the same bytes and modification time")
    func addReachesOtherDevice() async throws {
        let fixture = try Fixture()
        try fixture.a.write("Items/one.json", #"{"title":"第一"}"#, at: 5_000)
        try fixture.a.write("Favorite.json", "not JSON at all", at: 6_000)
        fixture.remoteClock.set(Timestamp(milliseconds: 10_000))
        #expect(try await fixture.a.session.sync().uploaded == 2)
        #expect(try await fixture.b.session.sync().downloaded == 2)
        for path in ["Items/one.json", "Favorite.json"] {
            #expect(try fixture.b.contents(path) == fixture.a.contents(path))
            #expect(try fixture.b.modified(path) == fixture.a.modified(path))
        }
        #expect(try fixture.b.modified("Items/one.json") == Timestamp(milliseconds: 10_000))
        // Nothing left to do on either side.
        #expect(try await fixture.a.session.sync() == LibraryReport())
        #expect(try await fixture.b.session.status().pendingUploads == 0)
    }

    @Test("A file over 1 MB goes as an asset: B has the same bytes and time, and a later edit on B comes back to A")
    func largeFilesGoAsAssets() async throws {
        let fixture = try Fixture()
        let large = String(repeating: #"{"title":"靈感 idea"},"#, count: 120_000)  // about 3 MB
        try fixture.a.write("Items/large.json", large, at: 5_000)
        try fixture.a.write("Items/small.json", "small", at: 5_000)
        fixture.remoteClock.set(Timestamp(milliseconds: 10_000))
        #expect(try await fixture.a.session.sync().uploaded == 2)
        let records = try await fixture.cloud.database(forDevice: "a").records(in: LibrarySession.zone, ofType: LibrarySession.recordType)
        let kinds = Dictionary(uniqueKeysWithValues: records.map { record -> (String, String) in
            guard case .string(let path)? = record.fields["path"] else { return ("?", "?") }
            return switch record.fields["filedata"] {
            case .asset(let reference)?: (path, reference == AssetReference(of: Data(large.utf8)) ? "asset" : "wrong asset")
            case .bytes?: (path, "bytes")
            default: (path, "none")
            }
        })
        #expect(kinds == ["Items/large.json": "asset", "Items/small.json": "bytes"])

        #expect(try await fixture.b.session.sync().downloaded == 2)
        #expect(try fixture.b.contents("Items/large.json") == large)
        #expect(try fixture.b.modified("Items/large.json") == Timestamp(milliseconds: 10_000))
        let edited = large + "[]"
        try fixture.b.write("Items/large.json", edited, at: 20_000)
        fixture.remoteClock.set(Timestamp(milliseconds: 21_000))
        #expect(try await fixture.b.session.sync().uploaded == 1)
        #expect(try await fixture.a.session.sync().downloaded == 1)
        #expect(try fixture.a.contents("Items/large.json") == edited)
        #expect(try await fixture.a.session.sync() == LibraryReport())
    }

    @Test("A deletes a file: B deletes it")
    func deleteReachesOtherDevice() async throws {
        let fixture = try Fixture()
        try fixture.a.write("Items/one.json", "1", at: 1_000)
        try fixture.a.write("Items/two.json", "2", at: 1_000)
        try await fixture.a.session.sync()
        try await fixture.b.session.sync()
        try FileManager.default.removeItem(at: fixture.a.url("Items/one.json"))
        #expect(try await fixture.a.session.status().pendingDeletes == 1)
        #expect(try await fixture.a.session.sync().deletedRemotely == 1)
        #expect(try await fixture.b.session.sync().deletedLocally == 1)
        #expect(try fixture.b.files() == ["Items/two.json"])
        #expect(try await fixture.remoteFiles() == ["Items/two.json"])
    }

    @Test("Pending down counts what a sync would still bring or take here: not a deletion of a file already gone here, not one file twice")
    func pendingDownCountsWhatWouldChangeHere() async throws {
        let fixture = try Fixture()
        try fixture.a.write("Items/one.json", "1", at: 1_000)
        try fixture.a.write("Items/two.json", "2", at: 1_000)
        try await fixture.a.session.sync()
        try await fixture.b.session.sync()
        #expect(try await fixture.b.session.status().pendingDownloads == 0)
        // B removed one.json itself (not yet sent) when A's deletion of it arrives.
        try FileManager.default.removeItem(at: fixture.b.url("Items/one.json"))
        try FileManager.default.removeItem(at: fixture.a.url("Items/one.json"))
        try await fixture.a.session.sync()
        #expect(try await fixture.b.session.status().pendingDeletes == 1)
        #expect(try await fixture.b.session.status().pendingDownloads == 0, "its file is gone here already")
        // two.json written twice and then deleted on A: one file whose deletion would reach B.
        try fixture.a.write("Items/two.json", "2 again", at: 2_000)
        try await fixture.a.session.sync()
        try fixture.a.write("Items/two.json", "2 once more", at: 3_000)
        try await fixture.a.session.sync()
        #expect(try await fixture.b.session.status().pendingDownloads == 1, "one file, changed twice")
        try FileManager.default.removeItem(at: fixture.a.url("Items/two.json"))
        try await fixture.a.session.sync()
        #expect(try await fixture.b.session.status().pendingDownloads == 1, "changed, then deleted: still the one file")
        let report = try await fixture.b.session.sync()
        #expect(report.downloaded + report.deletedLocally == 1 && report.deletedRemotely == 0, "\(report)")
        #expect(try await fixture.b.session.status().pendingDownloads == 0 && fixture.b.files() == [])
    }

    @Test("A record saved again with the same bytes (sealed again, under a new name) leaves the file as it is")
    func sameBytesAgainLeaveTheFile() async throws {
        let fixture = try Fixture()
        try fixture.a.write("Items/靈感筆記.json", #"{"title":"第一"}"#, at: 1_000)
        try await fixture.a.session.sync()
        #expect(try await fixture.b.session.sync().downloaded == 1)
        let inode = try fixture.b.inode("Items/靈感筆記.json")

        fixture.remoteClock.set(Timestamp(milliseconds: 2_000_000))
        #expect(try await fixture.a.session.overwriteRemote().uploaded == 1, "a new change tag, the same bytes")
        #expect(try await fixture.b.session.sync() == LibraryReport())
        #expect(try fixture.b.inode("Items/靈感筆記.json") == inode, "not written again")
        #expect(try fixture.b.contents("Items/靈感筆記.json") == #"{"title":"第一"}"#)
        #expect(try fixture.b.modified("Items/靈感筆記.json") == Timestamp(milliseconds: 2_000_000))
        #expect(try await fixture.b.session.status().pendingUploads == 0)
    }

    @Test("A and B change one file: the later write wins on both, the loser is kept under .conflicts/",
          arguments: [(a: 20_000, b: 40_000, winner: "B"), (a: 40_000, b: 20_000, winner: "A")])
    func concurrentEdits(a: Int64, b: Int64, winner: String) async throws {
        let fixture = try Fixture()
        try fixture.a.write("Items/shared.json", "original", at: 1_000)
        fixture.remoteClock.set(Timestamp(milliseconds: 2_000))
        try await fixture.a.session.sync()
        try await fixture.b.session.sync()

        try fixture.a.write("Items/shared.json", "A's edit", at: a)
        try fixture.b.write("Items/shared.json", "B's edit", at: b)
        // A sends first; the remote stamps its record a moment after A's edit.
        fixture.remoteClock.set(Timestamp(milliseconds: a + 100))
        try await fixture.a.session.sync()
        fixture.remoteClock.set(Timestamp(milliseconds: max(a, b) + 1_000))
        #expect(try await fixture.b.session.sync().conflicts == 1)
        try await fixture.a.session.sync()

        let expected = "\(winner)'s edit"
        #expect(try fixture.a.contents("Items/shared.json") == expected)
        #expect(try fixture.b.contents("Items/shared.json") == expected)
        #expect(try fixture.a.modified("Items/shared.json") == fixture.b.modified("Items/shared.json"))
        // The loser is on B, the device that found the conflict.
        let loser = winner == "A" ? "B's edit" : "A's edit"
        let copies = try fixture.b.conflictCopies("Items")
        #expect(copies.count == 1)
        #expect(try copies.map { try String(contentsOf: $0, encoding: .utf8) } == [loser])
        #expect(fixture.b.log.contains { $0.contains("Items/shared.json") && $0.contains(".conflicts/") })
    }

    @Test("Overwrite remote: the remote holds exactly A's files, and B converges to them")
    func overwriteRemote() async throws {
        let fixture = try Fixture()
        try fixture.b.write("Items/b-only.json", "B", at: 1_000)
        try fixture.b.write("Items/both.json", "B's version", at: 1_000)
        try await fixture.b.session.sync()
        try fixture.a.write("Items/a-only.json", "A", at: 2_000)
        try fixture.a.write("Items/both.json", "A's version", at: 500)
        try fixture.a.write("Favorite.json", "[]", at: 2_000)

        let report = try await fixture.a.session.overwriteRemote()
        #expect(report.deletedRemotely == 1 && report.uploaded == 3)
        #expect(try await fixture.remoteFiles() == ["Favorite.json", "Items/a-only.json", "Items/both.json"])
        try await fixture.b.session.sync()
        #expect(try fixture.b.files() == fixture.a.files())
        for path in try fixture.a.files() {
            #expect(try fixture.b.contents(path) == fixture.a.contents(path))
        }
    }

    @Test("Signed in to another account, every file here goes to it: none stays behind, none is deleted")
    func anotherAccountGetsEveryFile() async throws {
        let fixture = try Fixture()
        try fixture.cloud.network.signIn(device: "a", account: "alone")
        try fixture.cloud.network.signIn(device: "b", account: "shared")
        let account = Mutex("alone on the embedded remote")
        let a = LibrarySession(
            root: fixture.a.root, database: fixture.cloud.database(forDevice: "a"), clock: .fixed(Timestamp(milliseconds: 0)),
            account: { account.withLock { $0 } })
        try fixture.a.write("Items/made-alone.json", "A's, before signing in", at: 1_000)
        try fixture.b.write("Items/shared.json", "B's", at: 1_000)
        #expect(try await a.sync().uploaded == 1)
        #expect(try await fixture.b.session.sync().uploaded == 1)

        try fixture.cloud.network.signIn(device: "a", account: "shared")
        account.withLock { $0 = "shared on the embedded remote" }
        let report = try await a.sync()
        #expect(report.uploaded == 1 && report.downloaded == 1 && report.deletedLocally == 0)
        #expect(try await fixture.b.session.sync().downloaded == 1)
        #expect(try fixture.b.contents("Items/made-alone.json") == "A's, before signing in")
        #expect(try fixture.a.files() == fixture.b.files())
        #expect(try await a.sync() == LibraryReport())
    }

    @Test("Records whose path would leave the folder, or does not match their name, are refused; the rest are written")
    func hostileRecords() async throws {
        let fixture = try Fixture()
        try fixture.a.write("Items/good.json", "good", at: 1_000)
        try await fixture.a.session.sync()
        var hostile: [RemoteRecord] = []
        for (name, path) in [("r1", "../escape.json"), ("r2", "/tmp/abs.json"), ("r3", "Items/../../x.json")] {
            hostile.append(Self.record(name: name, path: path))
        }
        // A record named for one path but carrying another.
        hostile.append(Self.record(name: try LibraryPath("Items/a.json").recordName, path: "Items/b.json"))
        _ = try await fixture.cloud.database(forDevice: "a").modify(saving: hostile, deleting: [], savePolicy: .allKeys)

        let report = try await fixture.b.session.sync()
        #expect(report.downloaded == 1)
        #expect(report.refused.count == 4)
        #expect(try fixture.b.files() == ["Items/good.json"])
        let outside = fixture.directory.appendingPathComponent("escape.json")
        #expect(!FileManager.default.fileExists(atPath: outside.path))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/abs.json"))
    }

    @Test("A symbolic link in the folder is refused once and never followed; other files sync")
    func symbolicLink() async throws {
        let fixture = try Fixture()
        try fixture.a.write("Items/good.json", "good", at: 1_000)
        let secret = fixture.directory.appendingPathComponent("secret.json")
        try Data("secret".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(at: fixture.a.url("Items/link.json"), withDestinationURL: secret)
        try FileManager.default.createDirectory(at: fixture.a.root.appendingPathComponent("Other"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: fixture.a.root.appendingPathComponent("notes.txt"))

        let first = try await fixture.a.session.sync()
        #expect(first.uploaded == 1 && first.refused.count == 1)
        #expect(try await fixture.a.session.sync().refused.isEmpty, "reported once")
        #expect(try await fixture.remoteFiles() == ["Items/good.json"])
        #expect(try await fixture.a.session.status().notSynced == ["Other/", "notes.txt"])
        #expect(fixture.a.log.filter { $0.contains("notes.txt") }.count == 1)
    }

    @Test("The manifest is the spec's format, written whole, with no temporary file left behind")
    func manifest() async throws {
        let fixture = try Fixture()
        try fixture.a.write("Items/one.json", "1", at: 1_000)
        try await fixture.a.session.sync()
        let data = try Data(contentsOf: fixture.a.root.appendingPathComponent("sync_manifest.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["v"] as? Int == 1)
        #expect(json["updatedAt"] is String && json["changeTokenData"] is String)
        let entry = try #require((json["files"] as? [String: Any])?["Items/one.json"] as? [String: Any])
        #expect(entry["path"] as? String == "Items/one.json")
        #expect(entry["recordName"] as? String == (try LibraryPath("Items/one.json").recordName))
        #expect(entry["lastLocalModifiedAt"] is String && entry["lastKnownServerModifiedAt"] is String)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.a.root.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test("A remote that fails mid-way changes nothing it did not finish; the next sync completes")
    func failureMidWay() async throws {
        let fixture = try Fixture()
        for index in 0..<5 { try fixture.a.write("Items/\(index).json", "\(index)", at: 1_000) }
        try fixture.cloud.network.setOffline(true, device: "a")
        await #expect(throws: CloudError.self) { try await fixture.a.session.sync() }
        #expect(try await fixture.a.session.status().lastError != nil)
        try fixture.cloud.network.setOffline(false, device: "a")
        #expect(try await fixture.a.session.sync().uploaded == 5)
        try await fixture.b.session.sync()
        #expect(try fixture.b.files().count == 5)
    }

    private static func record(name: String, path: String) -> RemoteRecord {
        RemoteRecord(
            recordType: LibrarySession.recordType, recordID: RecordID(recordName: name, zoneID: LibrarySession.zone),
            fields: ["filename": .string("x.json"), "path": .string(path), "filedata": .bytes(Data("evil".utf8))])
    }
}

/// Two devices, `a` and `b`, each with its own library folder, and one in-memory remote
/// whose clock the test sets. The folders are removed with the fixture.
private final class Fixture {
    let directory: URL
    let remoteClock = ManualClock(start: Timestamp(milliseconds: 1_000_000))
    let cloud: SimulatedCloud
    let a: Device
    let b: Device

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("library-\(UUID().uuidString)")
        cloud = try SimulatedCloud.inMemory(clock: remoteClock.wallClock)
        a = Device(root: directory.appendingPathComponent("a/RawLibrary"), cloud: cloud, name: "a")
        b = Device(root: directory.appendingPathComponent("b/RawLibrary"), cloud: cloud, name: "b")
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The paths of the remote's `RawLibraryFile` records.
    func remoteFiles() async throws -> [String] {
        try await cloud.database(forDevice: "a").records(in: LibrarySession.zone, ofType: LibrarySession.recordType)
            .compactMap { record in
                if case .string(let path)? = record.fields["path"] { path } else { nil }
            }.sorted()
    }
}

private final class Device: Sendable {
    let root: URL
    let session: LibrarySession
    private let lines: LogLines

    /// The lines the session logged.
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
    }

    init(root: URL, cloud: SimulatedCloud, name: String) {
        self.root = root
        let lines = LogLines()
        self.lines = lines
        session = LibrarySession(root: root, database: cloud.database(forDevice: name), clock: .fixed(Timestamp(milliseconds: 0))) {
            _, line in lines.lines.withLock { $0.append(line) }
        }
    }

    var log: [String] { lines.lines.withLock { $0 } }

    func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    func write(_ path: String, _ text: String, at milliseconds: Int64) throws {
        try LibraryFolder(root: root).write(Data(text.utf8), at: LibraryPath(path), modified: Timestamp(milliseconds: milliseconds))
    }

    func contents(_ path: String) throws -> String {
        try String(contentsOf: url(path), encoding: .utf8)
    }

    func modified(_ path: String) throws -> Timestamp? {
        LibraryFolder(root: root).state(of: try LibraryPath(path))?.modified
    }

    /// The file's inode: another one once it was written again.
    func inode(_ path: String) throws -> UInt64 {
        try #require((try FileManager.default.attributesOfItem(atPath: url(path).path)[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    func files() throws -> [String] {
        try LibraryFolder(root: root).scan().files.keys.map(\.text).sorted()
    }

    func conflictCopies(_ folder: String) throws -> [URL] {
        let conflicts = root.appendingPathComponent(folder).appendingPathComponent(LibraryFolder.conflictsFolder)
        return try FileManager.default.contentsOfDirectory(at: conflicts, includingPropertiesForKeys: nil).sorted { $0.path < $1.path }
    }
}
