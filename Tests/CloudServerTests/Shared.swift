import Synchronization

/// A value tasks share, behind a lock.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    func withLock<Result: Sendable>(_ body: @Sendable (inout Value) -> Result) -> Result {
        value.withLock { body(&$0) }
    }
}
