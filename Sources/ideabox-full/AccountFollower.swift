import CloudHTTPClient
import CloudKitModel
import Foundation
import Synchronization

/// A profile's account file (`server.json`): which server, account and token its requests
/// use. A process that stays (the app, `sync --watch`) looks at it before each request.
struct AccountFile: Sendable {
    /// The profile's folder.
    let directory: URL
    /// Opens the profile's remote as the file says now.
    let reopen: @Sendable () throws -> RemoteConnection

    /// What identifies one version of the file (it is replaced whole, by a rename), or nil
    /// while there is none.
    func version() -> FileVersion? {
        Self.version(in: directory)
    }

    /// The version of the account file of the profile in `directory`, or nil while there is none.
    static func version(in directory: URL) -> FileVersion? {
        var info = stat()
        guard stat(directory.appendingPathComponent(ServerCredentials.fileName).path, &info) == 0 else { return nil }
        return FileVersion(
            inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// One version of the file.
    struct FileVersion: Hashable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
    }
}

/// The remote connection as of the account file's latest version: reopened when the file
/// changed (a sign-in, a sign-out, a new token), kept otherwise. A file that can't be read
/// keeps the connection before it, and is read again at the next request.
final class AccountFollower: Sendable {
    private struct Current {
        var version: AccountFile.FileVersion?
        var connection: RemoteConnection
    }

    private let file: AccountFile
    private let current: Mutex<Current>

    init(file: AccountFile, connection: RemoteConnection) {
        self.file = file
        current = Mutex(Current(version: file.version(), connection: connection))
    }

    /// The account file's version now.
    var fileVersion: AccountFile.FileVersion? { file.version() }

    /// The connection for the next request.
    var connection: RemoteConnection {
        let version = file.version()
        if let connection = current.withLock({ $0.version == version ? $0.connection : nil }) { return connection }
        guard let reopened = try? file.reopen() else { return current.withLock { $0.connection } }
        return current.withLock { current in
            current = Current(version: version, connection: reopened)
            return reopened
        }
    }
}

/// A database that sends each request to the follower's current connection.
struct FollowingDatabase: CloudDatabase {
    let follower: AccountFollower
    let maximumRecordsPerRequest: Int

    private var base: any CloudDatabase { follower.connection.database }

    func accountStatus() async throws -> AccountStatus { try await base.accountStatus() }
    func createZone(_ zone: RecordZoneID) async throws { try await base.createZone(zone) }
    func deleteZone(_ zone: RecordZoneID) async throws { try await base.deleteZone(zone) }
    func modify(saving records: [RemoteRecord], deleting recordIDs: [RecordID], savePolicy: SavePolicy) async throws -> ModifyResult {
        try await base.modify(saving: records, deleting: recordIDs, savePolicy: savePolicy)
    }
    func fetchChanges(in zone: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        try await base.fetchChanges(in: zone, since: token, resultsLimit: resultsLimit)
    }
    func records(in zone: RecordZoneID, ofType recordType: String) async throws -> [RemoteRecord] {
        try await base.records(in: zone, ofType: recordType)
    }
    func uploadAsset(_ data: Data) async throws -> AssetReference { try await base.uploadAsset(data) }
    func fetchAsset(_ reference: AssetReference) async throws -> Data { try await base.fetchAsset(reference) }
}

/// A change feed that watches through the follower's current connection: after a new
/// sign-in, the listener's next start (it starts over whenever a poll fails) uses it. A poll
/// held when the account file changes is given up within a second (its request left to end
/// on its own, its answer dropped), so the listener starts over on the new account at once
/// instead of after the old poll's minute.
struct FollowingChangeFeed: ZoneChangeFeed {
    let follower: AccountFollower
    /// How often a held poll looks at the account file.
    static let accountLookMilliseconds = 1000

    private func base() throws -> any ZoneChangeFeed {
        guard let feed = follower.connection.changeFeed else { throw CloudError.networkFailure }
        return feed
    }

    func startWatching(_ zones: [RecordZoneID]) async throws -> ChangeCursor {
        try await base().startWatching(zones)
    }

    func waitForChanges(after cursor: ChangeCursor, seconds: Int) async throws -> ZoneChangeNotice? {
        let began = follower.fileVersion
        let feed = try base()
        let follower = self.follower
        return try await withCheckedThrowingContinuation { continuation in
            let answer = FirstAnswer(continuation)
            Task {
                do {
                    answer.give(.success(try await feed.waitForChanges(after: cursor, seconds: seconds)))
                } catch {
                    answer.give(.failure(error))
                }
            }
            Task {
                while !answer.isGiven, follower.fileVersion == began {
                    try? await Task.sleep(for: .milliseconds(Self.accountLookMilliseconds))
                }
                answer.give(.failure(CloudError.networkFailure))
            }
        }
    }
}

/// One poll's answer: the first of the poll's own and the account file's change, given once.
private final class FirstAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<ZoneChangeNotice?, any Error>?>

    init(_ continuation: CheckedContinuation<ZoneChangeNotice?, any Error>) {
        self.continuation = Mutex(continuation)
    }

    var isGiven: Bool { continuation.withLock { $0 == nil } }

    /// Resumes the waiter with `answer`, unless an answer came first.
    func give(_ answer: Result<ZoneChangeNotice?, any Error>) {
        let waiting = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: answer)
    }
}
