import Foundation
import GRDB

/// The connection a repository reads and writes through: GRDB's writer, whose SQLite
/// errors come out as what they mean to a person. A damaged page can turn up in any read
/// (a list, a count, the outbox), so reads are mapped as writes are: whatever reads the
/// store, the command line, `sync` or the app, says the same sentence.
struct StoreConnection: Sendable {
    /// GRDB's writer.
    let base: any DatabaseWriter
    /// The command-line options that chose this database, for the sentences that name a
    /// command to run (`ideabox repair --profile P`).
    let options: [String]

    /// The database file's path.
    var path: String { base.path }

    /// Reads in one read transaction.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try meaningful { try base.read(body) }
    }

    /// Writes in one write transaction.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try meaningful { try base.write(body) }
    }

    /// Runs `work`, turning an SQLite error a person can act on into its `StorageError`.
    private func meaningful<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as DatabaseError {
            let directory = URL(fileURLWithPath: base.path).deletingLastPathComponent()
            throw StorageError(error, directory: directory, options: options) ?? error
        }
    }
}
