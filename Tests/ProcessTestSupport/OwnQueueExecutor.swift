import Dispatch

/// A task executor on a serial Dispatch queue of its own: a task that prefers it
/// (`withTaskExecutorPreference`) runs, and resumes after each await, there and not on Swift
/// Testing's cooperative pool, which the other tests of a full run can keep busy for a second
/// at a time. For what a test measures the time of, such as another device's request.
public final class OwnQueueExecutor: TaskExecutor {
    private let queue: DispatchQueue

    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
