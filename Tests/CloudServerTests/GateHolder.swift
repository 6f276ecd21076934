import IdeaBoxFoundation
import ProcessTestSupport
import ServerStore

/// A call that holds a gate's only place until released.
struct GateHolder {
    private let task: Task<Void, any Error>
    private let inside: Locked<CheckedContinuation<Void, Never>?>

    init(_ gate: StoreGate) async throws {
        let inside = Locked<CheckedContinuation<Void, Never>?>(nil)
        task = Task { try await gate.run { await withCheckedContinuation { continuation in inside.withLock { $0 = continuation } } } }
        self.inside = inside
        try await Poll.until("the holder is inside") { inside.withLock { $0 != nil } }
    }

    func release() async throws {
        inside.withLock { $0 }?.resume()
        try await task.value
    }
}
