import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import ProcessTestSupport

/// A fresh in-memory IdeaBox database with a hand-moved clock and counting ids.
struct StoreFixture {
    /// When the clock starts (2026-11-20T08:15:30.000Z).
    static let start = TestTime.start

    let database: IdeaDatabase
    let clock: ManualClock
    let repository: IdeaRepository

    init(start: Timestamp = StoreFixture.start, seedsSamples: Bool = false, language: Language = .english) throws {
        let ids = IdGenerator.counting()
        database = try IdeaDatabase.inMemory(
            firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: seedsSamples, language: language, clock: .fixed(start)), ids: ids)
        clock = ManualClock(start: start)
        repository = database.repository(clock: clock.wallClock, ids: ids)
    }

    /// The outbox as (idea id, operation) pairs, ordered by idea id.
    func outbox() throws -> [OutboxEntry] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT ideaId, operation, enqueuedAt FROM outbox ORDER BY ideaId").map {
                OutboxEntry(ideaId: $0["ideaId"], operation: $0["operation"], enqueuedAt: $0["enqueuedAt"])
            }
        }
    }

    /// The tombstones as (idea id, deleted at, device id), ordered by idea id.
    func tombstones() throws -> [Tombstone] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT ideaId, deletedAt, deviceId FROM tombstone ORDER BY ideaId").map {
                Tombstone(ideaId: $0["ideaId"], deletedAt: $0["deletedAt"], deviceId: $0["deviceId"])
            }
        }
    }

    /// Every idea, newest first.
    func allIdeas() throws -> [Idea] {
        try repository.ideas(.all, limit: Int.max)
    }
}

/// One row of the outbox.
struct OutboxEntry: Equatable {
    var ideaId: String
    var operation: String
    var enqueuedAt: Timestamp
}

/// One row of the tombstone table.
struct Tombstone: Equatable {
    var ideaId: String
    var deletedAt: Timestamp
    var deviceId: String
}

/// Runs `body` with a new, empty directory that is removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("IdeaStoreTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// A UUID from its text; for literal ids in tests.
func uuid(_ text: String) -> UUID {
    UUID(uuidString: text)!
}
