import Foundation
import GRDB

/// The text of one column of every row a query gives, read from an SQLite file opened read
/// only (its WAL included), for the tests that look at what a remote stores.
public enum DatabaseRows {
    /// The first column of every row `sql` selects in `file`, as text.
    public static func texts(_ sql: String, in file: URL) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(15)
        let queue = try DatabaseQueue(path: file.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: sql) }
    }
}
