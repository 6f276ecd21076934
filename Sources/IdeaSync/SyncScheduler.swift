import Dispatch
import IdeaBoxFoundation
import Synchronization

/// Where the sync loop runs, and its sense of time: a serial Dispatch queue in the app, a
/// hand-stepped queue in tests, so tests never sleep.
public protocol SyncScheduler: Sendable {
    /// The time now.
    var clock: WallClock { get }
    /// Runs `work` after `milliseconds`, one piece of work at a time, in due order.
    func schedule(after milliseconds: Int64, _ work: @escaping @Sendable () -> Void)

    /// Starts `work` in a task (the one place the loop crosses into async), then runs `done`
    /// with its result as work scheduled on this scheduler: nothing waits for the task, and
    /// no thread is held while it runs.
    func launch<Value: Sendable>(_ work: @escaping @Sendable () async -> Value, then done: @escaping @Sendable (Value) -> Void)
}

extension SyncScheduler {
    public func launch<Value: Sendable>(_ work: @escaping @Sendable () async -> Value, then done: @escaping @Sendable (Value) -> Void) {
        Task {
            let value = await work()
            schedule(after: 0) { done(value) }
        }
    }
}

/// The app's scheduler: a serial Dispatch queue and the wall clock.
public struct DispatchSyncScheduler: SyncScheduler {
    public let clock: WallClock
    private let queue: DispatchQueue

    /// A scheduler on a new serial queue.
    public init(clock: WallClock, label: String = "ideabox.sync") {
        self.clock = clock
        queue = DispatchQueue(label: label, qos: .utility)
    }

    public func schedule(after milliseconds: Int64, _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(max(0, milliseconds))), execute: work)
    }
}

/// A scheduler that a test steps: work runs only inside `advance(by:)` or `runDue()`,
/// in the order it falls due, and the clock moves with it. A task work launches is awaited
/// before the next piece of work runs, so a step sees it through as the Dispatch loop would
/// see it end: its `done` is work due at that moment.
public final class ManualSyncScheduler: SyncScheduler {
    private struct Job {
        var due: Int64
        var sequence: Int
        var work: @Sendable () -> Void
    }

    private let manualClock: ManualClock
    private let jobs = Mutex<(next: Int, queue: [Job])>((0, []))
    private let launched = Mutex<[Task<Void, Never>]>([])

    /// A scheduler whose clock starts at `start`.
    public init(start: Timestamp) {
        manualClock = ManualClock(start: start)
    }

    public var clock: WallClock { manualClock.wallClock }

    /// The time now.
    public var now: Timestamp { manualClock.now }

    /// How many pieces of work wait.
    public var pendingCount: Int { jobs.withLock { $0.queue.count } }

    public func schedule(after milliseconds: Int64, _ work: @escaping @Sendable () -> Void) {
        let due = manualClock.now.milliseconds + max(0, milliseconds)
        jobs.withLock { state in
            state.queue.append(Job(due: due, sequence: state.next, work: work))
            state.next += 1
        }
    }

    public func launch<Value: Sendable>(_ work: @escaping @Sendable () async -> Value, then done: @escaping @Sendable (Value) -> Void) {
        let task = Task {
            let value = await work()
            schedule(after: 0) { done(value) }
        }
        launched.withLock { $0.append(task) }
    }

    /// Runs everything due now, including work it schedules for now.
    public func runDue() async {
        await advance(by: 0)
    }

    /// Moves time forward by `milliseconds`, running each piece of work at its due time.
    public func advance(by milliseconds: Int64) async {
        let end = manualClock.now.milliseconds + milliseconds
        while true {
            await settleLaunched()
            guard let job = takeNext(dueBy: end) else { break }
            if job.due > manualClock.now.milliseconds {
                manualClock.set(Timestamp(milliseconds: job.due))
            }
            job.work()
        }
        manualClock.set(Timestamp(milliseconds: end))
    }

    /// Waits for every task launched so far, and those they launch.
    private func settleLaunched() async {
        while true {
            let tasks = launched.withLock { launched in
                defer { launched = [] }
                return launched
            }
            guard !tasks.isEmpty else { return }
            for task in tasks { await task.value }
        }
    }

    private func takeNext(dueBy limit: Int64) -> Job? {
        jobs.withLock { state in
            guard let index = state.queue.indices
                .filter({ state.queue[$0].due <= limit })
                .min(by: { (state.queue[$0].due, state.queue[$0].sequence) < (state.queue[$1].due, state.queue[$1].sequence) })
            else { return nil }
            return state.queue.remove(at: index)
        }
    }
}
