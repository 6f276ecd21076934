import AccountEncryption
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
        try RemoteConnection.open(try location(options), report: EncryptionReport.silent)
    }

    /// This profile's database and its sync session with its remote, for the app or a sync.
    /// The remote follows the profile's account file: a sign-in, a sign-out or a new token
    /// made by another command reaches a running app or `sync --watch` with its next request.
    func openSync(_ options: StoreOptions) throws -> (repository: IdeaRepository, session: SyncSession, remote: RemoteConnection) {
        let repository = try openRepository(options, use: .app)
        let (location, clock) = (try location(options), clock)
        let report = EncryptionReport(repository: repository, clock: clock)
        let remote = try RemoteConnection.open(location, report: report).following(
            AccountFile(directory: location.profileDirectory, reopen: { try RemoteConnection.open(location, report: report) }))
        // On iCloud, ideas travel as the IdeaBox app's records. A switch between iCloud and a
        // server takes effect at the next start (the shape is the session's).
        let session = SyncSession(
            repository: repository, database: remote.database, shape: remote.credentials?.isICloud == true ? .coreData : .ideabox,
            clock: clock, defaultDeviceName: try defaultDeviceName(options))
        return (repository, session, remote)
    }
}

/// The remote of one profile (its device).
struct RemoteConnection {
    /// The device's simulated network and faults: the embedded remote's, beside it, or, for a
    /// profile signed in to a server, a file in the profile's folder.
    let network: SimulatedNetwork
    /// The embedded remote, when the profile syncs with it rather than a server.
    let embedded: SimulatedCloud?
    /// The device's name: the profile.
    let device: String
    /// The server the profile signed in to, if it did.
    let credentials: ServerCredentials?
    /// The remote as the account's encryption makes it: plain, sealed, or closed while locked.
    let encryption: EncryptedDatabase
    /// The client the sync engine uses.
    private(set) var database: any CloudDatabase
    /// How the device is told of other devices' changes: the server's long poll, or the
    /// embedded remote's change file; both cut off by the device's simulated network.
    private(set) var changeFeed: (any ZoneChangeFeed)?
    /// What follows the profile's account file, for a connection that does.
    private var follower: AccountFollower?

    /// The account's encryption as of the account file's latest version: after a sign-in made
    /// elsewhere, the one with the new token (`encryption` keeps the token of the opening).
    var currentEncryption: @Sendable () -> EncryptedDatabase {
        guard let follower else { return { [encryption] in encryption } }
        return { follower.connection.encryption }
    }

    /// The connection of `device` to a server (`credentials`) through `network`; the
    /// profile's key file is in `profileDirectory`.
    init(network: SimulatedNetwork, device: String, credentials: ServerCredentials, profileDirectory: URL, report: EncryptionReport) {
        self.network = network
        self.embedded = nil
        self.device = device
        self.credentials = credentials
        // A new token Apple hands out is saved before the request after it; one another process
        // of the profile spent is followed by the one it saved.
        let served = credentials.database(
            unnamedContainer: ProductContainer.legacy,
            onNewToken: { previous, token in try? ServerCredentials.replaceToken(previous, with: token, in: profileDirectory) },
            savedToken: { try? ServerCredentials.load(from: profileDirectory)?.token })
        var whole = served
        whole.replacesWholeRecords = true
        encryption = EncryptionWiring.database(
            base: FaultInjectingDatabase(base: served, faults: network, device: device),
            sealedBase: FaultInjectingDatabase(base: whole, faults: network, device: device),
            profileDirectory: profileDirectory, report: report)
        database = encryption
        changeFeed = OfflineAwareChangeFeed(base: served, faults: network, device: device)
    }

    /// The connection of `device` to the embedded remote `cloud` (which replaces a saved
    /// record whole); the profile's key file is in `profileDirectory`.
    init(embedded cloud: SimulatedCloud, device: String, profileDirectory: URL, report: EncryptionReport) {
        self.network = cloud.network
        self.embedded = cloud
        self.device = device
        self.credentials = nil
        encryption = EncryptionWiring.database(
            base: cloud.database(forDevice: device), sealedBase: nil, profileDirectory: profileDirectory, report: report)
        database = encryption
        changeFeed = cloud.changeFeed(forDevice: device).map { OfflineAwareChangeFeed(base: $0, faults: cloud.network, device: device) }
    }

    /// The remote of the profile at `location`: the embedded one shared by every profile
    /// under the data root, or `ideabox serve` if the profile signed in to a server.
    static func open(_ location: DataLocation, report: EncryptionReport) throws -> RemoteConnection {
        if let credentials = try ServerCredentials.load(from: location.profileDirectory) {
            let network = try SimulatedNetwork.open(
                directory: location.profileDirectory, earlierFile: SimulatedCloud.servedFaultsFileName)
            return RemoteConnection(
                network: network, device: location.profile, credentials: credentials, profileDirectory: location.profileDirectory,
                report: report)
        }
        // The embedded remote stands for a server, whose clock is the machine's own, not a
        // device's wrong one (`IDEABOX_CLOCK_OFFSET_MS`), so it can tell a device its clock is off.
        return RemoteConnection(
            embedded: try SimulatedCloud.open(directory: location.root, clock: .system), device: location.profile,
            profileDirectory: location.profileDirectory, report: report)
    }

    /// This connection, with a database and a change feed that follow `file`: each request
    /// goes to the remote the file names as of that request.
    func following(_ file: AccountFile) -> RemoteConnection {
        var connection = self
        let follower = AccountFollower(file: file, connection: self)
        connection.follower = follower
        connection.database = FollowingDatabase(follower: follower, maximumRecordsPerRequest: database.maximumRecordsPerRequest)
        connection.changeFeed = changeFeed.map { _ in FollowingChangeFeed(follower: follower) }
        return connection
    }

    /// The account the device is signed in to, or nil.
    func signedInAccount() throws -> String? {
        guard let credentials else { return try network.signedInAccount(device: device) }
        return credentials.token == nil ? nil : credentials.account
    }

    /// The device's account and faults, with the embedded account's quota and record count
    /// (a server's are `servedUsage()`: nil and 0 here). A served profile's account is its
    /// sign-in's, not the embedded remote's.
    func deviceStatus() throws -> RemoteDeviceStatus {
        if let embedded { return try embedded.status(device: device) }
        var status = try network.status(device: device)
        status.account = try signedInAccount()
        return status
    }

    /// The remote this connection's requests reach.
    var endpoint: RemoteEndpoint {
        credentials.map(RemoteEndpoint.init(served:)) ?? .embedded
    }

    /// What the server says the signed-in account holds and may hold, or why it could not be
    /// asked (signed out, this profile's network off, or the request's own failure); nil for
    /// the embedded remote, whose counts `deviceStatus()` has.
    func servedUsage() async -> Result<ServedAccountUsage, CloudError>? {
        guard let credentials else { return nil }
        guard credentials.token != nil else { return .failure(.notAuthenticated) }
        if (try? network.status(device: device).isOffline) == true { return .failure(.networkUnavailable) }
        let database = credentials.database(unnamedContainer: ProductContainer.legacy, timeout: Self.statusTimeout)
        do {
            return .success(try await database.accountUsage())
        } catch {
            return .failure(error as? CloudError ?? .networkFailure)
        }
    }

    /// How long a status command waits for a server's answer before saying it could not ask.
    static let statusTimeout = 10.0
}
