import CloudKitModel
import Synchronization

/// Whether the server's store answers, as its calls and its probes find it: one outage from
/// the moment the store is found not answering to the moment it answers again.
///
/// The store reports (`wentDown`, `answered`); the server is told of each change once
/// (`observe`): it logs a line when the store goes and one when it is back, with how long it
/// was down, and counts outages in `/metrics`. While it is down every call the store gets
/// fails at once with `refusal` (503 `TRY_AGAIN_LATER` with `retryAfter` on the wire), never
/// waiting for a connection that cannot come.
public final class StoreAvailability: Sendable {
    /// A change of the store's state.
    public enum Change: Sendable, Equatable {
        /// The store stopped answering; `cause` says how it failed, in its driver's words.
        case wentDown(cause: String)
        /// The store answers again after `after` down.
        case cameBack(after: Duration)
    }

    /// The seconds a client is asked to wait while the store is down: short, so that what
    /// waits goes within a few seconds of the store's return.
    public static let retryAfter: Double = 2

    private struct State {
        var downSince: ContinuousClock.Instant?
        var outages = 0
        var observers: [@Sendable (Change) -> Void] = []
    }

    private let state = Mutex(State())
    /// `state.downSince != nil`, read without the lock by every call the store gets.
    private let down = Atomic<Bool>(false)

    /// A store that answers, as far as anyone knows.
    public init() {}

    /// Whether the store is down now.
    public var isDown: Bool { down.load(ordering: .acquiring) }

    /// How many outages began since the server started.
    public var outages: Int { state.withLock { $0.outages } }

    /// What a call gets while the store is down.
    public var refusal: CloudError { .serverDatabaseUnavailable(retryAfter: Self.retryAfter) }

    /// Tells `observer` of every change from now on (on the reporter's task, outside any lock).
    public func observe(_ observer: @escaping @Sendable (Change) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// The store was found not answering at `now`, failing with `cause`: the start of an
    /// outage unless one is under way. Returns the change, if it was one.
    @discardableResult
    public func wentDown(cause: String, at now: ContinuousClock.Instant) -> Change? {
        let (change, observers) = state.withLock { state -> (Change?, [@Sendable (Change) -> Void]) in
            guard state.downSince == nil else { return (nil, []) }
            state.downSince = now
            state.outages += 1
            down.store(true, ordering: .releasing)
            return (.wentDown(cause: cause), state.observers)
        }
        if let change { for observer in observers { observer(change) } }
        return change
    }

    /// The store answered at `now`: the end of the outage under way, if one is. Returns the
    /// change, if it was one.
    @discardableResult
    public func answered(at now: ContinuousClock.Instant) -> Change? {
        guard isDown else { return nil }
        let (change, observers) = state.withLock { state -> (Change?, [@Sendable (Change) -> Void]) in
            guard let since = state.downSince else { return (nil, []) }
            state.downSince = nil
            down.store(false, ordering: .releasing)
            return (.cameBack(after: now - since), state.observers)
        }
        if let change { for observer in observers { observer(change) } }
        return change
    }
}
