import Dispatch

/// A task executor on a Dispatch queue that adds threads when its jobs block, as a store's
/// SQLite or socket calls do. The server's tasks, a store's background tasks and every call
/// of the SQLite store (`SQLiteRecordStore+RecordStore.swift`) prefer it, so that nothing
/// that blocks runs on the cooperative pool, whose few threads every task of the process
/// shares: a task waiting there on a call that needs a cooperative thread itself would wait
/// for good once every thread of the pool did the same.
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
