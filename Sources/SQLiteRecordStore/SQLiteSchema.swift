import GRDB
import ServerStore

/// The schema of a SQLite record store, built only through named migrations that are never
/// edited. Its first migrations also made the embedded remote's `device`, `scriptedError`
/// and `errorRate` tables; the simulated network has had a file of its own since
/// (`SimulatedNetwork`, which copies them out first), and `v9-server-tables-only` drops them.
enum SQLiteSchema {
    /// The migration names, oldest first.
    enum Migration: String, CaseIterable {
        case server = "v1-server"
        case lostResponses = "v2-lost-responses"
        case accessTokens = "v3-access-tokens"
        case assets = "v4-assets"
        case noBooleans = "v5-no-booleans"
        case webServices = "v6-web-services"
        case accounts = "v7-accounts"
        case assetChunks = "v8-asset-chunks"
        case serverTablesOnly = "v9-server-tables-only"
        case accountQuotas = "v10-account-quotas"
        case queryKeys = "v11-query-keys"
        case queryableFields = "v12-queryable-fields"
        case queryableFieldReady = "v13-queryable-field-ready"
        case assetReferences = "v14-asset-references"
        case fieldTypes = "v15-field-types"
        case storedFieldTypes = "v16-stored-field-types"
        case changeWriters = "v17-change-writers"
        case cascadingReferences = "v18-cascading-references"
    }

    /// CloudKit has no Boolean type: the flags an earlier server stored as `{"bool":true}` or
    /// `{"bool":false}` become `{"int64":1}` and `{"int64":0}`. The stored JSON is compact and
    /// escapes every quote inside a string, so these texts occur only as values.
    static let booleansAsIntegers = """
        UPDATE record SET fields = replace(replace(fields, '{"bool":true}', '{"int64":1}'), '{"bool":false}', '{"int64":0}')
        WHERE instr(fields, '{"bool":') > 0
        """

