import Dispatch
import Synchronization

/// The value of `work`, awaited by blocking the calling thread: for a benchmark's own
/// threads (its main thread, its `Thread`s, its `concurrentPerform` workers), which time
/// calls one after another, never for a task's thread. The product has no such bridge: its
/// sync loop crosses into async in one place and nothing waits for the task.
public func onBenchThread<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<Value, any Error>?>(nil)
    Task {
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await work())
        } catch {
            outcome = .failure(error)
        }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
