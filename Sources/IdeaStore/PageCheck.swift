import Dispatch
import Synchronization

/// A read of every page of the database (`IdeaRepository.checkEveryPage()`) running beside
/// the app: at a million ideas it takes seconds, so it comes after the first frame instead
/// of before it. The app looks at `failure` as it ticks.
public final class PageCheck: Sendable {
    private let outcome = Mutex<Result<Void, any Error>?>(nil)

    /// A check whose outcome comes from `finish(_:)` (a test's, or the repository's thread).
    public init() {}

    /// The damage the check found, once it has finished finding it; nil while it runs and
    /// when every page read.
    public var failure: (any Error)? {
        outcome.withLock { outcome in
            if case .failure(let error) = outcome { error } else { nil }
        }
    }

    /// Whether the check has finished, either way.
    public var isFinished: Bool {
        outcome.withLock { $0 != nil }
    }

    /// Records how the check ended.
    public func finish(_ result: Result<Void, any Error>) {
        outcome.withLock { $0 = result }
    }
}

extension IdeaRepository {
    /// Starts `checkEveryPage()` on a queue of its own (a reader of the pool: writes go on
    /// meanwhile) and calls `whenDone` once it ends, from that queue.
    public func checkEveryPageInBackground(whenDone: @escaping @Sendable () -> Void = {}) -> PageCheck {
        let check = PageCheck()
        DispatchQueue(label: "ideabox.page-check", qos: .utility).async {
            check.finish(Result { try self.checkEveryPage() })
            whenDone()
        }
        return check
    }
}
