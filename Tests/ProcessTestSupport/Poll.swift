/// Waiting for what another process or thread does, where no signal tells when: a look every
/// `interval`, awaiting between looks (the test pool's threads stay free). It gives up only
/// once the deadline has passed *and* it has looked as many times as the timeout holds
/// intervals: on a busy machine, where the whole suite can hold both of the pool's threads
/// for minutes, a starved pool stretches the looks, and the task being waited for gets a
/// turn between every two of them before the wait is called failed (CI, 2026-11-29: a
/// 10 s wait ran out while the pool was held for 150 s, with one look after it).
public enum Poll {
    /// Returns once `condition` holds; throws a `PollTimeout` naming `what` if it still does not
    /// after `timeout`.
    public static func until(
        _ what: String, timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(10),
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        let looksOwed = Int((timeout / interval).rounded(.up))
        var looks = 0
        while true {
            let late = ContinuousClock.now >= deadline && looks >= looksOwed
            looks += 1
            if try await condition() { return }
            if late { throw PollTimeout(description: "timed out after \(timeout) waiting until \(what)") }
            try await Task.sleep(for: interval)
        }
    }

    /// Returns once `count` has not changed for `quiet` of the clock (not for a number of
    /// looks, which a busy machine stretches): what it counts (requests, lines of a log) has
    /// settled. Throws as `until` does if it keeps changing past `timeout`.
    public static func untilQuiet(
        _ what: String, for quiet: Duration = .milliseconds(200), timeout: Duration = .seconds(10),
        every interval: Duration = .milliseconds(10), _ count: () throws -> Int
    ) async throws {
        var seen = try count()
        var since = ContinuousClock.now
        try await until(what, timeout: timeout, every: interval) {
            let now = try count()
            if now != seen {
                (seen, since) = (now, ContinuousClock.now)
            }
            return ContinuousClock.now - since >= quiet
        }
    }
}

/// A condition that did not come true in time.
public struct PollTimeout: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}
