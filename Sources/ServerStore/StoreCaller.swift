import Synchronization

/// Who makes the store calls of the current task (a request), so that a `StoreGate` can tell
/// when they are no longer wanted: a request whose client has gone before the first of its
/// calls was let in makes none (`Gone`). Once one has begun, the rest run, so that no request
/// is left half done.
public final class StoreCaller: Sendable {
    /// The caller of the store calls made in this task and its children; nil outside a request.
    @TaskLocal public static var current: StoreCaller?

    /// Thrown instead of a call skipped because its caller has gone.
    public struct Gone: Error {}

    private let isGone: @Sendable () -> Bool
    private let begun = Atomic(false)

    /// A caller that has gone once `isGone` says so (asked from any thread).
    public init(isGone: @escaping @Sendable () -> Bool) {
        self.isGone = isGone
    }

    /// Whether a call let in now may run: not if no call has begun and the caller has gone.
    /// A call that may run counts as begun.
    func mayBegin() -> Bool {
        guard !begun.load(ordering: .relaxed) else { return true }
        guard !isGone() else { return false }
        begun.store(true, ordering: .relaxed)
        return true
    }
}
