import Foundation

/// A value handed from a task back to the thread that waits for it.
private final class Handover<Value: Sendable>: @unchecked Sendable {
    /// Set once by the task, read after the semaphore says it is set.
    var value: Value?
}

/// What `work` returns, the calling thread blocked until it does: libFuzzer calls each
/// input on a plain thread, and the server's operations are async.
func blocking<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value {
    let done = DispatchSemaphore(value: 0)
    let handover = Handover<Value>()
    Task {
        handover.value = await work()
        done.signal()
    }
    done.wait()
    return handover.value!
}