    /// The migrator that brings a remote file up to date.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(Migration.server.rawValue, migrate: createServer)
        migrator.registerMigration(Migration.lostResponses.rawValue) { db in
            try db.execute(sql: "ALTER TABLE scriptedError ADD COLUMN failsAfterApplying INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration(Migration.accessTokens.rawValue) { db in
            try db.execute(sql: """
                CREATE TABLE accessToken (
                    hash TEXT PRIMARY KEY NOT NULL,
                    account TEXT NOT NULL,
                    createdAt INTEGER NOT NULL,
                    revokedAt INTEGER
                ) WITHOUT ROWID;
                CREATE INDEX accessToken_by_account ON accessToken(account);
                """)
        }
        migrator.registerMigration(Migration.assets.rawValue) { db in
            // A rowid table: SQLite keeps large rows out of a WITHOUT ROWID table's b-tree badly.
            try db.execute(sql: """
                CREATE TABLE asset (
                    id INTEGER PRIMARY KEY,
                    account TEXT NOT NULL,
                    checksum TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    uploadedAt INTEGER NOT NULL,
                    data BLOB NOT NULL,
                    UNIQUE (account, checksum)
                );
                """)
        }
        migrator.registerMigration(Migration.noBooleans.rawValue) { db in
            try db.execute(sql: booleansAsIntegers)
        }
        migrator.registerMigration(Migration.webServices.rawValue) { db in
            try db.execute(sql: """
                CREATE TABLE apiToken (
                    hash TEXT PRIMARY KEY NOT NULL,
                    label TEXT NOT NULL,
                    createdAt INTEGER NOT NULL,
                    revokedAt INTEGER
                ) WITHOUT ROWID
                """)
            try db.execute(sql: "CREATE TABLE serverSecret (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL)")
            try db.execute(sql: """
                CREATE TABLE subscription (
                    account TEXT NOT NULL,
                    id TEXT NOT NULL,
                    zoneName TEXT NOT NULL,
                    createdAt INTEGER NOT NULL,
                    PRIMARY KEY (account, id)
                ) WITHOUT ROWID
                """)
        }
        migrator.registerMigration(Migration.accounts.rawValue) { db in
            // Tokens get a label (one per device) and the time they were last used; accounts
            // are found by name in any case.
            try db.execute(sql: """
                ALTER TABLE accessToken ADD COLUMN label TEXT NOT NULL DEFAULT 'token';
                ALTER TABLE accessToken ADD COLUMN lastUsedAt INTEGER;
                CREATE INDEX accessToken_by_folded_account ON accessToken(account COLLATE NOCASE);
                """)
        }
        migrator.registerMigration(Migration.assetChunks.rawValue) { db in
            // An asset's bytes in rows of at most 1 MiB (AssetBytes.chunkSize), so that none is
            // ever held in memory whole; an earlier asset becomes one chunk. Quotas count zones
            // and asset bytes too: a quota set before counts them at their defaults.
            try db.execute(sql: """
                CREATE TABLE assetChunk (
                    id INTEGER PRIMARY KEY,
                    assetId INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    data BLOB NOT NULL,
                    UNIQUE (assetId, seq)
                );
                INSERT INTO assetChunk (assetId, seq, data) SELECT id, 0, data FROM asset;
                ALTER TABLE asset DROP COLUMN data;
                CREATE INDEX asset_by_upload ON asset(uploadedAt);
                ALTER TABLE quota ADD COLUMN maxZones INTEGER NOT NULL DEFAULT 100;
                ALTER TABLE quota ADD COLUMN maxAssetBytes INTEGER NOT NULL DEFAULT 1073741824;
                """)
        }
        migrator.registerMigration(Migration.serverTablesOnly.rawValue) { db in
            try db.execute(sql: "DROP TABLE scriptedError; DROP TABLE errorRate; DROP TABLE device")
        }
        migrator.registerMigration(Migration.accountQuotas.rawValue) { db in
            // A quota is an account's, across its databases, kept under its own name; a row
            // under the key of one of its other databases (`account@container`, which only a
            // store's own callers could make, never `serve account quota`) limited nothing
            // the account's own row did not, and would never be read again.
            try db.execute(sql: "DELETE FROM quota WHERE instr(account, '@') > 0")
        }
        migrator.registerMigration(Migration.queryKeys.rawValue, migrate: createQueryKeys)
        migrator.registerMigration(Migration.queryableFields.rawValue) { db in
            // Keys are kept only for the fields a query has named (`QueryableFields`): the
            // keys v11 stored for every field go, and the first query that names a field
            // stores its keys again.
            try db.execute(sql: """
                CREATE TABLE queryableField (
                    account TEXT NOT NULL,
                    recordType TEXT NOT NULL,
                    fieldName TEXT NOT NULL,
                    PRIMARY KEY (account, recordType, fieldName)
                ) WITHOUT ROWID;
                DELETE FROM recordField;
                """)
        }
        migrator.registerMigration(Migration.queryableFieldReady.rawValue) { db in
            // A backfill runs in batches of their own write transactions, after its mark is
            // committed not ready (`SQLiteRecordStore.makeQueryable`). The marks v12 made
            // were filled in the transaction that made them, so they are ready.
            try db.execute(sql: "ALTER TABLE queryableField ADD COLUMN ready INTEGER NOT NULL DEFAULT 1")
        }
        migrator.registerMigration(Migration.assetReferences.rawValue, migrate: createAssetReferences)
        migrator.registerMigration(Migration.fieldTypes.rawValue) { db in
            // The type of each field of each record type of each database (`FieldSchema`).
            // Nothing is filled here; the types of the records stored before are v16's.
            try db.execute(sql: """
                CREATE TABLE fieldType (
                    account TEXT NOT NULL,
                    recordType TEXT NOT NULL,
                    fieldName TEXT NOT NULL,
                    type TEXT NOT NULL,
                    PRIMARY KEY (account, recordType, fieldName)
                ) WITHOUT ROWID
                """)
        }
        migrator.registerMigration(Migration.storedFieldTypes.rawValue) { db in
            // v15 left the types of the records stored before to be found by each claim, in
            // a scan of the account's records inside the claim's write: a save naming many new
            // fields took minutes over large records while every other write waited (issue 60).
            // One pass here instead; since, `modify` keeps the type of every field it stores.
            try SQLiteRecordStore.keepFieldTypesOfStoredRecords(db)
        }
        migrator.registerMigration(Migration.changeWriters.rawValue) { db in
            // The device whose save made each change, as its request named it (nil for none,
            // and for every change made before), so that a device's long poll is held on its
            // own changes (`PollNews`).
            try db.execute(sql: """
                ALTER TABLE record ADD COLUMN writtenBy TEXT;
                ALTER TABLE deletion ADD COLUMN writtenBy TEXT;
                """)
        }
        migrator.registerMigration(Migration.cascadingReferences.rawValue, migrate: createCascadingReferences)
        return migrator
    }

