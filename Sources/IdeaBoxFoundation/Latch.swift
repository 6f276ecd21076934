import Synchronization

/// A door opened once: tasks that await `opened()` are suspended (holding no thread) until
/// it is opened, and pass at once after. A server's start awaits its listening so; a test
/// holds a store's work at a point it names (a fill between its batches, a deadline not yet
/// due) and lets it go when it chooses.
public final class Latch: Sendable {
    private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// A closed latch.
    public init() {}

    /// How many tasks wait for it now.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// Returns once the latch is open.
    public func opened() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Opens it: every waiting task goes on, and every later one passes.
    public func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for task in waiting { task.resume() }
    }
}
