import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The lines a running process writes to standard output, read from a FIFO as they come:
/// a wait for a line blocks in `poll` until the process writes (or the deadline passes),
/// so no test sleeps to look again.
final class OutputLines {
    /// The FIFO the process writes to: give it as the process's standard output.
    let path: URL
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var lines: [String] = []
    private var ended = false

    /// A FIFO at `path`, open for reading before any writer comes.
    init(path: URL) throws {
        self.path = path
        guard mkfifo(path.path, 0o600) == 0 else {
            throw EndToEndError(description: "mkfifo \(path.path): \(String(cString: strerror(errno)))")
        }
        // Non-blocking, so that opening does not wait for the writer; `poll` does the waiting.
        descriptor = open(path.path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { throw EndToEndError(description: "open \(path.path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(descriptor)
    }

    /// Waits until `condition` holds for the lines written so far, within `timeout`. The
    /// waiting happens on a thread of its own, off the test pool.
    func waitFor(_ what: String, timeout: Duration = .seconds(15), until condition: @escaping ([String]) -> Bool) async throws {
        nonisolated(unsafe) let reader = self
        nonisolated(unsafe) let condition = condition
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                continuation.resume(with: Result { try reader.read(what, timeout: timeout, until: condition) })
            }.start()
        }
    }

    private func read(_ what: String, timeout: Duration, until condition: ([String]) -> Bool) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !condition(lines) {
            let left = deadline - clock.now
            guard left > .zero, !ended else {
                throw EndToEndError(description: "\(ended ? "The output ended" : "Timed out") waiting for \(what): \(lines)")
            }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&waiting, 1, milliseconds) > 0 else { continue }
            drain(hungUp: waiting.revents & Int16(POLLHUP) != 0)
        }
    }

    /// Takes every byte waiting, splits off the whole lines; a writer that hung up (and
    /// left nothing more) ends it.
    private func drain(hungUp: Bool) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count > 0 {
                buffer += chunk[..<count]
                continue
            }
            if count == 0 && hungUp { ended = true }
            break
        }
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
            buffer.removeSubrange(...newline)
        }
    }
}
