import Dispatch
import Foundation
import GRDB
@testable import IdeaStore
import Testing

/// The app's writer leaves the WAL's copy into the database to a connection and queue of
/// their own, until the WAL is very long.
@Suite struct BackgroundCheckpointTests {
    /// A database in a temporary folder whose writer hands its checkpoints to a queue the
    /// test holds (suspended at first: nothing runs on it until the test says so).
    private struct Fixture {
        let file: URL
        let queue = DispatchQueue(label: "checkpoint test")
        let checkpoint: BackgroundCheckpoint
        let pool: DatabasePool
        /// The database file's size before any page was written.
        let sizeBefore: Int

        init(in directory: URL, nowPages: Int32 = 10_000) throws {
            file = directory.appendingPathComponent("checkpoint.sqlite")
            queue.suspend()
            let checkpoint = BackgroundCheckpoint(run: { [queue] work in queue.async(execute: work) }, soonPages: 100, nowPages: nowPages)
            var configuration = Configuration()
            // As the app's writer: it waits while the checkpoint empties the WAL.
            configuration.busyMode = .timeout(15)
            configuration.prepareDatabase { db in
                guard !db.configuration.readonly else { return }
                checkpoint.install(on: db)
                // As the app's: the WAL file is cut back when it starts again.
                try db.execute(sql: "PRAGMA journal_size_limit = 65536")
            }
            self.checkpoint = checkpoint
            pool = try DatabasePool(path: file.path, configuration: configuration)
            try pool.write { db in try db.execute(sql: "CREATE TABLE page (bytes BLOB)") }
            sizeBefore = try Self.size(file)
        }

        /// Writes about `pages` pages, each a row of its own, in one transaction.
        func write(pages: Int) throws {
            try pool.write { db in
                for _ in 0..<pages { try db.execute(sql: Self.insertPageSQL) }
            }
        }

        static let insertPageSQL = "INSERT INTO page (bytes) VALUES (zeroblob(4000))"

        /// How many bytes of pages the checkpoints have copied into the database file.
        func copiedBytes() throws -> Int {
            try Self.size(file) - sizeBefore
        }

        var walPages: Int { IdeaDatabase.walPages(file.path) }

        func close() throws {
            checkpoint.close()
            try pool.close()
        }

        private static func size(_ file: URL) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        }
    }

    @Test func aLongWALIsCopiedOnTheQueueNotInTheCommit() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory)
            try fixture.write(pages: 300)
            #expect(fixture.walPages >= 300)
            #expect(try fixture.copiedBytes() == 0, "the commit copied nothing")

            fixture.queue.resume()
            fixture.queue.sync {}
            #expect(try fixture.copiedBytes() >= 300 * 4000, "the queue copied the WAL")
            #expect(fixture.walPages == 0, "and emptied it, nobody writing")
            try fixture.close()
        }
    }

    @Test func theCheckpointWaitsForNoWriterAndLeavesTheWALToIt() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory)
            try fixture.write(pages: 300)
            try fixture.pool.writeWithoutTransaction { db in
                try db.inTransaction {
                    try db.execute(sql: Fixture.insertPageSQL)
                    // The checkpoint runs, and returns, while this transaction is open.
                    fixture.queue.resume()
                    fixture.queue.sync {}
                    // The commit's own checkpoint waits until the WAL is looked at.
                    fixture.queue.suspend()
                    return .commit
                }
            }
            #expect(try fixture.copiedBytes() >= 300 * 4000, "what was committed is copied")
            #expect(fixture.walPages >= 300, "the WAL is left to the writer")
            fixture.queue.resume()
            try fixture.write(pages: 1)
            #expect(try fixture.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == 302)
            try fixture.close()
        }
    }

    @Test func aVeryLongWALIsCopiedInTheCommit() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory, nowPages: 500)
            try fixture.write(pages: 600)
            #expect(try fixture.copiedBytes() >= 600 * 4000, "the commit copied the WAL itself")
            fixture.queue.resume()
            try fixture.close()
        }
    }

    @Test func afterCloseNoCheckpointRunsAndTheDatabaseClosesWhole() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory)
            fixture.queue.resume()
            try fixture.write(pages: 300)
            try fixture.close()
            #expect(!FileManager.default.fileExists(atPath: fixture.file.path + "-wal"), "the pool closed last and emptied the WAL")
            let reopened = try DatabaseQueue(path: fixture.file.path)
            #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == 300)
        }
    }
}
