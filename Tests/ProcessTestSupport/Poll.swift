/// Waiting for what another process or thread does, where no signal tells when: a look every
/// `interval`, awaiting between looks (the test pool's threads stay free), and one last look
/// once the deadline has passed, so that a late resumption on a busy machine is no failure.
public enum Poll {
    /// Returns once `condition` holds; throws a `PollTimeout` naming `what` if it still does not
    /// after `timeout`.
    public static func until(
        _ what: String, timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(10),
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let late = ContinuousClock.now >= deadline
            if try await condition() { return }
            if late { throw PollTimeout(description: "timed out after \(timeout) waiting until \(what)") }
            try await Task.sleep(for: interval)
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
