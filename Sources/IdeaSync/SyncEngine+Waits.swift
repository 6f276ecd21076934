/// How long the engine waits: between its looks (idle, in local mode, while locked, at the
/// account) and before each retry after a failure. Pure: the engine asks, the tests check.
extension SyncEngine {
    /// Waits before the retries after a failure.
    public static let retryDelays: [Int64] = [1000, 2000, 4000]
    /// How often an idle engine looks for changes on the remote and in the outbox, when no
    /// long poll tells it of them.
    public static let periodicMilliseconds: Int64 = 1000
    /// How often an idle engine fetches anyway while a long poll is held: a notification
    /// missed for any reason is made up for within this time.
    public static let safetyMilliseconds: Int64 = 300_000
    /// How often an engine with a long poll looks for local changes other processes of
    /// this profile queued (the outbox, the library folder), without the network.
    public static let localLookMilliseconds: Int64 = 2000
    /// How often an engine in local mode (offline, signed out, quota, another account)
    /// checks whether it can sync again: a cheap look, as a reachability monitor would.
    public static let localModeMilliseconds: Int64 = 2000
    /// How often the engine looks at the account signal (`followAccount`): a file's version,
    /// read without the network, so a sign-in made elsewhere is followed well within 2 s.
    public static let accountLookMilliseconds: Int64 = 1000
    /// The longest wait between tries once three retries failed; any other trigger (a
    /// local change, `s`, the network coming back) tries sooner.
    public static let afterRetriesMilliseconds: Int64 = 30_000
    /// The longest wait between the looks of a locked device: each reads the account's key
    /// envelope from the remote (a request, unlike local mode's other looks), so they back
    /// off from two seconds to this; an unlock is noticed by then, or at once by any trigger.
    public static let lockedLookMilliseconds: Int64 = 30_000

    /// The wait before a locked device looks again after `looks` looks in a row found it
    /// locked: 2 s, doubling up to `lockedLookMilliseconds`.
    public static func lockedLookDelay(afterLooks looks: Int) -> Int64 {
        min(localModeMilliseconds << min(max(0, looks - 1), 8), lockedLookMilliseconds)
    }

    /// A server's retry-after in milliseconds, within 0 and an hour: a value that is not a
    /// number, or too big for one, waits the hour rather than trapping.
    public static func milliseconds(_ retryAfter: Double) -> Int64 {
        guard retryAfter.isFinite else { return 3_600_000 }
        return Int64(min(max(retryAfter, 0), 3600) * 1000)
    }

    /// The wait before the next try after `attempt` failures in a row: the seed's 1, 2 and
    /// 4 s, then doubling up to 30 s, so a remote that heals is noticed within 30 s.
    public static func retryDelay(afterFailure attempt: Int) -> Int64 {
        if attempt <= retryDelays.count { return retryDelays[max(0, attempt - 1)] }
        let doubled = retryDelays[retryDelays.count - 1] << min(attempt - retryDelays.count, 8)
        return min(doubled, afterRetriesMilliseconds)
    }
}
