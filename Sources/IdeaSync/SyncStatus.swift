import IdeaBoxFoundation

/// What sync is doing, as the status bar says it.
public enum SyncStatus: Sendable, Equatable {
    /// Not started yet.
    case starting
    /// Up to date as of `lastSync`.
    case synced(lastSync: Timestamp)
    /// Sending and fetching; `pending` changes wait to be sent.
    case syncing(pending: Int)
    /// Failed for `reason`; try `attempt` of 3 runs at `retryAt`.
    case retrying(attempt: Int, retryAt: Timestamp, reason: SyncFailure)
    /// The network is off; `pending` changes wait.
    case offline(pending: Int)
    /// No account: everything works, on this device only.
    case notSignedIn
    /// The server refused the device's token: everything works, on this device only, until
    /// the person signs in again.
    case signedOutByServer
    /// iCloud ended the device's sign-in: as `signedOutByServer`, said as iCloud's.
    case signedOutByICloud
    /// The account's storage is full: everything works, on this device only.
    case quotaExceeded
    /// Signed in to `current`, but this device's ideas belong to `bound`: nothing is sent.
    case wrongAccount(bound: String, current: String)
    /// The account's ideas are encrypted and this device holds no key (or, `keyHeldHere`,
    /// one the account no longer uses): nothing is sent.
    case locked(keyHeldHere: Bool)
    /// Three retries failed for `reason`; sync keeps trying, more slowly, next at `retryAt`
    /// (or sooner on a trigger).
    case failed(reason: SyncFailure, retryAt: Timestamp)

    /// The state without its values, named as `sync --watch --json` spells it.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case starting, synced, syncing, retrying, offline, notSignedIn, signedOutByServer, signedOutByICloud, quotaExceeded, wrongAccount, locked,
            failed
    }

    /// The state without its values.
    public var kind: Kind {
        switch self {
        case .starting: .starting
        case .synced: .synced
        case .syncing: .syncing
        case .retrying: .retrying
        case .offline: .offline
        case .notSignedIn: .notSignedIn
        case .signedOutByServer: .signedOutByServer
        case .signedOutByICloud: .signedOutByICloud
        case .quotaExceeded: .quotaExceeded
        case .wrongAccount: .wrongAccount
        case .locked: .locked
        case .failed: .failed
        }
    }

    /// Whether a failure of the remote is being waited out (a retry, or the slower tries
    /// after three): the remote has not answered since, so nothing about it (`live`,
    /// `polling`, `Syncing`) can be said.
    public var isWaitingOutFailure: Bool {
        switch self {
        case .retrying, .failed: true
        default: false
        }
    }

    /// Whether a sync could happen now (online, signed in, not over quota, the right
    /// account): only then do `live` and `polling` mean anything.
    public var canSync: Bool {
        switch self {
        case .starting, .synced, .syncing, .retrying, .failed: true
        case .offline, .notSignedIn, .signedOutByServer, .signedOutByICloud, .quotaExceeded, .wrongAccount, .locked: false
        }
    }
}
