import Synchronization

/// A value several tasks or threads share, behind a lock: a class around a `Mutex`, so that
/// closures and tasks can hold it (a benchmark's counters, a test's record of what happened).
public final class Locked<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    public init(_ value: Value) {
        state = Mutex(value)
    }

    /// The value of `body`, run with the value under the lock.
    public func withLock<Result: Sendable>(_ body: @Sendable (inout Value) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    /// The value now.
    public var value: Value { withLock { $0 } }
}
