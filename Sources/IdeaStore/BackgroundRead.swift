import Dispatch
import Synchronization

/// A read that runs beside the app's main loop, whose outcome the loop picks up as it
/// ticks: reading every page at the start (`PageCheck`), counting a search's hits exactly.
public final class BackgroundRead<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)

    /// A read whose outcome comes from `finish(_:)` (a test's, or the queue's it runs on).
    public init() {}

    /// How the read ended; nil while it runs.
    public var result: Result<Value, any Error>? {
        outcome.withLock { $0 }
    }

    /// Whether the read has finished, either way.
    public var isFinished: Bool {
        result != nil
    }

    /// Records how the read ended.
    public func finish(_ result: Result<Value, any Error>) {
        outcome.withLock { $0 = result }
    }
}

/// A read of every page of the database (`IdeaRepository.checkEveryPage()`) running beside
/// the app: at a million ideas it takes seconds, so it comes after the first frame instead
/// of before it.
public typealias PageCheck = BackgroundRead<Void>

extension BackgroundRead where Value == Void {
    /// The damage the check found, once it has finished finding it; nil while it runs and
    /// when every page read.
    public var failure: (any Error)? {
        if case .failure(let error) = result { error } else { nil }
    }
}

/// Where reads that may take long run: on a queue of their own, calling `whenDone` once each
/// ends (the app wakes its screen), or `inline`, at once where they are asked for (tests).
public struct BackgroundReads: Sendable {
    let queue: DispatchQueue?
    let whenDone: @Sendable () -> Void

    /// Reads run where they are asked for, and have finished when asked for.
    public static let inline = BackgroundReads(queue: nil, whenDone: {})

    /// Reads run on `queue`; `whenDone` is called from there after each.
    public static func on(_ queue: DispatchQueue, whenDone: @escaping @Sendable () -> Void) -> BackgroundReads {
        BackgroundReads(queue: queue, whenDone: whenDone)
    }
}

extension IdeaRepository {
    /// Starts `read` of this repository as `reads` says, and hands back where its outcome
    /// will be. The repository's pool gives it a reader of its own: writes go on meanwhile.
    public func read<Value: Sendable>(
        _ reads: BackgroundReads, _ read: @escaping @Sendable (IdeaRepository) throws -> Value
    ) -> BackgroundRead<Value> {
        let outcome = BackgroundRead<Value>()
        let work: @Sendable () -> Void = {
            outcome.finish(Result { try read(self) })
            reads.whenDone()
        }
        if let queue = reads.queue { queue.async(execute: work) } else { work() }
        return outcome
    }

    /// Starts `checkEveryPage()` on a queue of its own, calling `whenDone` once it ends.
    public func checkEveryPageInBackground(whenDone: @escaping @Sendable () -> Void = {}) -> PageCheck {
        read(.on(DispatchQueue(label: "ideabox.page-check", qos: .utility), whenDone: whenDone)) { try $0.checkEveryPage() }
    }
}
