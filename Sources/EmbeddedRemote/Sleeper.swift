import Foundation

/// How a client waits out simulated latency; injected so that tests record the waits
/// instead of sleeping.
public struct Sleeper: Sendable {
    private let wait: @Sendable (_ milliseconds: Int) -> Void

    /// A sleeper that calls `wait` with the number of milliseconds to wait.
    public init(_ wait: @escaping @Sendable (_ milliseconds: Int) -> Void) {
        self.wait = wait
    }

    /// Blocks the calling thread for `milliseconds`.
    public func sleep(milliseconds: Int) {
        wait(milliseconds)
    }

    /// Really sleeps.
    public static let system = Sleeper { milliseconds in
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
    }
}
