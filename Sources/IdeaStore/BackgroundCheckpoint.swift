import Foundation
import GRDB
import GRDBSQLite

/// Copies a long-lived process's WAL into the database on a connection and thread of its own,
/// not in the commit that made the WAL long: the app's writer set SQLite's automatic
/// checkpoint at 10,000 pages, and SQLite runs that inside the commit, so the key that
/// deleted 10,000 ideas waited for 150 MB to be copied and two disk flushes (BENCHMARKS.md,
/// "The `million` run").
///
/// After a commit leaves `soonPages` pages or more in the WAL, a checkpoint runs in the
/// background: it waits for nobody, and the writer and readers go on beside it; when it finds
/// nobody writing it empties the WAL too, so the next process to open the database has none
/// of it to read (an app that quits after a big delete left hundreds of megabytes). A writer
/// that never pauses (a first sync of a million ideas) could keep the WAL growing, so at
/// `nowPages` the writer checkpoints in its commit, as SQLite's own would, copying what the
/// background ones have not.
final class BackgroundCheckpoint: @unchecked Sendable {
    /// The WAL's length, in pages, at which a checkpoint runs in the background.
    let soonPages: Int32
    /// The WAL's length, in pages, at which the writer checkpoints in its commit.
    let nowPages: Int32

    /// Starts a checkpoint's work: on a thread of its own by default (`onThreadOfItsOwn`).
    private let run: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// Guards `isPending`.
    private let lock = NSLock()
    /// Whether a background checkpoint is started and not yet done: one at a time.
    private var isPending = false
    /// Guards `connection` and `isClosed`; held while a checkpoint copies.
    private let connectionLock = NSLock()
    /// The checkpoints' own connection, opened at the first.
    private var connection: OpaquePointer?
    /// Set by `close`: no checkpoint runs after it.
    private var isClosed = false

    /// Checkpoints started by `run`, in the background from `soonPages` pages of WAL (40 MB),
    /// in the writer's commit from `nowPages` (400 MB).
    init(
        run: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = BackgroundCheckpoint.onThreadOfItsOwn,
        soonPages: Int32 = 10_000, nowPages: Int32 = 100_000
    ) {
        self.run = run
        self.soonPages = soonPages
        self.nowPages = nowPages
    }

    /// Runs `work` on a new thread that yields to every other (nice 10, which on Linux is a
    /// thread's own, and goes with the thread): copying beside the writer at the same
    /// priority slowed what shares the other core. With `serve` and two devices on two cores,
    /// serve's page of changes took p95 46.5 ms at 100,000 ideas (27.1 copying in the commit,
    /// 32.3 on this thread).
    static func onThreadOfItsOwn(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            work()
        }
        thread.name = "ideabox.checkpoint"
        thread.start()
    }

    /// Takes over the automatic checkpoint of `db`, the writer's connection.
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(db.sqliteConnection, { context, writer, name, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<BackgroundCheckpoint>.fromOpaque(context).takeUnretainedValue().walGrew(to: pages, writer, name)
            return SQLITE_OK
        }, context)
    }

    /// Called by SQLite after each commit of the writer, with the WAL's length.
    private func walGrew(to pages: Int32, _ writer: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
        if pages >= nowPages {
            sqlite3_wal_checkpoint_v2(writer, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= soonPages, let file = sqlite3_db_filename(writer, name) else { return }
        let path = String(cString: file)
        guard !path.isEmpty else { return }
        let isNew = lock.withLock {
            defer { isPending = true }
            return !isPending
        }
        guard isNew else { return }
        run { self.checkpoint(path) }
    }

    private func checkpoint(_ path: String) {
        defer { lock.withLock { isPending = false } }
        connectionLock.withLock {
            guard !isClosed else { return }
            copy(path)
        }
    }

    /// Copies the WAL of the database at `path` into it, emptying it if nobody writes.
    private func copy(_ path: String) {
        if connection == nil {
            var opened: OpaquePointer?
            // A new connection knows the database is in WAL mode once it has read it.
            guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
                  sqlite3_exec(opened, "SELECT count(*) FROM sqlite_schema", nil, nil, nil) == SQLITE_OK
            else {
                sqlite3_close_v2(opened)
                return
            }
            connection = opened
        }
        // First what no reader still needs is copied, with no lock that stops the writer;
        // then, if nobody is writing or reading an older state, what was committed since is
        // copied too and the WAL emptied (the next process to open the database reads none of
        // it), with the writer's lock held only that long. Without a busy handler neither
        // waits: otherwise a later commit asks again.
        sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    }

    /// Waits for a running checkpoint and closes the connection, so that the writer's pool is
    /// the last to close the database (and the one that copies the rest of the WAL).
    func close() {
        connectionLock.withLock {
            isClosed = true
            sqlite3_close_v2(connection)
            connection = nil
        }
    }

    deinit {
        sqlite3_close_v2(connection)
    }
}
