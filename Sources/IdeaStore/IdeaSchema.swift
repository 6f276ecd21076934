import GRDB

/// The database schema, built only through named migrations. A shipped migration is never
/// edited: later changes add a new one, so any older database upgrades without losing a row.
public enum IdeaSchema {
    /// The migration names, oldest first.
    public enum Migration: String, CaseIterable, Sendable {
        case ideas = "v1-ideas"
        case sync = "v2-sync"
        case search = "v3-search"
        case remoteState = "v4-remote-state"
        case searchWithoutTriggers = "v5-search-without-triggers"
        case outboxOrder = "v6-outbox-order"
        case pendingSince = "v7-outbox-pending-since"
        case fieldStamps = "v8-field-stamps-and-history"
        case syncLogEvents = "v9-sync-log-events"
        case listOrders = "v10-list-orders"
        case searchMergesApart = "v11-search-merges-apart"
        case overwriteJournal = "v12-overwrite-journal"
        case deviceNames = "v13-device-names"
        case remoteRecordNames = "v14-remote-record-names"
        case outboxStaleOrder = "v15-outbox-stale-order"
        case trigramsWithoutPositions = "v16-trigrams-without-positions"
        case searchEntriesLeftForLater = "v17-search-entries-left-for-later"
    }

    /// The migrator that brings any IdeaBox database up to date.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(Migration.ideas.rawValue, migrate: createIdeas)
        migrator.registerMigration(Migration.sync.rawValue, migrate: createSyncTables)
        migrator.registerMigration(Migration.search.rawValue, migrate: createSearchIndex)
        migrator.registerMigration(Migration.remoteState.rawValue, migrate: createRemoteState)
        migrator.registerMigration(Migration.searchWithoutTriggers.rawValue, migrate: dropTrigramTriggers)
        migrator.registerMigration(Migration.outboxOrder.rawValue, migrate: indexOutboxOrder)
        migrator.registerMigration(Migration.pendingSince.rawValue) { db in
            // When the oldest change of the entry the remote has not confirmed was made, if
            // earlier than `enqueuedAt` (which moves with each new edit): what makes it stale.
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN pendingSince INTEGER")
        }
        migrator.registerMigration(Migration.fieldStamps.rawValue, migrate: addFieldStampsAndHistory)
        // What each sync log line says, with its values (JSON of `SyncLogEvent`), so that
        // each language has its words; older lines keep only their English.
        migrator.registerMigration(Migration.syncLogEvents.rawValue) { db in
            try db.execute(sql: "ALTER TABLE syncLog ADD COLUMN event TEXT")
        }
        migrator.registerMigration(Migration.listOrders.rawValue) { db in
            // A page of All Ideas or Completed by last change or by title reads only its rows.
            try db.execute(sql: "CREATE INDEX idea_by_updatedAt ON idea(updatedAt)")
            try db.execute(sql: "CREATE INDEX idea_by_foldedTitle ON idea(foldedTitle)")
        }
        migrator.registerMigration(Migration.searchMergesApart.rawValue) { db in
            // An edit writes its own small segment of each search index and merges none:
            // FTS5's automatic merge made one edit in a few dozen rewrite hundreds of pages
            // (and then every later command replay them from the WAL). Segments are merged
            // by bulk writes as they finish and by reading commands' upkeep, a few pages at
            // a time (`SearchText.merge`); FTS5 still merges a level of 16 segments at once.
            for table in ["ideaTrigram", "ideaShortGram"] {
                try db.execute(sql: "INSERT INTO \(table)(\(table), rank) VALUES ('automerge', 0)")
            }
        }
        migrator.registerMigration(Migration.overwriteJournal.rawValue, migrate: createOverwriteJournal)
        migrator.registerMigration(Migration.deviceNames.rawValue) { db in
            // What people call each device: this device's own row is the name a person gave
            // it (`ideabox device name`); another device's is the name its latest record
            // carried (`namedAt`: that record's time), so an older record never renames it back.
            try db.execute(sql: """
                CREATE TABLE deviceName (deviceId TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, namedAt INTEGER NOT NULL)
                """)
        }
        migrator.registerMigration(Migration.remoteRecordNames.rawValue) { db in
            // The name of the remote record that carries an idea, where another client named
            // it (the IdeaBox app's records in iCloud): saves and deletes go to that record,
            // and a deletion the remote reports by name maps back to its idea. Kept apart
            // from the tags, which come and go with each version.
            try db.execute(sql: """
                CREATE TABLE remoteRecordName (ideaId TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL) WITHOUT ROWID;
                CREATE INDEX remoteRecordName_by_name ON remoteRecordName(name);
                """)
        }
        migrator.registerMigration(Migration.outboxStaleOrder.rawValue) { db in
            // The changes the remote has not confirmed for a month (`staleIdeaIds`), which the
            // app asks for after every change and sync, are read from this index, not from
            // the whole outbox (a million rows after an import, until they are sent).
            try db.execute(sql: "CREATE INDEX outbox_by_pendingSince ON outbox(COALESCE(pendingSince, enqueuedAt))")
        }
        migrator.registerMigration(Migration.trigramsWithoutPositions.rawValue, migrate: dropTrigramPositions)
        migrator.registerMigration(Migration.searchEntriesLeftForLater.rawValue) { db in
            // A deleted idea's entries in both search indexes, left there for later
            // (`SearchText.leaveForLater`): the text they were made from, which FTS5 needs to
            // take them out, and the idea, whose undo takes them (and its row id) back.
            try db.execute(sql: """
                CREATE TABLE staleSearchEntry (
                    localId INTEGER PRIMARY KEY,
                    ideaId TEXT NOT NULL,
                    foldedTitle TEXT NOT NULL,
                    foldedDescription TEXT NOT NULL
                );
                CREATE INDEX staleSearchEntry_by_ideaId ON staleSearchEntry(ideaId);
                """)
        }
        return migrator
    }

    private static func dropTrigramPositions(_ db: Database) throws {
        // The trigram index keeps which ideas hold each trigram, not where: a query of four
        // or more code points takes the ideas holding all its trigrams and keeps those whose
        // folded text holds the query (`SearchText.Plan`). The positions were 2.6 times the
        // ideas' text at a million ideas (1,126 MiB for 441), and writing them most of an
        // import's time; without them the index is about a fifth of its size. No per-idea
        // token counts either (`columnsize=0`): nothing ranks. A rebuild from the folded text.
        try db.execute(sql: """
            DROP TABLE ideaTrigram;
            CREATE VIRTUAL TABLE ideaTrigram USING fts5(
                foldedTitle, foldedDescription,
                content='idea', content_rowid='localId',
                tokenize='trigram case_sensitive 1', detail='none', columnsize=0
            );
            INSERT INTO ideaTrigram(ideaTrigram) VALUES ('rebuild');
            INSERT INTO ideaTrigram(ideaTrigram, rank) VALUES ('automerge', 0);
            """)
    }

    private static func createOverwriteJournal(_ db: Database) throws {
        // What an overwrite of the remote replaced here, one row per idea it touched, kept
        // until every change it queued has reached the remote: an overwrite that fails (or a
        // process killed midway) is taken back from it, so no later sync carries it out.
        try db.execute(sql: """
            CREATE TABLE overwriteJournal (
                ideaId TEXT PRIMARY KEY NOT NULL,
                updatedAt INTEGER, deviceId TEXT, version INTEGER,
                titleAt INTEGER, titleBy TEXT, descriptionAt INTEGER, descriptionBy TEXT,
                completedAt INTEGER, completedBy TEXT,
                deletedAt INTEGER, deletedBy TEXT,
                operation TEXT, enqueuedAt INTEGER, attempts INTEGER, pendingSince INTEGER,
                tag TEXT
            ) WITHOUT ROWID
            """)
    }

    private static func createIdeas(_ db: Database) throws {
        // `localId` is an explicit INTEGER PRIMARY KEY so that VACUUM never renumbers the
        // rows that the search index refers to. The small columns come before the text, so
        // reading `createdAt` of a long idea never follows its overflow pages.
        try db.execute(sql: """
            CREATE TABLE idea (
                localId INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                isCompleted INTEGER NOT NULL DEFAULT 0,
                createdAt INTEGER NOT NULL,
                updatedAt INTEGER NOT NULL,
                deviceId TEXT NOT NULL,
                version INTEGER NOT NULL DEFAULT 0,
                lastSyncedAt INTEGER,
                title TEXT NOT NULL,
                description TEXT NOT NULL DEFAULT ''
            );
            CREATE INDEX idea_by_createdAt ON idea(createdAt);
            CREATE INDEX idea_by_completion ON idea(isCompleted, createdAt);
            CREATE TABLE meta (
                key TEXT PRIMARY KEY NOT NULL,
                value
            ) WITHOUT ROWID;
            """)
    }

    private static func createSyncTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE tombstone (
                ideaId TEXT PRIMARY KEY NOT NULL,
                deletedAt INTEGER NOT NULL,
                deviceId TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE outbox (
                ideaId TEXT PRIMARY KEY NOT NULL,
                operation TEXT NOT NULL CHECK (operation IN ('save', 'delete')),
                enqueuedAt INTEGER NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            CREATE TABLE syncMetadata (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                isSyncEnabled INTEGER NOT NULL DEFAULT 0,
                lastSyncAt INTEGER,
                lastSyncError TEXT,
                changeToken BLOB
            );
            INSERT INTO syncMetadata (id) VALUES (1);
            CREATE TABLE conflictLog (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                ideaId TEXT NOT NULL,
                occurredAt INTEGER NOT NULL,
                localSnapshot TEXT NOT NULL,
                remoteSnapshot TEXT NOT NULL,
                resolution TEXT NOT NULL CHECK (resolution IN ('Local', 'Remote', 'TieBreaker'))
            );
            CREATE TABLE syncLog (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                occurredAt INTEGER NOT NULL,
                kind TEXT NOT NULL,
                message TEXT NOT NULL
            );
            """)
    }

    private static func createSearchIndex(_ db: Database) throws {
        // Folded (lower-cased, NFC) copies of the text: what substring search compares.
        try db.execute(sql: """
            ALTER TABLE idea ADD COLUMN foldedTitle TEXT NOT NULL DEFAULT '';
            ALTER TABLE idea ADD COLUMN foldedDescription TEXT NOT NULL DEFAULT '';
            """)
        // Existing rows are folded and indexed by SQLite itself, row by row, through two
        // functions that live only as long as this migration.
        let fold = DatabaseFunction("ideabox_fold", argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0]).map(SearchText.fold)
        }
        let shortGrams = DatabaseFunction("ideabox_short_grams", argumentCount: 2, pure: true) { values in
            SearchText.shortGrams(String.fromDatabaseValue(values[0]) ?? "", String.fromDatabaseValue(values[1]) ?? "")
        }
        db.add(function: fold)
        db.add(function: shortGrams)
        defer {
            db.remove(function: fold)
            db.remove(function: shortGrams)
        }
        try db.execute(sql: "UPDATE idea SET foldedTitle = ideabox_fold(title), foldedDescription = ideabox_fold(description)")
        // Queries of three or more code points: SQLite's trigram index over the folded text,
        // kept in step by triggers.
        try db.execute(sql: """
            CREATE VIRTUAL TABLE ideaTrigram USING fts5(
                foldedTitle, foldedDescription,
                content='idea', content_rowid='localId',
                tokenize='trigram case_sensitive 1'
            );
            INSERT INTO ideaTrigram(ideaTrigram) VALUES ('rebuild');
            CREATE TRIGGER idea_trigram_insert AFTER INSERT ON idea BEGIN
                INSERT INTO ideaTrigram(rowid, foldedTitle, foldedDescription)
                VALUES (new.localId, new.foldedTitle, new.foldedDescription);
            END;
            CREATE TRIGGER idea_trigram_delete AFTER DELETE ON idea BEGIN
                INSERT INTO ideaTrigram(ideaTrigram, rowid, foldedTitle, foldedDescription)
                VALUES ('delete', old.localId, old.foldedTitle, old.foldedDescription);
            END;
            CREATE TRIGGER idea_trigram_update AFTER UPDATE OF foldedTitle, foldedDescription ON idea BEGIN
                INSERT INTO ideaTrigram(ideaTrigram, rowid, foldedTitle, foldedDescription)
                VALUES ('delete', old.localId, old.foldedTitle, old.foldedDescription);
                INSERT INTO ideaTrigram(rowid, foldedTitle, foldedDescription)
                VALUES (new.localId, new.foldedTitle, new.foldedDescription);
            END;
            """)
        // Queries of one or two characters, which a trigram index cannot answer: every
        // distinct character and pair of characters of an idea, as tokens (see SearchText).
        try db.execute(sql: """
            CREATE VIRTUAL TABLE ideaShortGram USING fts5(
                grams, content='', detail='none', columnsize=0, tokenize='ascii'
            );
            """)
        try db.execute(sql: """
            INSERT INTO ideaShortGram(rowid, grams)
            SELECT localId, ideabox_short_grams(foldedTitle, foldedDescription) FROM idea
            """)
    }

    private static func createRemoteState(_ db: Database) throws {
        // The remote's version tag of each idea this device has seen there, sent back with
        // the next save so the remote can tell a stale write; and the account this
        // device's ideas belong to, so they never reach another account.
        try db.execute(sql: """
            CREATE TABLE remoteTag (
                ideaId TEXT PRIMARY KEY NOT NULL,
                tag TEXT NOT NULL
            ) WITHOUT ROWID;
            ALTER TABLE syncMetadata ADD COLUMN accountName TEXT;
            """)
    }

    private static func dropTrigramTriggers(_ db: Database) throws {
        // The repository keeps the trigram index in step itself, as it does the short-gram
        // index. A trigger made every write of an idea a statement with a savepoint, and
        // FTS5 writes its pending index data to disk at each savepoint: a new segment per
        // idea, merged again and again, which made bulk writes (import, sync) 3x slower.
        try db.execute(sql: """
            DROP TRIGGER idea_trigram_insert;
            DROP TRIGGER idea_trigram_delete;
            DROP TRIGGER idea_trigram_update;
            """)
    }

    private static func indexOutboxOrder(_ db: Database) throws {
        // The sync engine reads the outbox oldest first, a batch at a time. Without this
        // index each batch sorted the whole outbox: quadratic in a first upload.
        try db.execute(sql: "CREATE INDEX outbox_by_enqueuedAt ON outbox(enqueuedAt, ideaId)")
    }

    private static func addFieldStampsAndHistory(_ db: Database) throws {
        // Where each field was last written in the sync order (time, then device), so a
        // merge takes each field from the side that wrote it later. A row written before
        // this migration reads as every field stamped at its `updatedAt` by its `deviceId`
        // (an untouched sample as a sample): the columns stay NULL until its next write.
        try db.execute(sql: """
            ALTER TABLE idea ADD COLUMN titleAt INTEGER;
            ALTER TABLE idea ADD COLUMN titleBy TEXT;
            ALTER TABLE idea ADD COLUMN descriptionAt INTEGER;
            ALTER TABLE idea ADD COLUMN descriptionBy TEXT;
            ALTER TABLE idea ADD COLUMN completedAt INTEGER;
            ALTER TABLE idea ADD COLUMN completedBy TEXT;
            """)
        // Every value an idea had on this device and no longer has: the version an edit,
        // a received version, a merge or a delete replaced, and each version that lost a
        // merge. `writtenAt`/`writtenBy` is the version's latest field stamp; `fields` names
        // the fields it differed in from what replaced it (comma-separated).
        try db.execute(sql: """
            CREATE TABLE ideaHistory (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                ideaId TEXT NOT NULL,
                recordedAt INTEGER NOT NULL,
                reason TEXT NOT NULL,
                writtenAt INTEGER NOT NULL,
                writtenBy TEXT NOT NULL,
                fields TEXT NOT NULL,
                isCompleted INTEGER NOT NULL,
                title TEXT NOT NULL,
                description TEXT NOT NULL
            );
            CREATE INDEX ideaHistory_by_idea ON ideaHistory(ideaId, id);
            ALTER TABLE conflictLog ADD COLUMN fields TEXT NOT NULL DEFAULT '';
            ALTER TABLE conflictLog ADD COLUMN title TEXT NOT NULL DEFAULT '';
            """)
    }
}
