import Foundation

/// How a client waits out simulated latency; injected so that tests record the waits
/// instead of sleeping.
public struct Sleeper: Sendable {
    private let wait: @Sendable (_ milliseconds: Int) async -> Void

    /// A sleeper that calls `wait` with the number of milliseconds to wait.
    public init(_ wait: @escaping @Sendable (_ milliseconds: Int) async -> Void) {
        self.wait = wait
    }

    /// Waits `milliseconds` (suspending, holding no thread).
    public func sleep(milliseconds: Int) async {
        await wait(milliseconds)
    }

    /// Really sleeps.
    public static let system = Sleeper { milliseconds in
        try? await Task.sleep(for: .milliseconds(milliseconds))
    }
}
