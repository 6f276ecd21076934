import Glibc

/// A pipe that lets another thread cut the app's wait for a key short: sync finished with
/// another device's change, so the screen shows it now rather than at the next tick.
/// `wake()` only writes a byte, so any thread may call it at any time.
public final class TerminalWake: Sendable {
    /// The end the terminal waits on.
    let readEnd: Int32
    /// The end `wake()` writes to (and the resize signal's handler, see `NcursesTerminal`).
    let writeEnd: Int32

    /// A new pipe; nil if the process has no file descriptors left.
    public init?() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Ends the terminal's current (or next) wait; wakes already pending fold into one.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
