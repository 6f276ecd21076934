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
    /// The most JSON request bodies one account is sending at once; past it as many again
    /// wait (unread, for at most `bodyPatience`) for one to arrive whole, and a request past
    /// those is answered `TRY_AGAIN_LATER` unread: an account's devices woken together by one
    /// change fetch at once, and a slow server should slow them, not refuse them. A body that
    /// has arrived counts no more while its request is answered.
    public var bodiesPerAccount: Int
    /// The most asset uploads one account has in progress; past it a new one is answered
    /// `TRY_AGAIN_LATER` unread. (The server's own limit, `maximumUploads`, still holds.)
    public var uploadsPerAccount: Int
    /// The most answers of records one account has in flight at once (`records/query`,
    /// `records/lookup`, `records/changes`, `changes/zone`: each up to `PageBudget.byteBudget`
    /// of fields and one record, read and written a few times over), from the store's first
    /// read until the answer's last byte is written; past it as many again wait (at most
    /// `answerPatience`) for one to be written, and a request past those is answered
    /// `TRY_AGAIN_LATER`. One account's big reads then queue behind each other, and what they
    /// hold at once is bounded whatever their records hold.
    public var answersPerAccount: Int

    /// Limits.
    public init(pollsPerAccount: Int, pollsPerToken: Int, bodiesPerAccount: Int, uploadsPerAccount: Int, answersPerAccount: Int = 4) {
        self.pollsPerAccount = pollsPerAccount
        self.pollsPerToken = pollsPerToken
        self.bodiesPerAccount = bodiesPerAccount
        self.uploadsPerAccount = uploadsPerAccount
        self.answersPerAccount = answersPerAccount
    }

    /// What `serve` holds to unless told otherwise: a device holds one poll at a time and
    /// sends one request at a time, so these leave an account of many devices room to spare
    /// (a device's fetch of changes, zone after zone, holds one answer at a time).
    public static let defaults = FairShareLimits(
        pollsPerAccount: 64, pollsPerToken: 4, bodiesPerAccount: 16, uploadsPerAccount: 4, answersPerAccount: 4)
}

/// How many of one kind of share each account holds now, against a limit per account; past
/// it, as many again may wait in line a little while for a share to come free.
final class ShareCounter: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var held: [String: Int] = [:]
        /// Each account's requests waiting for a share, first come first served.
        var waiting: [String: [Waiter]] = [:]
        var nextWaiter: UInt64 = 0

        /// Takes the waiter `id` of `account` out of the line, if it is still in it.
        mutating func leave(_ id: UInt64, of account: String) -> Waiter? {
            guard var line = waiting[account], let index = line.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = line.remove(at: index)
            waiting[account] = line.isEmpty ? nil : line
            return waiter
        }
    }

    private let state = Mutex(State())
    /// The most one account holds.
    let limit: Int
    /// The most of one account's requests that wait in line for a share (`claim(_:waitingAtMost:)`).
    let line: Int

    init(limit: Int, line: Int = 0) {
        self.limit = limit
        self.line = line
    }

    /// Takes a share for `account`; false if it holds its limit.
    func claim(_ account: String) -> Bool {
        state.withLock { state in
            let count = state.held[account, default: 0]
            guard count < limit else { return false }
            state.held[account] = count + 1
            return true
        }
    }

    /// Takes a share for `account`, waiting in its line at most `patience` for one to come
    /// free; false at once if its line is full, or once `patience` has passed (or the task
    /// is cancelled) without a share. A share given back goes to the first in line.
    func claim(_ account: String, waitingAtMost patience: Duration) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                enum Step { case taken, refused, waits }
                let step = state.withLock { state -> Step in
                    let count = state.held[account, default: 0]
                    if count < limit {
                        state.held[account] = count + 1
                        return .taken
                    }
                    guard state.waiting[account, default: []].count < line, !Task.isCancelled else { return .refused }
                    state.waiting[account, default: []].append(Waiter(id: id, continuation: continuation))
                    return .waits
                }
                switch step {
                case .taken: continuation.resume(returning: true)
                case .refused: continuation.resume(returning: false)
                case .waits:
                    // One timer per request in line, and only while an account is past its share.
                    Task { [self] in
                        try? await Task.sleep(for: patience)
                        giveUp(id, of: account)
                    }
                }
            }
        } onCancel: {
            giveUp(id, of: account)
        }
    }

    /// Takes `id` out of `account`'s line without a share, if it still waits.
    private func giveUp(_ id: UInt64, of account: String) {
        state.withLock { $0.leave(id, of: account) }?.continuation.resume(returning: false)
    }

    /// Gives back a share `claim` took: to the first of the account's line, if one waits.
    func release(_ account: String) {
        let next = state.withLock { state -> Waiter? in
            if let first = state.waiting[account]?.first { return state.leave(first.id, of: account) }
            let count = state.held[account, default: 0] - 1
            state.held[account] = count > 0 ? count : nil
            return nil
        }
        next?.continuation.resume(returning: true)
    }

    /// How many shares `account` holds.
    func count(_ account: String) -> Int {
        state.withLock { $0.held[account, default: 0] }
    }

    /// How many of `account`'s requests wait in its line.
    func waiting(_ account: String) -> Int {
        state.withLock { $0.waiting[account]?.count ?? 0 }
    }
}

/// One server's fair shares: the bodies, uploads and answers each account has in progress,
/// and the connections, where what an account holds may be closed to make room.
final class FairShares: Sendable {
    let limits: FairShareLimits
    let bodies: ShareCounter
    let uploads: ShareCounter
    let answers: ShareCounter
    /// The server's connections (on sockets, or a test's in process).
    let connections: ConnectionRegistry

    init(limits: FairShareLimits, connections: ConnectionRegistry) {
        self.limits = limits
        bodies = ShareCounter(limit: limits.bodiesPerAccount, line: limits.bodiesPerAccount)
        uploads = ShareCounter(limit: limits.uploadsPerAccount)
        answers = ShareCounter(limit: limits.answersPerAccount, line: 2 * limits.answersPerAccount)
        self.connections = connections
    }

    /// How long a request with a body waits in its account's line for a share.
    static let bodyPatience: Duration = .seconds(10)
    /// How long a read of records waits in its account's line for an answer's share.
    static let answerPatience: Duration = .seconds(10)

    /// What an account past one of its shares is told: try again in a second.
    static func refusal(_ what: String, limit: Int) -> UnreadBody {
        UnreadBody(error: WebServicesError(
            code: "TRY_AGAIN_LATER", reason: "An account sends at most \(limit) \(what) at once.", retryAfter: 1))
    }
}
