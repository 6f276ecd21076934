import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// An overwrite of the remote (`sync --overwrite-remote`) as a store transaction that lasts
/// across the network: `beginOverwrite` stamps everything anew and queues it, keeping what it
/// replaced in `overwriteJournal`; `finishOverwrite` forgets that once everything reached the
/// remote; `abandonOverwrite` takes back whatever did not, so an overwrite that failed is
/// never carried out by a later sync, where it would beat edits it never saw.
extension IdeaRepository {
    /// Makes this device's state the newest everywhere: every idea and every delete is
    /// stamped now (never earlier than anything seen), every id in `remoteOnlyIds` gets a
    /// delete, every id in `remoteTags` the remote's tag, and all of it is queued. Sent, it
    /// makes the remote hold exactly these ideas, and the other devices follow by the usual
    /// last-write-wins. An earlier overwrite left unfinished is taken back first.
    public func beginOverwrite(remoteTags: [UUID: String], deleting remoteOnlyIds: [UUID]) throws {
        try write { db in
            _ = try abandonOverwrite(db)
            let stamp = try self.stamp(db)
            try journal(ids: remoteOnlyIds + Array(remoteTags.keys), db)
            try db.run(sql: "INSERT INTO meta (key, value) VALUES (?, ?)", arguments: [MetaKey.overwriteStamp, stamp])
            try saveTags(remoteTags, db)
            try db.run(
                sql: """
                    UPDATE idea SET updatedAt = ?1, deviceId = ?2, version = version + 1,
                        titleAt = ?1, titleBy = ?2, descriptionAt = ?1, descriptionBy = ?2, completedAt = ?1, completedBy = ?2
                    """,
                arguments: [stamp, deviceId])
            // This device's deletes are final too: a newer edit elsewhere must not undo them.
            try db.run(sql: "UPDATE tombstone SET deletedAt = ?, deviceId = ?", arguments: [stamp, deviceId])
            for id in remoteOnlyIds {
                try upsertTombstone(id, SyncOrder(timestamp: stamp, deviceId: deviceId), db)
            }
            try queueEverything(at: stamp, replacingQueued: true, db)
        }
    }

