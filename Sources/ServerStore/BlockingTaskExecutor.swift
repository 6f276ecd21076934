import Dispatch
import Synchronization

/// A task executor on a Dispatch queue that adds threads when its jobs block, as a store's
/// SQLite or socket calls do. The server's tasks and a store's background tasks prefer it,
/// so that they never wait on the cooperative pool, whose few threads a caller of
/// `runBlocking` (a command, a test) may be holding.
///
/// On Linux the queue is not "overcommit": Dispatch runs about a thread a core on it and adds
/// more only after its monitor has seen the running ones blocked for a while, so a burst of
/// calls that block (SQLite's one writer, a busy store) slows every job behind them for that
/// while. `serve` on SQLite lets one call a core and one more through its gate
/// (`GatedRecordStore`), which keeps such a burst short.
public final class BlockingTaskExecutor: TaskExecutor {
    public static let shared = BlockingTaskExecutor()

    private let queue = DispatchQueue(label: "ideabox.serve.requests", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Runs `operation` on a thread that may block and waits for its result: how synchronous
/// code (a command, a test) uses a `RecordStore`, whose methods are async.
public func runBlocking<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) throws -> Result {
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Swift.Result<Result, any Error>?>(nil)
    Task(executorPreference: BlockingTaskExecutor.shared) {
        let result: Swift.Result<Result, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}
