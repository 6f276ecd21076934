import Synchronization

/// How often one access token (a device) and one account may begin a long poll. A device
/// polls again the moment its poll is answered: a change a second or a poll's minute up costs
/// the server a poll's set-up read now and then. A client that re-sends each poll as it is
/// answered — answered at once because it holds more than its fair share of polls, say —
/// would make the server read and answer thousands a second, and slow every other account.
///
/// Each token may begin `burst` polls at once (its fair share of held polls) and then one each `1 / perSecond` of a second;
/// each account `accountBurst` and `accountPerSecond` (the generic cell rate algorithm, one
/// time a key). A poll begun sooner is held, before anything is read for it, until its turn;
/// one whose turn is more than `longestWait` away is answered `THROTTLED` after a pause (not
/// at once: a client that sends again the moment it is answered is held to one answer a
/// pause a connection), and its turn not taken. The pause is `longestWait` for a token's
/// first refusals and grows as they come faster than its pace, each adding one interval of
/// the pace, up to `longestPause`: the round's 4,000 connections of 16 tokens re-sending at
/// once were answered 850 times a second at a pause of 2 s, and are about 130 at 30 s.
final class PollPace: Sendable {
    /// What a poll is told as it arrives.
    enum Turn: Equatable {
        /// Its turn is now.
        case now
        /// Its turn comes after this wait.
        case after(Duration)
        /// Its turn is too far off: refused after `pause`, to ask again after `retryAfter`.
        case refused(retryAfter: Duration, pause: Duration)
    }

    /// The pace: per token and per account, a rate and how many may come at once.
    struct Limits: Hashable {
        var perSecond: Double
        var burst: Int
        var accountPerSecond: Double
        var accountBurst: Int
        var longestWait: Duration
        /// The longest a refused poll is held before it is answered.
        var longestPause: Duration = .seconds(30)

        /// One fair share of polls at once, then half a share a second, per token and per
        /// account: with the default shares a device's 4 at once, then 2 a second, an
        /// account's 64, then 32; held at most 2 s for a turn, refused after 2 to 30 s. An operator who raises the shares
        /// (`--max-polls-per-token`) raises the pace with them.
        init(shares: FairShareLimits) {
            self.init(
                perSecond: Double(shares.pollsPerToken) / 2, burst: shares.pollsPerToken,
                accountPerSecond: Double(shares.pollsPerAccount) / 2, accountBurst: shares.pollsPerAccount, longestWait: .seconds(2))
        }

        init(perSecond: Double, burst: Int, accountPerSecond: Double, accountBurst: Int, longestWait: Duration) {
            self.perSecond = perSecond
            self.burst = burst
            self.accountPerSecond = accountPerSecond
            self.accountBurst = accountBurst
            self.longestWait = longestWait
        }

        static let defaults = Limits(shares: .defaults)
    }

    private struct State {
        /// Each key's theoretical arrival time: when its next poll would come at the pace.
        var due: [String: ContinuousClock.Instant] = [:]
        /// Each token's (or URL-of-no-token account's) refusals, paced as its polls are:
        /// how far past now they have come, which its next refusal's pause is.
        var refusedDue: [String: ContinuousClock.Instant] = [:]
        var turnsSincePruned = 0
    }

    let limits: Limits
    private let state = Mutex(State())

    init(limits: Limits = .defaults) {
        self.limits = limits
    }

    /// The turn of a poll of `account` with the token hashed `token` (nil: an earlier
    /// release's URL, paced by its account alone) arriving `now`.
    func turn(account: String, token: String?, now: ContinuousClock.Instant = .now) -> Turn {
        let accountKey = "a:" + account
        let tokenKey = token.map { "t:" + account + ":" + $0 }
        return state.withLock { state in
            state.turnsSincePruned += 1
            if state.turnsSincePruned >= 4_096 {
                // A key whose time has passed paces nothing: forgotten.
                state.due = state.due.filter { $0.value > now }
                state.refusedDue = state.refusedDue.filter { $0.value > now }
                state.turnsSincePruned = 0
            }
            let accountPace = Self.wait(state.due[accountKey], now: now, perSecond: limits.accountPerSecond, burst: limits.accountBurst)
            var wait = accountPace.wait
            var tokenPace: (wait: Duration, next: ContinuousClock.Instant)?
            if let tokenKey {
                let pace = Self.wait(state.due[tokenKey], now: now, perSecond: limits.perSecond, burst: limits.burst)
                wait = max(wait, pace.wait)
                tokenPace = pace
            }
            guard wait <= limits.longestWait else {
                let key = tokenKey ?? accountKey
                let interval = Duration.seconds(1 / (tokenKey == nil ? limits.accountPerSecond : limits.perSecond))
                let refusedAt = max(state.refusedDue[key] ?? now, now) + interval
                state.refusedDue[key] = refusedAt
                return .refused(retryAfter: wait, pause: min(limits.longestPause, max(limits.longestWait, refusedAt - now)))
            }
            state.due[accountKey] = accountPace.next
            if let tokenKey, let tokenPace { state.due[tokenKey] = tokenPace.next }
            return wait > .zero ? .after(wait) : .now
        }
    }

    /// How long a poll arriving `now` waits for its turn under one key whose next poll was
    /// due at `due`, and when the key's next is due if it takes the turn.
    private static func wait(
        _ due: ContinuousClock.Instant?, now: ContinuousClock.Instant, perSecond: Double, burst: Int
    ) -> (wait: Duration, next: ContinuousClock.Instant) {
        let interval = Duration.seconds(1 / perSecond)
        let tolerance = interval * (burst - 1)
        let at = max(due ?? now, now)
        let wait = max(.zero, at - now - tolerance)
        return (wait, at + interval)
    }
}
