import Dispatch
import Foundation
import GRDB
@testable import IdeaStore
import Testing

/// The app's writer leaves the WAL's copy into the database to a connection and queue of
/// their own, until the WAL is very long.
@Suite struct BackgroundCheckpointTests {
    /// A pool whose writer hands its checkpoints to `checkpoint`, in WAL mode.
    private static func pool(at file: URL, _ checkpoint: BackgroundCheckpoint) throws -> DatabasePool {
        var configuration = Configuration()
        // As the app's writer: it waits while the checkpoint empties the WAL.
        configuration.busyMode = .timeout(15)
        configuration.prepareDatabase { db in
            guard !db.configuration.readonly else { return }
            checkpoint.install(on: db)
            // As the app's: the WAL file is cut back when it starts again.
            try db.execute(sql: "PRAGMA journal_size_limit = 65536")
        }
        let pool = try DatabasePool(path: file.path, configuration: configuration)
        try pool.write { db in try db.execute(sql: "CREATE TABLE page (bytes BLOB)") }
        return pool
    }

    /// Writes about `pages` pages, each a row of its own, in one transaction.
    private static func write(pages: Int, _ pool: DatabasePool) throws {
        try pool.write { db in
            for _ in 0..<pages {
                try db.execute(sql: "INSERT INTO page (bytes) VALUES (zeroblob(4000))")
            }
        }
    }

    private static func size(_ file: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
    }

    @Test func aLongWALIsCopiedOnTheQueueNotInTheCommit() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("checkpoint.sqlite")
            let queue = DispatchQueue(label: "checkpoint test")
            queue.suspend()
            let checkpoint = BackgroundCheckpoint(queue: queue, soonPages: 100, nowPages: 10_000)
            let pool = try Self.pool(at: file, checkpoint)
            let before = try Self.size(file)
            try Self.write(pages: 300, pool)
            #expect(IdeaDatabase.walPages(file.path) >= 300)
            #expect(try Self.size(file) == before, "the commit copied nothing")

            queue.resume()
            queue.sync {}
            #expect(try Self.size(file) >= before + 300 * 4000, "the queue copied the WAL")
            #expect(IdeaDatabase.walPages(file.path) == 0, "and emptied it, nobody writing")
            checkpoint.close()
            try pool.close()
        }
    }

    @Test func theCheckpointWaitsForNoWriterAndLeavesTheWALToIt() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("checkpoint.sqlite")
            let queue = DispatchQueue(label: "checkpoint test")
            queue.suspend()
            let checkpoint = BackgroundCheckpoint(queue: queue, soonPages: 100, nowPages: 10_000)
            let pool = try Self.pool(at: file, checkpoint)
            let before = try Self.size(file)
            try Self.write(pages: 300, pool)
            try pool.writeWithoutTransaction { db in
                try db.inTransaction {
                    try db.execute(sql: "INSERT INTO page (bytes) VALUES (zeroblob(4000))")
                    // The checkpoint runs, and returns, while this transaction is open.
                    queue.resume()
                    queue.sync {}
                    // The commit's own checkpoint waits until the WAL is looked at.
                    queue.suspend()
                    return .commit
                }
            }
            #expect(try Self.size(file) >= before + 300 * 4000, "what was committed is copied")
            #expect(IdeaDatabase.walPages(file.path) >= 300, "the WAL is left to the writer")
            queue.resume()
            try Self.write(pages: 1, pool)
            #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == 302)
            checkpoint.close()
            try pool.close()
        }
    }

    @Test func aVeryLongWALIsCopiedInTheCommit() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("checkpoint.sqlite")
            let queue = DispatchQueue(label: "checkpoint test")
            queue.suspend()
            let checkpoint = BackgroundCheckpoint(queue: queue, soonPages: 100, nowPages: 500)
            let pool = try Self.pool(at: file, checkpoint)
            let before = try Self.size(file)
            try Self.write(pages: 600, pool)
            #expect(try Self.size(file) >= before + 600 * 4000, "the commit copied the WAL itself")
            queue.resume()
            checkpoint.close()
            try pool.close()
        }
    }

    @Test func afterCloseNoCheckpointRunsAndTheDatabaseClosesWhole() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("checkpoint.sqlite")
            let queue = DispatchQueue(label: "checkpoint test")
            let checkpoint = BackgroundCheckpoint(queue: queue, soonPages: 100, nowPages: 10_000)
            let pool = try Self.pool(at: file, checkpoint)
            try Self.write(pages: 300, pool)
            checkpoint.close()
            try pool.close()
            #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"), "the pool closed last and emptied the WAL")
            let reopened = try DatabaseQueue(path: file.path)
            #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == 300)
        }
    }
}
