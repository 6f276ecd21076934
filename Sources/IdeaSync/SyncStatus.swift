import IdeaBoxCore

/// What sync is doing, as the status bar says it.
public enum SyncStatus: Sendable, Equatable {
    /// Not started yet.
    case starting
    /// Up to date as of `lastSync`.
    case synced(lastSync: Timestamp)
    /// Sending and fetching; `pending` changes wait to be sent.
    case syncing(pending: Int)
    /// Failed for `reason`; try `attempt` of 3 runs at `retryAt`.
    case retrying(attempt: Int, retryAt: Timestamp, reason: String)
    /// The network is off; `pending` changes wait.
    case offline(pending: Int)
    /// No account: everything works, on this device only.
    case notSignedIn
    /// The account's storage is full: everything works, on this device only.
    case quotaExceeded
    /// Signed in to `current`, but this device's ideas belong to `bound`: nothing is sent.
    case wrongAccount(bound: String, current: String)
    /// Three retries failed for `reason`; sync keeps trying, more slowly, next at `retryAt`
    /// (or sooner on a trigger).
    case failed(reason: String, retryAt: Timestamp)
}
