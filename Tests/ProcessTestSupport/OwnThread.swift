import Foundation
import Synchronization

/// Work that blocks (on sockets, on another process's file) run on a thread of its own, so
/// that Swift Testing's few cooperative threads stay free while a test awaits it.
public enum OwnThread {
    /// The value of `work`, run on a new thread.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// `work` started on a new thread now, before the caller awaits anything: its value is
    /// read later with `Started.value`.
    public static func start<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) -> Started<Value> {
        let started = Started<Value>()
        Thread { started.finish(Result { try work() }) }.start()
        return started
    }

    /// What `start` began: its value, once its thread has it.
    public final class Started<Value: Sendable>: Sendable {
        private let state = Mutex<(result: Result<Value, any Error>?, reader: CheckedContinuation<Value, any Error>?)>((nil, nil))

        fileprivate init() {}

        fileprivate func finish(_ result: Result<Value, any Error>) {
            state.withLock { state in
                guard let reader = state.reader else { return state.result = result }
                state.reader = nil
                reader.resume(with: result)
            }
        }

        /// The work's value, or what it threw; read once.
        public var value: Value {
            get async throws {
                try await withCheckedThrowingContinuation { continuation in
                    state.withLock { state in
                        guard let result = state.result else { return state.reader = continuation }
                        continuation.resume(with: result)
                    }
                }
            }
        }
    }

    /// The value of `work`, run as a task while the calling thread waits: for code already on
    /// a thread of its own (never one of the test pool's) that must await something.
    public static func wait<Value: Sendable>(for work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let answer = Answer<Value>()
        Task {
            do {
                answer.result = .success(try await work())
            } catch {
                answer.result = .failure(error)
            }
            answer.ready.signal()
        }
        answer.ready.wait()
        return try answer.result!.get()
    }

    /// The result a waiting thread reads once `ready` is signalled.
    private final class Answer<Value: Sendable>: @unchecked Sendable {
        var result: Result<Value, any Error>?
        let ready = DispatchSemaphore(value: 0)
    }
}