    /// Whether changes the overwrite queued still wait to be sent.
    public func overwriteIsPending() throws -> Bool {
        try connection.read { db in
            guard let stamp = try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.overwriteStamp]) else {
                return false
            }
            return try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM outbox JOIN overwriteJournal USING (ideaId) WHERE outbox.enqueuedAt = ?)",
                arguments: [stamp]) ?? false
        }
    }

    /// The overwrite reached the remote whole: what it replaced here is forgotten.
    public func finishOverwrite() throws {
        try write { db in
            try db.run(sql: "DELETE FROM overwriteJournal")
            try db.run(sql: "DELETE FROM meta WHERE key = ?", arguments: [MetaKey.overwriteStamp])
        }
    }

    /// Takes back what an unfinished overwrite queued and has not sent: those ideas, deletes,
    /// queued changes and remote tags are as they were before it. Whatever it sent stays (the
    /// remote holds it, and every device gets it by the usual merge), and so does whatever
    /// was changed here after it. Returns whether there was an overwrite to take back.
    @discardableResult
    public func abandonOverwrite() throws -> Bool {
        guard try connection.read({ db in
            try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.overwriteStamp]) != nil
        }) else { return false }
        return try write { db in try abandonOverwrite(db) }
    }

    /// Records, before an overwrite, everything it will replace: every idea and delete here,
    /// and each of `ids`, with their stamps, queued changes and remote tags.
    private func journal(ids: [UUID], _ db: Database) throws {
        try db.run(sql: "DELETE FROM overwriteJournal")
        try db.run(sql: "INSERT INTO overwriteJournal (ideaId) SELECT id FROM idea")
        try db.run(sql: "INSERT OR IGNORE INTO overwriteJournal (ideaId) SELECT ideaId FROM tombstone")
        for id in ids {
            try db.run(sql: "INSERT OR IGNORE INTO overwriteJournal (ideaId) VALUES (?)", arguments: [id.lowercasedString])
        }
        try db.run(sql: """
            UPDATE overwriteJournal SET
                (updatedAt, deviceId, version, titleAt, titleBy, descriptionAt, descriptionBy, completedAt, completedBy) =
                (SELECT updatedAt, deviceId, version, titleAt, titleBy, descriptionAt, descriptionBy, completedAt, completedBy
                 FROM idea WHERE idea.id = overwriteJournal.ideaId),
                (deletedAt, deletedBy) = (SELECT deletedAt, deviceId FROM tombstone WHERE tombstone.ideaId = overwriteJournal.ideaId),
                (operation, enqueuedAt, attempts, pendingSince) =
                (SELECT operation, enqueuedAt, attempts, pendingSince FROM outbox WHERE outbox.ideaId = overwriteJournal.ideaId),
                tag = (SELECT tag FROM remoteTag WHERE remoteTag.ideaId = overwriteJournal.ideaId)
            """)
    }

    private func abandonOverwrite(_ db: Database) throws -> Bool {
        guard let stamp = try db.cachedValue(Int64.self, sql: Self.metaValueSQL, arguments: [MetaKey.overwriteStamp]) else {
            return false
        }
        // The ideas the overwrite queued and the remote has not acknowledged: still in the
        // outbox, as the overwrite left them (`asQueued`) or changed here since (an edit
        // moves `enqueuedAt`). A change the remote acknowledged has left the outbox.
        try db.execute(
            sql: """
                CREATE TEMP TABLE unsent AS
                SELECT overwriteJournal.*, outbox.enqueuedAt = ? AS asQueued
                FROM overwriteJournal JOIN outbox USING (ideaId)
                """,
            arguments: [stamp])
        defer { try? db.execute(sql: "DROP TABLE temp.unsent") }
        let arguments: StatementArguments = ["stamp": stamp, "mine": deviceId]
        // Each field the overwrite stamped goes back to its own stamp; a field changed here
        // since keeps the newer one.
        try db.execute(
            sql: """
                UPDATE idea SET
                    titleAt = CASE WHEN idea.titleAt = :stamp AND idea.titleBy = :mine THEN u.titleAt ELSE idea.titleAt END,
                    titleBy = CASE WHEN idea.titleAt = :stamp AND idea.titleBy = :mine THEN u.titleBy ELSE idea.titleBy END,
                    descriptionAt = CASE WHEN idea.descriptionAt = :stamp AND idea.descriptionBy = :mine
                        THEN u.descriptionAt ELSE idea.descriptionAt END,
                    descriptionBy = CASE WHEN idea.descriptionAt = :stamp AND idea.descriptionBy = :mine
                        THEN u.descriptionBy ELSE idea.descriptionBy END,
                    completedAt = CASE WHEN idea.completedAt = :stamp AND idea.completedBy = :mine
                        THEN u.completedAt ELSE idea.completedAt END,
                    completedBy = CASE WHEN idea.completedAt = :stamp AND idea.completedBy = :mine
                        THEN u.completedBy ELSE idea.completedBy END,
                    updatedAt = CASE WHEN idea.updatedAt = :stamp THEN u.updatedAt ELSE idea.updatedAt END,
                    deviceId = CASE WHEN idea.updatedAt = :stamp THEN u.deviceId ELSE idea.deviceId END,
                    version = CASE WHEN idea.updatedAt = :stamp THEN u.version ELSE idea.version END
                FROM temp.unsent AS u WHERE u.ideaId = idea.id AND u.updatedAt IS NOT NULL
                """,
            arguments: arguments)
        // A delete the overwrite stamped goes back to its own time; one it made (an idea only
        // the remote had) is gone again.
        try db.execute(
            sql: """
                UPDATE tombstone SET deletedAt = u.deletedAt, deviceId = u.deletedBy
                FROM temp.unsent AS u
                WHERE u.ideaId = tombstone.ideaId AND u.deletedAt IS NOT NULL
                    AND tombstone.deletedAt = :stamp AND tombstone.deviceId = :mine;
                DELETE FROM tombstone
                WHERE ideaId IN (SELECT ideaId FROM temp.unsent WHERE deletedAt IS NULL)
                    AND deletedAt = :stamp AND deviceId = :mine
                """,
            arguments: arguments)
        // The queue and the remote's tags as they were (an edit made since stays queued): an
        // older edit waiting here goes out over the tag it knew, and meets what the remote
        // holds as a conflict, merged.
        try db.execute(sql: """
            DELETE FROM outbox WHERE ideaId IN (SELECT ideaId FROM temp.unsent WHERE asQueued);
            INSERT INTO outbox (ideaId, operation, enqueuedAt, attempts, pendingSince)
            SELECT ideaId, operation, enqueuedAt, attempts, pendingSince FROM temp.unsent WHERE asQueued AND operation IS NOT NULL;
            DELETE FROM remoteTag WHERE ideaId IN (SELECT ideaId FROM temp.unsent);
            INSERT INTO remoteTag (ideaId, tag) SELECT ideaId, tag FROM temp.unsent WHERE tag IS NOT NULL;
            DELETE FROM overwriteJournal;
            """)
        try db.run(sql: "DELETE FROM meta WHERE key = ?", arguments: [MetaKey.overwriteStamp])
        return true
    }
}
