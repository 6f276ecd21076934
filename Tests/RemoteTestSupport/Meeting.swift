import Foundation
import Synchronization

/// Where the modifies of several clients meet: once armed, each that a `HookedDatabase`
/// sends through `meet()` waits until `count` of them (over every client) are in at once, or
/// until `patience` has passed on `clock`. How a test sees whether sessions that send together
/// each send at once, or wait for a thread. The patience only ends a meeting whose count never
/// comes (the test then fails on `mostAtOnce`); the modifies meet through continuations.
public final class Meeting: Sendable {
    public let count: Int
    public let patience: Duration
    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    private struct State {
        var isArmed = false
        var inside = 0
        var most = 0
        /// The modifies waiting for the others, by ticket.
        var waiting: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    public init(count: Int, patience: Duration, clock: any Clock<Duration> = ContinuousClock()) {
        self.count = count
        self.patience = patience
        self.clock = clock
    }

    /// From now on, modifies wait for each other.
    public func arm() {
        state.withLock { $0.isArmed = true }
    }

    /// The most modifies that were in at once since it was armed.
    public var mostAtOnce: Int { state.withLock { $0.most } }

    /// Awaits, holding no thread, until `count` are in or `patience` has passed.
    public func meet() async {
        guard state.withLock({ $0.isArmed }) else { return }
        let ticket = UUID()
        let (patience, clock) = (patience, clock)
        let giveUp = Task { [self] in
            try? await clock.sleep(for: patience)
            self.state.withLock { $0.waiting.removeValue(forKey: ticket) }?.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wake: [CheckedContinuation<Void, Never>] = state.withLock { state in
                state.inside += 1
                state.most = max(state.most, state.inside)
                guard state.most >= count else {
                    state.waiting[ticket] = continuation
                    return []
                }
                defer { state.waiting = [:] }
                return Array(state.waiting.values) + [continuation]
            }
            for waiter in wake { waiter.resume() }
        }
        giveUp.cancel()
        state.withLock { $0.inside -= 1 }
    }
}