    /// Which record a `DELETE_SELF` reference deletes with which record of its zone
    /// (`ReferenceRules`), and the deleted records whose cascade a modify left for the next
    /// one of their zone (`ReferenceRules.cascadeBatch`). Filled from the records stored
    /// before: one pass over those whose fields hold such a reference (the stored JSON
    /// escapes every quote inside a string, so the pattern is a value's only).
    private static func createCascadingReferences(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE cascadingReference (
                zoneId INTEGER NOT NULL REFERENCES zone(id) ON DELETE CASCADE,
                recordName TEXT NOT NULL,
                targetName TEXT NOT NULL,
                PRIMARY KEY (zoneId, recordName, targetName)
            ) WITHOUT ROWID;
            CREATE INDEX cascadingReference_by_target ON cascadingReference(zoneId, targetName);
            CREATE TABLE pendingCascade (
                zoneId INTEGER NOT NULL REFERENCES zone(id) ON DELETE CASCADE,
                targetName TEXT NOT NULL,
                PRIMARY KEY (zoneId, targetName)
            ) WITHOUT ROWID;
            INSERT OR IGNORE INTO cascadingReference (zoneId, recordName, targetName)
            SELECT record.zoneId, record.recordName, json_extract(tree.value, '$.recordName')
            FROM record JOIN zone ON zone.id = record.zoneId, json_tree(record.fields) AS tree
            WHERE instr(record.fields, '{"reference":{"action":"DELETE_SELF"') > 0 AND tree.key = 'reference'
                AND json_extract(tree.value, '$.action') = 'DELETE_SELF'
                AND json_extract(tree.value, '$.recordName') IS NOT NULL
                AND coalesce(json_extract(tree.value, '$.zoneName'), zone.name) = zone.name;
            """)
    }

    /// The key of every field of every record (`QueryKey`), which queries filter and sort
    /// by in SQL, and indexes on the record times they sort by. Since v12 only the fields a
    /// query named (`QueryableFields`) have keys.
    private static func createQueryKeys(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE recordField (
                zoneId INTEGER NOT NULL REFERENCES zone(id) ON DELETE CASCADE,
                recordName TEXT NOT NULL,
                fieldName TEXT NOT NULL,
                recordType TEXT NOT NULL,
                valueKey BLOB NOT NULL,
                PRIMARY KEY (zoneId, recordName, fieldName)
            ) WITHOUT ROWID;
            CREATE INDEX recordField_by_key ON recordField(zoneId, recordType, fieldName, valueKey, recordName);
            CREATE INDEX record_by_creation ON record(zoneId, recordType, creationDate, recordName);
            CREATE INDEX record_by_modification ON record(zoneId, recordType, modificationDate, recordName);
            """)
        // It filled the table from the records stored before; v12 empties it, so that fill is gone.
    }

    /// Which record names which asset, so that a modify deletes at once an asset that no
    /// record of its database names any more (`SQLiteRecordStore.deleteUnnamedAssets`).
    /// Filled from the records stored before: one pass over the records whose fields hold an
    /// asset value (a stored string escapes its quotes, so the pattern is a value's only).
    private static func createAssetReferences(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE assetReference (
                zoneId INTEGER NOT NULL REFERENCES zone(id) ON DELETE CASCADE,
                recordName TEXT NOT NULL,
                checksum TEXT NOT NULL,
                PRIMARY KEY (zoneId, recordName, checksum)
            ) WITHOUT ROWID;
            CREATE INDEX assetReference_by_checksum ON assetReference(checksum, zoneId);
            INSERT OR IGNORE INTO assetReference (zoneId, recordName, checksum)
            SELECT record.zoneId, record.recordName, json_extract(tree.value, '$.checksum')
            FROM record, json_tree(record.fields) AS tree
            WHERE instr(record.fields, '{"asset":{"checksum":') > 0 AND tree.key = 'asset'
                AND json_extract(tree.value, '$.checksum') IS NOT NULL;
            """)
    }

    private static func createServer(_ db: Database) throws {
        // A record name lives in exactly one of `record` (saved) and `deletion` (deleted),
        // stamped with the zone sequence of its latest change, so one ordered union of the
        // two is the zone's change feed with every name at most once.
        try db.execute(sql: """
            CREATE TABLE device (
                name TEXT PRIMARY KEY NOT NULL,
                account TEXT,
                isOffline INTEGER NOT NULL DEFAULT 0,
                latencyMilliseconds INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            CREATE TABLE zone (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                account TEXT NOT NULL,
                name TEXT NOT NULL,
                createdAt INTEGER NOT NULL,
                changeSequence INTEGER NOT NULL DEFAULT 0,
                purgedThrough INTEGER NOT NULL DEFAULT 0,
                UNIQUE (account, name)
            );
            CREATE TABLE record (
                zoneId INTEGER NOT NULL REFERENCES zone(id) ON DELETE CASCADE,
                recordName TEXT NOT NULL,
                changeSequence INTEGER NOT NULL,
                recordType TEXT NOT NULL,
                changeTag TEXT NOT NULL,
                creationDate INTEGER NOT NULL,
                modificationDate INTEGER NOT NULL,
                fields TEXT NOT NULL,
                PRIMARY KEY (zoneId, recordName)
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX record_by_change ON record(zoneId, changeSequence);
            CREATE INDEX record_by_type ON record(zoneId, recordType, recordName);
            CREATE TABLE deletion (
                zoneId INTEGER NOT NULL REFERENCES zone(id) ON DELETE CASCADE,
                recordName TEXT NOT NULL,
                changeSequence INTEGER NOT NULL,
                recordType TEXT NOT NULL,
                deletedAt INTEGER NOT NULL,
                PRIMARY KEY (zoneId, recordName)
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX deletion_by_change ON deletion(zoneId, changeSequence);
            CREATE INDEX deletion_by_time ON deletion(deletedAt);
            CREATE TABLE quota (
                account TEXT PRIMARY KEY NOT NULL,
                maxRecords INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE scriptedError (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                device TEXT NOT NULL,
                operation TEXT,
                error TEXT NOT NULL
            );
            CREATE INDEX scriptedError_by_device ON scriptedError(device, id);
            CREATE TABLE errorRate (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                device TEXT NOT NULL,
                operation TEXT,
                probability REAL NOT NULL,
                error TEXT NOT NULL
            );
            CREATE INDEX errorRate_by_device ON errorRate(device, id);
            """)
    }
}
