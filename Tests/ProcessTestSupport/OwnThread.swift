import Foundation

/// Work that blocks (on sockets, on another process's file) run on a thread of its own, so
/// that Swift Testing's few cooperative threads stay free while a test awaits it.
public enum OwnThread {
    /// The value of `work`, run on a new thread.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
