import Synchronization

extension Task where Failure == any Error {
    /// The task's value; or, once the task awaiting it is cancelled, `CancellationError` at
    /// once, with the task cancelled and left to end on its own. A test's time limit
    /// (`.timeLimit`) then ends a test whose work never answers, with an issue that says so,
    /// instead of holding the whole run: `Task.value` alone ignores cancellation, and work
    /// that never answers may ignore it too (a query on a connection whose pool was closed
    /// under it never ended, cancelled or not).
    public var valueUnlessCancelled: Success {
        get async throws {
            let answer = OneAnswer<Success>()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    answer.wait(with: continuation)
                    Task<Void, Never> { answer.give(await result) }
                }
            } onCancel: {
                cancel()
                answer.give(.failure(Swift.CancellationError()))
            }
        }
    }
}

/// The first of the results given, handed to the one waiting for it (given before it waits
/// or after).
private final class OneAnswer<Success: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Success, any Error>?
        var result: Result<Success, any Error>?
        
    }

    private let state = Mutex(State())

    func wait(with continuation: CheckedContinuation<Success, any Error>) {
        let ready = state.withLock { state -> Result<Success, any Error>? in
            guard let result = state.result else {
                state.continuation = continuation
                return nil
            }
            return result
        }
        if let ready { continuation.resume(with: ready) }
    }

    func give(_ result: Result<Success, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<Success, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            guard let continuation = state.continuation.take() else { return nil }
            return continuation
        }
        waiting?.resume(with: result)
    }
}
