import GRDB

/// A deleted idea's entries in both search indexes are left there for later
/// (`staleSearchEntry`, migration v17), not taken out in the delete: FTS5 takes an entry out
/// by replaying every token of its text, which was half of a 10,000-idea delete's time, and
/// an undo then wrote every token back, half of its time. Left there, an undo takes them
/// back with the idea's old row id, and they go out a few at a time when nobody waits
/// (`clearLeftEntries`).
///
/// A left entry is never a hit: every search reads its hits through the `idea` table, where
/// the row is gone, or leaves out the row ids of `staleSearchEntry` (`Plan.hitsFromIndex`);
/// and a row id is taken by a new idea only once its left entries are out (`clearClash`).
extension SearchText {
    /// Leaves the entries of the idea `ideaId`, deleted from row `localId`, in both indexes:
    /// `foldedTitle` and `foldedDescription` must be the text they were made from.
    static func leaveForLater(
        _ db: Database, localId: Int64, ideaId: String, foldedTitle: String, foldedDescription: String
    ) throws {
        try db.run(sql: leaveForLaterSQL, arguments: [localId, ideaId, foldedTitle, foldedDescription])
    }

    /// `leaveForLater`'s statement: the row id, the idea's id, its folded title and description.
    static let leaveForLaterSQL = """
        INSERT INTO staleSearchEntry (localId, ideaId, foldedTitle, foldedDescription) VALUES (?, ?, ?, ?)
        """

    /// The row id whose left entries hold exactly `text`, for the idea `ideaId` coming back
    /// (an undo, or the remote bringing it back): its entries are then the idea's again and
    /// need writing no more. Left entries of the idea with other text are taken out. Nil if
    /// no left entry fits.
    static func takeBack(_ db: Database, ideaId: String, _ text: Indexed) throws -> Int64? {
        let left = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT localId, foldedTitle, foldedDescription FROM staleSearchEntry WHERE ideaId = ?"),
            arguments: [ideaId])
        var taken: Int64?
        for row in left {
            let localId: Int64 = row[0]
            if taken == nil, row[1] as String == text.foldedTitle, row[2] as String == text.foldedDescription {
                taken = localId
                try db.run(sql: clearedSQL, arguments: [localId])
            } else {
                try clear(db, localId: localId, foldedTitle: row[1], foldedDescription: row[2])
            }
        }
        return taken
    }

    /// Takes out the left entries of row `localId`, which a new idea has just taken: its own
    /// entries go in next, and must be the only ones of that row id.
    static func clearClash(_ db: Database, localId: Int64) throws {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: clashSQL), arguments: [localId]) else { return }
        try clear(db, localId: localId, foldedTitle: row[0], foldedDescription: row[1])
    }

    /// `clearClash`'s lookup: the row id.
    static let clashSQL = "SELECT foldedTitle, foldedDescription FROM staleSearchEntry WHERE localId = ?"

    /// Takes out the left entries of at most `limit` deleted ideas; returns how many.
    static func clearLeftEntries(_ db: Database, limit: Int) throws -> Int {
        let left = try Row.fetchAll(
            db, sql: "SELECT localId, foldedTitle, foldedDescription FROM staleSearchEntry LIMIT ?", arguments: [limit])
        for row in left {
            try clear(db, localId: row[0], foldedTitle: row[1], foldedDescription: row[2])
        }
        return left.count
    }

    /// How many deleted ideas' entries are left in the indexes.
    static func leftEntryCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM staleSearchEntry") ?? 0
    }

    private static func clear(_ db: Database, localId: Int64, foldedTitle: String, foldedDescription: String) throws {
        try unindex(db, localId: localId, foldedTitle: foldedTitle, foldedDescription: foldedDescription)
        try db.run(sql: clearedSQL, arguments: [localId])
    }

    /// Forgets the left entries of a row id (taken out or taken back): the row id.
    static let clearedSQL = "DELETE FROM staleSearchEntry WHERE localId = ?"
}

extension IdeaRepository {
    /// Takes out the search entries that deletes left for later (`SearchText.leaveForLater`),
    /// of at most `limit` ideas, in one transaction; returns whether any are still left.
    /// What anyone reads stays the same, so the revision does not move.
    public func clearLeftSearchEntries(limit: Int) throws -> Bool {
        try connection.write { db in
            try SearchText.clearLeftEntries(db, limit: limit) == limit && SearchText.leftEntryCount(db) > 0
        }
    }

    /// How many deleted ideas' search entries are left in the indexes.
    public func leftSearchEntryCount() throws -> Int {
        try connection.read { db in try SearchText.leftEntryCount(db) }
    }
}
