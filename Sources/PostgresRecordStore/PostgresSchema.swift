import CloudKitModel
import IdeaBoxFoundation
import Logging
import PostgresNIO
import ServerStore

/// The PostgreSQL store's schema, built only through named migrations that are never edited.
///
/// The tables follow the SQLite store's (`SQLiteSchema`): a record name lives in exactly one
/// of `record` (saved) and `deletion` (deleted), stamped with the zone sequence of its
/// latest change, so one ordered union of the two is the zone's change feed. Names compare
/// with the "C" collation, byte by byte as SQLite does, whatever the database's locale.
enum PostgresSchema {
    /// The migrations, oldest first: a name and its statements.
    static let migrations: [(name: String, statements: [String])] = [
        ("v1-server", [
            """
            CREATE TABLE access_token (
                hash TEXT PRIMARY KEY,
                account TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
            "CREATE INDEX access_token_by_account ON access_token (account)",
            "CREATE TABLE quota (account TEXT PRIMARY KEY, max_records BIGINT NOT NULL)",
            """
            CREATE TABLE zone (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account TEXT COLLATE "C" NOT NULL,
                name TEXT COLLATE "C" NOT NULL,
                created_at BIGINT NOT NULL,
                change_sequence BIGINT NOT NULL DEFAULT 0,
                purged_through BIGINT NOT NULL DEFAULT 0,
                UNIQUE (account, name)
            )
            """,
            """
            CREATE TABLE record (
                zone_id BIGINT NOT NULL REFERENCES zone (id) ON DELETE CASCADE,
                record_name TEXT COLLATE "C" NOT NULL,
                change_sequence BIGINT NOT NULL,
                record_type TEXT COLLATE "C" NOT NULL,
                change_tag TEXT NOT NULL,
                creation_date BIGINT NOT NULL,
                modification_date BIGINT NOT NULL,
                fields TEXT NOT NULL,
                PRIMARY KEY (zone_id, record_name),
                UNIQUE (zone_id, change_sequence)
            )
            """,
            "CREATE INDEX record_by_type ON record (zone_id, record_type, record_name)",
            """
            CREATE TABLE deletion (
                zone_id BIGINT NOT NULL REFERENCES zone (id) ON DELETE CASCADE,
                record_name TEXT COLLATE "C" NOT NULL,
                change_sequence BIGINT NOT NULL,
                record_type TEXT COLLATE "C" NOT NULL,
                deleted_at BIGINT NOT NULL,
                PRIMARY KEY (zone_id, record_name),
                UNIQUE (zone_id, change_sequence)
            )
            """,
            "CREATE INDEX deletion_by_time ON deletion (deleted_at)",
        ]),
        ("v2-assets", [
            """
            CREATE TABLE asset (
                account TEXT COLLATE "C" NOT NULL,
                checksum TEXT COLLATE "C" NOT NULL,
                size BIGINT NOT NULL,
                uploaded_at BIGINT NOT NULL,
                data BYTEA NOT NULL,
                PRIMARY KEY (account, checksum)
            )
            """,
        ]),
        // CloudKit has no Boolean type (see SQLiteSchema.booleansAsIntegers).
        ("v3-no-booleans", [
            """
            UPDATE record SET fields = replace(replace(fields, '{"bool":true}', '{"int64":1}'), '{"bool":false}', '{"int64":0}')
            WHERE strpos(fields, '{"bool":') > 0
            """,
        ]),
        ("v4-web-services", [
            """
            CREATE TABLE api_token (
                hash TEXT PRIMARY KEY,
                label TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
            "CREATE TABLE server_secret (id INT PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL)",
            """
            CREATE TABLE subscription (
                account TEXT NOT NULL,
                id TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (account, id)
            )
            """,
        ]),
        ("v5-accounts", [
            "ALTER TABLE access_token ADD COLUMN label TEXT NOT NULL DEFAULT 'token'",
            "ALTER TABLE access_token ADD COLUMN last_used_at BIGINT",
            "CREATE INDEX access_token_by_folded_account ON access_token (lower(account))",
        ]),
        // An asset's bytes in rows of at most 1 MiB (see SQLiteSchema's v8-asset-chunks);
        // quotas count zones and asset bytes too.
        ("v6-asset-chunks", [
            """
            CREATE TABLE asset_chunk (
                account TEXT COLLATE "C" NOT NULL,
                checksum TEXT COLLATE "C" NOT NULL,
                seq INT NOT NULL,
                data BYTEA NOT NULL,
                PRIMARY KEY (account, checksum, seq),
                FOREIGN KEY (account, checksum) REFERENCES asset (account, checksum) ON DELETE CASCADE
            )
            """,
            "INSERT INTO asset_chunk (account, checksum, seq, data) SELECT account, checksum, 0, data FROM asset",
            "ALTER TABLE asset DROP COLUMN data",
            "CREATE INDEX asset_by_upload ON asset (uploaded_at)",
            "ALTER TABLE quota ADD COLUMN max_zones BIGINT NOT NULL DEFAULT 100",
            "ALTER TABLE quota ADD COLUMN max_asset_bytes BIGINT NOT NULL DEFAULT 1073741824",
        ]),
        // A quota is an account's, across its databases, under its own name (see
        // SQLiteSchema's v10-account-quotas): a row under `account@container` is dropped.
        ("v7-account-quotas", [
            "DELETE FROM quota WHERE strpos(account, '@') > 0",
        ]),
        // The key of every field of every record (see SQLiteSchema's v11-query-keys). It filled
        // them for the records stored before; v9 drops them all, so that fill is gone.
        ("v8-query-keys", [
            """
            CREATE TABLE record_field (
                zone_id BIGINT NOT NULL REFERENCES zone (id) ON DELETE CASCADE,
                record_name TEXT COLLATE "C" NOT NULL,
                field_name TEXT COLLATE "C" NOT NULL,
                record_type TEXT COLLATE "C" NOT NULL,
                value_key BYTEA NOT NULL,
                PRIMARY KEY (zone_id, record_name, field_name)
            )
            """,
            "CREATE INDEX record_field_by_key ON record_field (zone_id, record_type, field_name, value_key, record_name)",
            "CREATE INDEX record_by_creation ON record (zone_id, record_type, creation_date, record_name)",
            "CREATE INDEX record_by_modification ON record (zone_id, record_type, modification_date, record_name)",
        ]),
        // Keys are kept only for the fields a query has named (`QueryableFields`, see
        // SQLiteSchema's v12-queryable-fields); a mark is `ready` once the records saved
        // before it have their keys (`makeQueryable`). The keys v8 kept for every field go.
        ("v9-queryable-fields", [
            """
            CREATE TABLE queryable_field (
                account TEXT COLLATE "C" NOT NULL,
                record_type TEXT COLLATE "C" NOT NULL,
                field_name TEXT COLLATE "C" NOT NULL,
                ready BOOLEAN NOT NULL DEFAULT FALSE,
                PRIMARY KEY (account, record_type, field_name)
            )
            """,
            "TRUNCATE record_field",
        ]),
        // Which record names which asset, so that a modify deletes at once an asset no record
        // of its database names any more (see SQLiteSchema's v14-asset-references); filled
        // from the records stored before, in one pass over those whose fields hold an asset.
        ("v10-asset-references", [
            """
            CREATE TABLE asset_reference (
                zone_id BIGINT NOT NULL REFERENCES zone (id) ON DELETE CASCADE,
                record_name TEXT COLLATE "C" NOT NULL,
                checksum TEXT COLLATE "C" NOT NULL,
                PRIMARY KEY (zone_id, record_name, checksum)
            )
            """,
            "CREATE INDEX asset_reference_by_checksum ON asset_reference (checksum, zone_id)",
            """
            INSERT INTO asset_reference (zone_id, record_name, checksum)
            SELECT DISTINCT record.zone_id, record.record_name, named.match[1]
            FROM record, regexp_matches(record.fields, '\\{"asset":\\{"checksum":"([0-9a-f]{64})"', 'g') AS named(match)
            WHERE strpos(record.fields, '{"asset":{"checksum":') > 0
            ON CONFLICT DO NOTHING
            """,
        ]),
        // The type of each field of each record type of each database (`FieldSchema`), filled
        // by saves, not here (see SQLiteSchema's v15-field-types).
        ("v11-field-types", [
            """
            CREATE TABLE field_type (
                account TEXT COLLATE "C" NOT NULL,
                record_type TEXT COLLATE "C" NOT NULL,
                field_name TEXT COLLATE "C" NOT NULL,
                type TEXT NOT NULL,
                PRIMARY KEY (account, record_type, field_name)
            )
            """,
        ]),
        // Which server processes hold long polls of which account, until when
        // (`keepListening`): a change is announced (`NOTIFY`) only if another process may
        // hold a poll for it, and a process that ended without a word is forgotten in minutes.
        ("v12-change-listeners", [
            """
            CREATE TABLE change_listener (
                account TEXT COLLATE "C" NOT NULL,
                process TEXT COLLATE "C" NOT NULL,
                expires TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (account, process)
            )
            """,
        ]),
        // The type of every field of every record stored before the schema was kept, the
        // first record's where two differ (see SQLiteSchema's v16-stored-field-types): a claim
        // reads the schema table only since, and `modify` keeps the type of what it stores.
        // A stored value is a one-key object naming its kind (`StoredFields`), a list's kind
        // that of its first item; an empty list has none. Named as `FieldSchema.typeName`
        // names them, which `PostgresRecordStoreTests` holds this to.
        ("v13-stored-field-types", [
            """
            WITH stored AS (
                SELECT zone.account, record.record_type, field.key AS field_name, field.value,
                    (SELECT kind FROM jsonb_object_keys(field.value) AS kind LIMIT 1) AS kind
                FROM record JOIN zone ON zone.id = record.zone_id, jsonb_each(record.fields::jsonb) AS field
                WHERE jsonb_typeof(field.value) = 'object'
            ), items AS (
                SELECT account, record_type, field_name, kind = 'list' AS is_list,
                    CASE WHEN kind = 'list' AND jsonb_typeof(value -> 'list' -> 0) = 'object'
                        THEN (SELECT kind FROM jsonb_object_keys(value -> 'list' -> 0) AS kind LIMIT 1)
                        WHEN kind = 'list' THEN NULL ELSE kind END AS item
                FROM stored
            )
            INSERT INTO field_type (account, record_type, field_name, type)
            SELECT account, record_type, field_name,
                CASE item WHEN 'string' THEN 'STRING' WHEN 'int64' THEN 'INT64' WHEN 'bool' THEN 'INT64' WHEN 'double' THEN 'DOUBLE'
                    WHEN 'timestamp' THEN 'TIMESTAMP' WHEN 'bytes' THEN 'BYTES' WHEN 'asset' THEN 'ASSET' END
                    || CASE WHEN is_list THEN '_LIST' ELSE '' END
            FROM items WHERE item IN ('string', 'int64', 'bool', 'double', 'timestamp', 'bytes', 'asset')
            ON CONFLICT DO NOTHING
            """,
        ]),
        // The device whose save made each change, as its request named it (null for none,
        // and for every change made before), so that a device's long poll is held on its own
        // changes (`PollNews`).
        ("v14-change-writers", [
            "ALTER TABLE record ADD COLUMN written_by TEXT",
            "ALTER TABLE deletion ADD COLUMN written_by TEXT",
        ]),
        // Which record a `DELETE_SELF` reference deletes with which record of its zone, and
        // the cascades a modify left for the next one of their zone (see SQLiteSchema's
        // v18-cascading-references); filled from the records stored before that hold one.
        ("v15-cascading-references", [
            """
            CREATE TABLE cascading_reference (
                zone_id BIGINT NOT NULL REFERENCES zone (id) ON DELETE CASCADE,
                record_name TEXT COLLATE "C" NOT NULL,
                target_name TEXT COLLATE "C" NOT NULL,
                PRIMARY KEY (zone_id, record_name, target_name)
            )
            """,
            "CREATE INDEX cascading_reference_by_target ON cascading_reference (zone_id, target_name)",
            """
            CREATE TABLE pending_cascade (
                zone_id BIGINT NOT NULL REFERENCES zone (id) ON DELETE CASCADE,
                target_name TEXT COLLATE "C" NOT NULL,
                PRIMARY KEY (zone_id, target_name)
            )
            """,
            """
            INSERT INTO cascading_reference (zone_id, record_name, target_name)
            SELECT DISTINCT record.zone_id, record.record_name, reference ->> 'recordName'
            FROM record JOIN zone ON zone.id = record.zone_id,
                jsonb_path_query(record.fields::jsonb, '$.**.reference ? (@.action == "DELETE_SELF")') AS reference
            WHERE strpos(record.fields, '{"reference":{"action":"DELETE_SELF"') > 0
                AND reference ->> 'recordName' IS NOT NULL AND coalesce(reference ->> 'zoneName', zone.name) = zone.name
            ON CONFLICT DO NOTHING
            """,
        ]),
    ]
}

extension PostgresRecordStore {
    /// Creates or updates the tables, one named migration at a time, never editing one
    /// that shipped. An advisory lock makes servers that start together migrate once.
    static func migrate(_ connection: PostgresConnection, schema: String?, clock: WallClock, logger: Logger) async throws {
        try await transaction(on: connection, readOnly: false, logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(8420)", logger: logger)
            if let schema { try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: logger) }
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS ideabox_migration (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)", logger: logger)
            var applied = Set<String>()
            for try await name in try await connection.query("SELECT name FROM ideabox_migration", logger: logger).decode(String.self) {
                applied.insert(name)
            }
            for (name, statements) in PostgresSchema.migrations where !applied.contains(name) {
                for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query(
                    "INSERT INTO ideabox_migration (name, applied_at) VALUES (\(name), \(clock.now().milliseconds))", logger: logger)
            }
        }
    }
}
