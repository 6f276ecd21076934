import CloudHTTPClient
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxCommandLine
import IdeaBoxCore
import IdeaStore
import IdeaSync

extension CommandContext {
    /// The remote this profile syncs with: the embedded one shared by every profile under
    /// the data root, or `ideabox serve` if the profile signed in to a server.
    func openRemote(_ options: StoreOptions) throws -> RemoteConnection {
        let location = try location(options)
        if let credentials = try ServerCredentials.load(from: location.profileDirectory) {
            let faults = try SimulatedCloud.open(
                directory: location.profileDirectory, fileName: SimulatedCloud.servedFaultsFileName, clock: clock)
            return RemoteConnection(cloud: faults, device: location.profile, credentials: credentials)
        }
        return RemoteConnection(
            cloud: try SimulatedCloud.open(directory: location.root, clock: clock), device: location.profile, credentials: nil)
    }

    /// This profile's database and its sync session with its remote, for the app or a sync.
    func openSync(_ options: StoreOptions) throws -> (repository: IdeaRepository, session: SyncSession, remote: RemoteConnection) {
        let repository = try openRepository(options, use: .app)
        let remote = try openRemote(options)
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
    var database: any CloudDatabase {
        if let credentials {
            FaultInjectingDatabase(base: credentials.database(), faults: cloud, device: device)
        } else {
            cloud.database(forDevice: device)
        }
    }

    /// How the device is told of other devices' changes: the server's long poll, or the
    /// embedded remote's change file; both cut off by the device's simulated network.
    var changeFeed: (any ZoneChangeFeed)? {
        let base: (any ZoneChangeFeed)? = credentials.map { $0.database() } ?? cloud.changeFeed(forDevice: device)
        return base.map { OfflineAwareChangeFeed(base: $0, faults: cloud, device: device) }
    }

    /// The account the device is signed in to, or nil.
    func signedInAccount() throws -> String? {
        guard let credentials else { return try cloud.signedInAccount(device: device) }
        return credentials.token == nil ? nil : credentials.account
    }
}
