import CloudWebServices
import Synchronization

/// What one account may hold at once of what all accounts share: held long polls, request
/// bodies being received, asset uploads being received. Without them one signed-in account
/// could take every connection, or every upload place, from all the others.
public struct FairShareLimits: Hashable, Sendable {
    /// The most long polls one account holds (any number of devices and containers): past
    /// it the account's oldest poll is answered at once with `{}`, and its device polls again.
    public var pollsPerAccount: Int
    /// The most long polls one access token (a device) holds; past it, as past the account's.
    public var pollsPerToken: Int
    /// The most requests with a body (JSON or an asset) one account has in progress; past
    /// it a new one is answered `TRY_AGAIN_LATER` unread.
    public var bodiesPerAccount: Int
    /// The most asset uploads one account has in progress; past it a new one is answered
    /// `TRY_AGAIN_LATER` unread. (The server's own limit, `maximumUploads`, still holds.)
    public var uploadsPerAccount: Int

    /// Limits.
    public init(pollsPerAccount: Int, pollsPerToken: Int, bodiesPerAccount: Int, uploadsPerAccount: Int) {
        self.pollsPerAccount = pollsPerAccount
        self.pollsPerToken = pollsPerToken
        self.bodiesPerAccount = bodiesPerAccount
        self.uploadsPerAccount = uploadsPerAccount
    }

    /// What `serve` holds to unless told otherwise: a device holds one poll at a time and
    /// sends one request at a time, so these leave an account of many devices room to spare.
    public static let defaults = FairShareLimits(pollsPerAccount: 64, pollsPerToken: 4, bodiesPerAccount: 16, uploadsPerAccount: 4)
}

/// How many of one kind of share each account holds now, against a limit per account.
final class ShareCounter: Sendable {
    private let held = Mutex<[String: Int]>([:])
    /// The most one account holds.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a share for `account`; false if it holds its limit.
    func claim(_ account: String) -> Bool {
        held.withLock { held in
            let count = held[account, default: 0]
            guard count < limit else { return false }
            held[account] = count + 1
            return true
        }
    }

    /// Gives back a share `claim` took.
    func release(_ account: String) {
        held.withLock { held in
            let count = held[account, default: 0] - 1
            held[account] = count > 0 ? count : nil
        }
    }

    /// How many shares `account` holds.
    func count(_ account: String) -> Int {
        held.withLock { $0[account, default: 0] }
    }
}

/// One server's fair shares: the bodies and uploads each account has in progress, and the
/// connections, where what an account holds may be closed to make room.
final class FairShares: Sendable {
    let limits: FairShareLimits
    let bodies: ShareCounter
    let uploads: ShareCounter
    /// The server's connections; nil where the routes run without any (a test's router).
    let connections: ConnectionRegistry?

    init(limits: FairShareLimits, connections: ConnectionRegistry?) {
        self.limits = limits
        bodies = ShareCounter(limit: limits.bodiesPerAccount)
        uploads = ShareCounter(limit: limits.uploadsPerAccount)
        self.connections = connections
    }

    /// What an account past one of its shares is told: try again in a second.
    static func refusal(_ what: String, limit: Int) -> UnreadBody {
        UnreadBody(error: WebServicesError(
            code: "TRY_AGAIN_LATER", reason: "An account sends at most \(limit) \(what) at once.", retryAfter: 1))
    }
}
