import Foundation
import IdeaBoxCore

/// One line per request: time, method, path, status, milliseconds and account (`-` before
/// the token was checked). Never a token, never a body.
public struct RequestLog: Sendable {
    private let write: @Sendable (String) -> Void
    private let clock: WallClock

    /// A log that hands each line to `write`, stamped by `clock`.
    public init(clock: WallClock, write: @escaping @Sendable (String) -> Void) {
        self.clock = clock
        self.write = write
    }

    /// A log on standard error.
    public static func standardError(clock: WallClock) -> RequestLog {
        RequestLog(clock: clock) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// Logs one answered request.
    func record(method: String, path: String, status: Int, elapsed: Duration, account: String?) {
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let shown = (milliseconds * 10).rounded() / 10
        write("\(clock.now().iso8601) \(method) \(path) \(status) \(shown) ms \(account ?? "-")")
    }
}
