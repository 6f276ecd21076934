import Dispatch
import Foundation
import GRDB

/// Empties the write-ahead log soon after records were written, so that the values a write
/// replaced or deleted do not linger there: `secure_delete` zeroes freed pages in the
/// database file, but the WAL keeps every frame written until a checkpoint restarts it, and
/// a running server would keep a sealed-over plain idea in its `-wal` file for as long as it
/// ran (issue 38).
///
/// One `TRUNCATE` checkpoint runs `delay` after the first write that follows the last one,
/// on a queue of its own: at most one a `delay`, whatever the load, and never on a
/// request's path. A checkpoint that finds a reader still on an older snapshot leaves the
/// rest to the next. It holds the connections weakly: a store let go closes them, and the
/// last close checkpoints and removes the WAL (a command that ends does not wait for it).
final class WALScrubber: @unchecked Sendable {
    private weak var writer: (any DatabaseWriter)?
    private let delay: DispatchTimeInterval
    private let queue = DispatchQueue(label: "ideabox.wal-scrubber", qos: .utility)
    private let lock = NSLock()
    private var isScheduled = false

    init(writer: any DatabaseWriter, delay: DispatchTimeInterval = .seconds(1)) {
        self.writer = writer
        self.delay = delay
    }

    /// Records were written: schedules a checkpoint unless one is already due.
    func wrote() {
        lock.lock()
        defer { lock.unlock() }
        guard !isScheduled else { return }
        isScheduled = true
        queue.asyncAfter(deadline: .now() + delay) { [self] in
            lock.lock()
            isScheduled = false
            lock.unlock()
            _ = try? writer?.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        }
    }
}
