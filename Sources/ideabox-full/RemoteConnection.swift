import CloudHTTPClient
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaStore
import IdeaSync

extension CommandContext {
    /// The remote this profile syncs with: the embedded one shared by every profile under
    /// the data root, or `ideabox serve` if the profile signed in to a server.
    func openRemote(_ options: StoreOptions) throws -> RemoteConnection {
        try RemoteConnection.open(try location(options), clock: clock)
    }

    /// This profile's database and its sync session with its remote, for the app or a sync.
    /// The remote follows the profile's account file: a sign-in, a sign-out or a new token
    /// made by another command reaches a running app or `sync --watch` with its next request.
    func openSync(_ options: StoreOptions) throws -> (repository: IdeaRepository, session: SyncSession, remote: RemoteConnection) {
        let repository = try openRepository(options, use: .app)
        let (location, clock) = (try location(options), clock)
        let remote = try RemoteConnection.open(location, clock: clock).following(
            AccountFile(directory: location.profileDirectory, reopen: { try RemoteConnection.open(location, clock: clock) }))
        return (repository, SyncSession(repository: repository, database: remote.database, clock: clock), remote)
    }
}

/// The remote of one profile (its device).
struct RemoteConnection {
    /// Where the device's simulated network and faults are kept: the embedded remote itself,
    /// or, for a profile signed in to a server, a file of the same kind in its folder.
    let cloud: SimulatedCloud
    /// The device's name: the profile.
    let device: String
    /// The server the profile signed in to, if it did.
    let credentials: ServerCredentials?
    /// The client the sync engine uses.
    private(set) var database: any CloudDatabase
    /// How the device is told of other devices' changes: the server's long poll, or the
    /// embedded remote's change file; both cut off by the device's simulated network.
    private(set) var changeFeed: (any ZoneChangeFeed)?

    init(cloud: SimulatedCloud, device: String, credentials: ServerCredentials?) {
        self.cloud = cloud
        self.device = device
        self.credentials = credentials
        if let credentials {
            let served = credentials.database()
            database = FaultInjectingDatabase(base: served, faults: cloud, device: device)
            changeFeed = OfflineAwareChangeFeed(base: served, faults: cloud, device: device)
        } else {
            database = cloud.database(forDevice: device)
            changeFeed = cloud.changeFeed(forDevice: device).map { OfflineAwareChangeFeed(base: $0, faults: cloud, device: device) }
        }
    }

    /// The remote of the profile at `location`: the embedded one shared by every profile
    /// under the data root, or `ideabox serve` if the profile signed in to a server.
    static func open(_ location: DataLocation, clock: WallClock) throws -> RemoteConnection {
        if let credentials = try ServerCredentials.load(from: location.profileDirectory) {
            let faults = try SimulatedCloud.open(
                directory: location.profileDirectory, fileName: SimulatedCloud.servedFaultsFileName, clock: clock)
            return RemoteConnection(cloud: faults, device: location.profile, credentials: credentials)
        }
        return RemoteConnection(
            cloud: try SimulatedCloud.open(directory: location.root, clock: clock), device: location.profile, credentials: nil)
    }

    /// This connection, with a database and a change feed that follow `file`: each request
    /// goes to the remote the file names as of that request.
    func following(_ file: AccountFile) -> RemoteConnection {
        var connection = self
        let follower = AccountFollower(file: file, connection: self)
        connection.database = FollowingDatabase(follower: follower, maximumRecordsPerRequest: database.maximumRecordsPerRequest)
        connection.changeFeed = changeFeed.map { _ in FollowingChangeFeed(follower: follower) }
        return connection
    }

    /// The account the device is signed in to, or nil.
    func signedInAccount() throws -> String? {
        guard let credentials else { return try cloud.signedInAccount(device: device) }
        return credentials.token == nil ? nil : credentials.account
    }
}
