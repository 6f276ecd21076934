import CloudRemote
import CloudServer
import Foundation
import IdeaBoxCore
import Logging
import PostgresNIO

/// `serve`'s records and tokens in PostgreSQL, for any number of `ideabox serve` processes
/// on any number of machines: they behave as one server.
///
/// Every write takes the rows of the zones it touches with `FOR UPDATE`, in id order, before
/// it reads or writes a record, so writers of one zone take turns: each gets the next change
/// sequences, its conflict checks see the latest committed records, and a change token
/// (a zone sequence) never skips a change that commits later. A modify is one transaction,
/// so it applies whole or not at all. Reads run in one `REPEATABLE READ` snapshot.
public final class PostgresRecordStore: RecordStore {
    public let maximumRecordsPerRequest: Int
    private let client: PostgresClient
    private let running: Task<Void, Never>
    private let clock: WallClock
    private let logger: Logger

    private init(client: PostgresClient, clock: WallClock, maximumRecordsPerRequest: Int, logger: Logger) {
        self.client = client
        self.clock = clock
        self.maximumRecordsPerRequest = maximumRecordsPerRequest
        self.logger = logger
        running = Task(executorPreference: BlockingTaskExecutor.shared) { await client.run() }
    }

    deinit {
        running.cancel()
    }

    /// Connects to the database `url` names (`postgres://user:password@host:port/database`)
    /// and brings its schema up to date; throws `PostgresStoreError` if it cannot.
    /// `schema` keeps the tables in a schema of that name (created if missing) instead of
    /// `public`, so that tests can share one database. Each process keeps at most
    /// `maximumConnections` connections open.
    public static func connect(
        url: String, schema: String? = nil, clock: WallClock,
        maximumRecordsPerRequest: Int = WebServicesDatabase.maximumOperations, maximumConnections: Int = 16
    ) async throws -> PostgresRecordStore {
        let location = try PostgresURL(url)
        if let schema {
            guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw PostgresStoreError.invalidURL("The schema must be lower-case letters, digits and _, not \"\(schema)\".")
            }
        }
        let startup = schema.map { [("options", "-c search_path=\($0)")] } ?? []
        var logger = Logger(label: "ideabox.serve.postgres")
        logger.logLevel = .error

        // One connection of its own first, given a few seconds, so that a wrong address, user,
        // password or database fails now with PostgreSQL's own words (the pool would retry
        // quietly for a minute); the schema is brought up to date on it.
        do {
            var configuration = try location.connectionConfiguration()
            configuration.options.connectTimeout = .seconds(5)
            configuration.options.additionalStartupParameters = startup
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            do {
                try await migrate(connection, schema: schema, clock: clock, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        } catch {
            throw PostgresStoreError.unreachable(Self.describe(error))
        }

        var configuration = location.clientConfiguration
        configuration.options.maximumConnections = maximumConnections
        configuration.options.additionalStartupParameters = startup
        return PostgresRecordStore(
            client: PostgresClient(configuration: configuration, backgroundLogger: logger), clock: clock,
            maximumRecordsPerRequest: maximumRecordsPerRequest, logger: logger)
    }

    // MARK: Tokens and quotas

    public func account(forAccessTokenHash tokenHash: String) async throws -> String? {
        try await run { connection in
            try await connection.query(
                "SELECT account FROM access_token WHERE hash = \(tokenHash) AND revoked_at IS NULL", logger: logger
            ).collect().first?.decode(String.self)
        }
    }

    public func addAccessToken(hash tokenHash: String, account: String) async throws {
        let now = clock.now().milliseconds
        try await run { connection in
            try await connection.query(
                "INSERT INTO access_token (hash, account, created_at) VALUES (\(tokenHash), \(account), \(now))", logger: logger)
        }
    }

    public func revokeAccessTokens(account: String) async throws -> Int {
        let now = clock.now().milliseconds
        return try await run { connection in
            try await Self.count(
                """
                WITH revoked AS (
                    UPDATE access_token SET revoked_at = \(now) WHERE account = \(account) AND revoked_at IS NULL RETURNING 1)
                SELECT COUNT(*) FROM revoked
                """, connection, logger)
        }
    }

    public func accessTokenAccounts() async throws -> [(account: String, validTokens: Int)] {
        try await run { connection in
            var accounts: [(account: String, validTokens: Int)] = []
            let rows = try await connection.query(
                """
                SELECT account, COUNT(*) FILTER (WHERE revoked_at IS NULL) FROM access_token GROUP BY account ORDER BY account
                """, logger: logger)
            for try await (account, valid) in rows.decode((String, Int64).self) { accounts.append((account, Int(valid))) }
            return accounts
        }
    }

    public func setQuota(maxRecords: Int?, account: String) async throws {
        try await run { connection in
            if let maxRecords {
                try await connection.query(
                    """
                    INSERT INTO quota (account, max_records) VALUES (\(account), \(Int64(maxRecords)))
                    ON CONFLICT (account) DO UPDATE SET max_records = excluded.max_records
                    """, logger: logger)
            } else {
                try await connection.query("DELETE FROM quota WHERE account = \(account)", logger: logger)
            }
        }
    }

    public func recordCount(account: String) async throws -> Int {
        try await run { connection in try await Self.recordCount(account, connection, logger) }
    }

    // MARK: Zones

    public func zones(account: String) async throws -> [RecordZoneID] {
        try await run { connection in
            var zones: [RecordZoneID] = []
            let rows = try await connection.query("SELECT name FROM zone WHERE account = \(account) ORDER BY name", logger: logger)
            for try await name in rows.decode(String.self) { zones.append(RecordZoneID(zoneName: name)) }
            return zones
        }
    }

    public func createZone(_ zone: RecordZoneID, account: String) async throws {
        let now = clock.now().milliseconds
        try await run { connection in
            try await connection.query(
                """
                INSERT INTO zone (account, name, created_at) VALUES (\(account), \(zone.zoneName), \(now))
                ON CONFLICT (account, name) DO NOTHING
                """, logger: logger)
        }
    }

    public func deleteZone(_ zone: RecordZoneID, account: String) async throws {
        try await run { connection in
            try await connection.query("DELETE FROM zone WHERE account = \(account) AND name = \(zone.zoneName)", logger: logger)
        }
    }

    public func purgeDeletions(before cutoff: Timestamp) async throws -> Int {
        let cutoff = cutoff.milliseconds
        return try await transaction { connection in
            try await connection.query(
                """
                UPDATE zone SET purged_through = GREATEST(purged_through, purged.sequence)
                FROM (SELECT zone_id, MAX(change_sequence) AS sequence FROM deletion WHERE deleted_at < \(cutoff) GROUP BY zone_id) purged
                WHERE zone.id = purged.zone_id
                """, logger: logger)
            return try await Self.count(
                "WITH purged AS (DELETE FROM deletion WHERE deleted_at < \(cutoff) RETURNING 1) SELECT COUNT(*) FROM purged",
                connection, logger)
        }
    }

    // MARK: Assets

    public func storeAsset(_ data: Data, account: String) async throws -> AssetReference {
        guard data.count <= AssetReference.maximumSize else { throw CloudError.limitExceeded }
        let reference = AssetReference(of: data)
        let now = clock.now().milliseconds
        try await run { connection in
            try await connection.query(
                """
                INSERT INTO asset (account, checksum, size, uploaded_at, data)
                VALUES (\(account), \(reference.checksum), \(reference.size), \(now), \(data))
                ON CONFLICT (account, checksum) DO NOTHING
                """, logger: logger)
        }
        return reference
    }

    public func asset(_ checksum: String, account: String) async throws -> Data? {
        try await run { connection in
            let rows = try await connection.query(
                "SELECT data FROM asset WHERE account = \(account) AND checksum = \(checksum)", logger: logger)
            for try await data in rows.decode(ByteBuffer.self) { return Data(data.readableBytesView) }
            return nil
        }
    }

    /// Those of `references` that `account` holds, at the size each names.
    private static func assets(
        _ references: [AssetReference], account: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Set<AssetReference> {
        guard !references.isEmpty else { return [] }
        let checksums = Array(Set(references.map(\.checksum)))
        var held = Set<AssetReference>()
        let rows = try await connection.query(
            "SELECT checksum, size FROM asset WHERE account = \(account) AND checksum = ANY(\(checksums))", logger: logger)
        for try await (checksum, size) in rows.decode((String, Int64).self) {
            if let reference = AssetReference(checksum: checksum, size: size) { held.insert(reference) }
        }
        return held
    }

    // MARK: Records

    public func modify(account: String, saves: [RecordSave], deleting recordIDs: [RecordID], atomic: Bool) async throws -> ModifyResult {
        guard saves.count + recordIDs.count <= maximumRecordsPerRequest else { throw CloudError.limitExceeded }
        let now = clock.now()
        do {
            return try await transaction { connection in
                var zones = try await ZoneRows.lock(
                    Set(saves.map(\.record.recordID.zoneID) + recordIDs.map(\.zoneID)), account: account, connection, logger)
                var result = ModifyResult()
                try await Self.delete(recordIDs, zones: &zones, now: now, connection, logger)
                result.deleted = recordIDs

                var stored = try await Self.records(saves.map(\.record.recordID), zones: zones, connection, logger)
                let quota = try await connection.query(
                    "SELECT max_records FROM quota WHERE account = \(account) FOR UPDATE", logger: logger
                ).collect().first?.decode(Int64.self)
                var recordCount = try await quota == nil ? 0 : Int64(Self.recordCount(account, connection, logger))
                let assets = try await Self.assets(
                    saves.flatMap { $0.record.fields.values.flatMap(\.assetReferences) }, account: account, connection, logger)
                var written: [RecordID: RemoteRecord] = [:]
                for save in saves {
                    let record = save.record
                    let existing = stored[record.recordID]
                    if let failure = save.policy.refusal(saving: record, over: existing) {
                        result.failures[record.recordID] = failure
                    } else if !record.fields.values.flatMap(\.assetReferences).allSatisfy(assets.contains) {
                        result.failures[record.recordID] = .unknownItem
                    } else if existing == nil, let quota, recordCount >= quota {
                        result.failures[record.recordID] = .quotaExceeded
                    } else {
                        let zone = zones.rows[record.recordID.zoneID]!.id
                        var saved = record
                        saved.changeTag = "\(zone).\(zones.nextSequence(of: record.recordID.zoneID))"
                        saved.creationDate = existing?.creationDate ?? now
                        saved.modificationDate = now
                        if existing == nil { recordCount += 1 }
                        stored[record.recordID] = saved
                        written[record.recordID] = saved
                        result.saved.append(saved)
                    }
                }
                if atomic && !result.failures.isEmpty { throw AtomicFailure(failures: result.failures) }
                try await Self.write(Array(written.values), zones: zones, connection, logger)
                try await zones.saveSequences(connection, logger)
                return result
            }
        } catch let failure as AtomicFailure {
            return ModifyResult(failures: failure.failures)
        }
    }

    public func fetchChanges(account: String, in zoneID: RecordZoneID, since token: ChangeToken?, resultsLimit: Int) async throws -> ZoneChanges {
        let limit = Int64(max(1, resultsLimit))
        return try await transaction(readOnly: true) { connection in
            let zone = try await ZoneRows.find(zoneID, account: account, connection, logger)
            let since = try token.map {
                try ZonePosition.sequence(of: $0, zoneRowID: zone.id, history: zone.purgedThrough...zone.changeSequence)
            } ?? 0
            let rows = try await connection.query(
                """
                SELECT record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields
                FROM record WHERE zone_id = \(zone.id) AND change_sequence > \(since)
                UNION ALL
                SELECT record_name, change_sequence, record_type, NULL, NULL, NULL, NULL
                FROM deletion WHERE zone_id = \(zone.id) AND change_sequence > \(since)
                ORDER BY change_sequence LIMIT \(limit + 1)
                """, logger: logger)
            var changed: [RemoteRecord] = []
            var deleted: [DeletedRecord] = []
            var through = zone.changeSequence
            var count: Int64 = 0
            for try await (name, sequence, type, tag, created, modified, fields) in rows.decode(
                (String, Int64, String, String?, Int64?, Int64?, String?).self)
            {
                count += 1
                guard count <= limit else { break }
                let recordID = RecordID(recordName: name, zoneID: zoneID)
                if let tag, let created, let modified, let fields {
                    changed.append(try Self.record(recordID, type: type, tag: tag, created: created, modified: modified, fields: fields))
                } else {
                    deleted.append(DeletedRecord(recordID: recordID, recordType: type))
                }
                through = sequence
            }
            let moreComing = count > limit
            if !moreComing { through = zone.changeSequence }
            return ZoneChanges(
                changed: changed, deleted: deleted, token: ZonePosition(zoneRowID: zone.id, sequence: through).token,
                moreComing: moreComing)
        }
    }

    public func records(account: String, in zoneID: RecordZoneID, ofType recordType: String, after: String?, limit: Int) async throws -> [RemoteRecord] {
        let limit = Int64(clamping: max(0, limit))
        return try await transaction(readOnly: true) { connection in
            let zone = try await ZoneRows.find(zoneID, account: account, connection, logger)
            let rows = try await connection.query(
                """
                SELECT record_name, record_type, change_tag, creation_date, modification_date, fields
                FROM record WHERE zone_id = \(zone.id) AND record_type = \(recordType) AND (\(after)::text IS NULL OR record_name > \(after))
                ORDER BY record_name LIMIT \(limit)
                """, logger: logger)
            var records: [RemoteRecord] = []
            for try await (name, type, tag, created, modified, fields) in rows.decode((String, String, String, Int64, Int64, String).self) {
                records.append(try Self.record(
                    RecordID(recordName: name, zoneID: zoneID), type: type, tag: tag, created: created, modified: modified, fields: fields))
            }
            return records
        }
    }

    // MARK: Writing records

    /// Deletes those of `recordIDs` that exist, each with the next sequence of its zone, and
    /// remembers the deletions for change fetches.
    private static func delete(
        _ recordIDs: [RecordID], zones: inout ZoneRows, now: Timestamp, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        guard !recordIDs.isEmpty else { return }
        let keys = RecordKeys(recordIDs, zones: zones)
        let rows = try await connection.query(
            """
            DELETE FROM record WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            RETURNING zone_id, record_name, record_type
            """, logger: logger)
        var types: [Key: String] = [:]
        for try await (zone, name, type) in rows.decode((Int64, String, String).self) { types[Key(zone: zone, name: name)] = type }
        var deletion = (zones: [Int64](), names: [String](), sequences: [Int64](), types: [String]())
        for recordID in recordIDs {
            let key = Key(zone: zones.rows[recordID.zoneID]!.id, name: recordID.recordName)
            guard let type = types.removeValue(forKey: key) else { continue }
            deletion.zones.append(key.zone)
            deletion.names.append(key.name)
            deletion.sequences.append(zones.nextSequence(of: recordID.zoneID))
            deletion.types.append(type)
        }
        guard !deletion.zones.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO deletion (zone_id, record_name, change_sequence, record_type, deleted_at)
            SELECT zone_id, record_name, change_sequence, record_type, \(now.milliseconds)
            FROM unnest(\(deletion.zones)::int8[], \(deletion.names)::text[], \(deletion.sequences)::int8[], \(deletion.types)::text[])
                AS d(zone_id, record_name, change_sequence, record_type)
            ON CONFLICT (zone_id, record_name) DO UPDATE SET
                change_sequence = excluded.change_sequence, record_type = excluded.record_type, deleted_at = excluded.deleted_at
            """, logger: logger)
    }

    /// The stored records among `recordIDs`.
    private static func records(
        _ recordIDs: [RecordID], zones: ZoneRows, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [RecordID: RemoteRecord] {
        guard !recordIDs.isEmpty else { return [:] }
        let keys = RecordKeys(recordIDs, zones: zones)
        let rows = try await connection.query(
            """
            SELECT zone_id, record_name, record_type, change_tag, creation_date, modification_date, fields
            FROM record WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            """, logger: logger)
        var records: [RecordID: RemoteRecord] = [:]
        for try await (zone, name, type, tag, created, modified, fields) in rows.decode(
            (Int64, String, String, String, Int64, Int64, String).self)
        {
            guard let zoneID = zones.zoneID(ofRow: zone) else { continue }
            let recordID = RecordID(recordName: name, zoneID: zoneID)
            records[recordID] = try record(recordID, type: type, tag: tag, created: created, modified: modified, fields: fields)
        }
        return records
    }

    /// Stores `records` (as saved: tags, times and sequences set) in one statement, and
    /// forgets any deletion of their names.
    private static func write(_ records: [RemoteRecord], zones: ZoneRows, _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !records.isEmpty else { return }
        let keys = RecordKeys(records.map(\.recordID), zones: zones)
        let sequences = records.map { Int64($0.changeTag!.split(separator: ".").last!)! }
        let types = records.map(\.recordType)
        let tags = records.map { $0.changeTag! }
        let created = records.map { $0.creationDate!.milliseconds }
        let modified = records.map { $0.modificationDate!.milliseconds }
        let fields = records.map { StoredFields.encode($0.fields) }
        try await connection.query(
            """
            DELETE FROM deletion WHERE (zone_id, record_name) IN (SELECT * FROM unnest(\(keys.zones)::int8[], \(keys.names)::text[]))
            """, logger: logger)
        try await connection.query(
            """
            INSERT INTO record (zone_id, record_name, change_sequence, record_type, change_tag, creation_date, modification_date, fields)
            SELECT * FROM unnest(
                \(keys.zones)::int8[], \(keys.names)::text[], \(sequences)::int8[], \(types)::text[], \(tags)::text[],
                \(created)::int8[], \(modified)::int8[], \(fields)::text[])
            ON CONFLICT (zone_id, record_name) DO UPDATE SET
                change_sequence = excluded.change_sequence, record_type = excluded.record_type, change_tag = excluded.change_tag,
                creation_date = excluded.creation_date, modification_date = excluded.modification_date, fields = excluded.fields
            """, logger: logger)
    }

    private static func record(
        _ recordID: RecordID, type: String, tag: String, created: Int64, modified: Int64, fields: String
    ) throws -> RemoteRecord {
        RemoteRecord(
            recordType: type, recordID: recordID, fields: try StoredFields.decode(fields), changeTag: tag,
            creationDate: Timestamp(milliseconds: created), modificationDate: Timestamp(milliseconds: modified))
    }

    private static func recordCount(_ account: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        try await count(
            "SELECT COUNT(*) FROM record JOIN zone ON zone.id = record.zone_id WHERE zone.account = \(account)", connection, logger)
    }

    private static func count(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        Int(try await connection.query(query, logger: logger).collect().first?.decode(Int64.self) ?? 0)
    }

    // MARK: Connections and transactions

    /// Runs `body` on a pooled connection, outside a transaction.
    @discardableResult
    private func run<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await retrying {
            try await client.withConnection { connection in try await body(connection) }
        }
    }

    /// Runs `body` in a transaction that commits if it returns and rolls back if it throws
    /// (rethrowing its error as is); `readOnly` reads one snapshot.
    private func transaction<Result: Sendable>(
        readOnly: Bool = false, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await retrying {
            try await client.withConnection { connection in
                try await Self.transaction(on: connection, readOnly: readOnly, logger: logger, body)
            }
        }
    }

    private nonisolated(nonsending) static func transaction<Result: Sendable>(
        on connection: PostgresConnection, readOnly: Bool, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await connection.query(
            readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN ISOLATION LEVEL READ COMMITTED",
            logger: logger)
        let result: Result
        do {
            result = try await body(connection)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
        try await connection.query("COMMIT", logger: logger)
        return result
    }

    /// Runs `body` again (up to twice more) when PostgreSQL gave up on it for a deadlock or
    /// a serialization failure; maps a lost or refused connection to `serviceUnavailable`,
    /// which clients retry.
    private func retrying<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as PSQLError {
                attempt += 1
                switch error.code {
                case .server where Self.retriedStates.contains(error.serverInfo?[.sqlState] ?? "") && attempt < 3:
                    continue
                case .server where Self.retriedStates.contains(error.serverInfo?[.sqlState] ?? ""):
                    throw CloudError.zoneBusy(retryAfter: 1)
                case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
                    throw CloudError.serviceUnavailable(retryAfter: 2)
                default:
                    throw error
                }
            }
        }
    }

    /// Serialization failure and deadlock: the transaction was rolled back and may be rerun.
    private static let retriedStates: Set<String> = ["40001", "40P01"]

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] { return message }
        if error.code == .sslUnsupported { return "the server does not offer TLS, which sslmode=require asks for." }
        if let underlying = error.underlying { return String(describing: underlying) }
        return error.code.description
    }

    // MARK: Schema

    /// Creates or updates the tables, one named migration at a time, never editing one
    /// that shipped. An advisory lock makes servers that start together migrate once.
    private static func migrate(_ connection: PostgresConnection, schema: String?, clock: WallClock, logger: Logger) async throws {
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

/// Why the PostgreSQL store could not open.
public enum PostgresStoreError: Error, CustomStringConvertible {
    /// The URL is not one the store can use.
    case invalidURL(String)
    /// The database refused or could not be reached.
    case unreachable(String)

    public var description: String {
        switch self {
        case let .invalidURL(reason): reason
        case let .unreachable(reason): "Cannot use the PostgreSQL database: \(reason)"
        }
    }
}

/// Rolls back an atomic modify that had a failed item.
private struct AtomicFailure: Error {
    var failures: [RecordID: CloudError]
}

/// A record's key in the tables.
private struct Key: Hashable {
    var zone: Int64
    var name: String
}

/// Record ids as the two arrays `unnest` pairs up.
private struct RecordKeys {
    var zones: [Int64] = []
    var names: [String] = []

    init(_ recordIDs: [RecordID], zones rows: ZoneRows) {
        for recordID in recordIDs {
            zones.append(rows.rows[recordID.zoneID]!.id)
            names.append(recordID.recordName)
        }
    }
}

/// The zones a request touches, as their rows say, with the sequences taken so far.
private struct ZoneRows {
    struct Row {
        var id: Int64
        var changeSequence: Int64
        var purgedThrough: Int64
    }

    var rows: [RecordZoneID: Row] = [:]

    /// The zone `zoneID` of `account`, unlocked; throws `zoneNotFound` if it is missing.
    static func find(_ zoneID: RecordZoneID, account: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Row {
        let rows = try await connection.query(
            "SELECT id, change_sequence, purged_through FROM zone WHERE account = \(account) AND name = \(zoneID.zoneName)",
            logger: logger)
        for try await (id, sequence, purged) in rows.decode((Int64, Int64, Int64).self) {
            return Row(id: id, changeSequence: sequence, purgedThrough: purged)
        }
        throw CloudError.zoneNotFound
    }

    /// Locks the rows of `zoneIDs` of `account` until the transaction ends, in id order so
    /// that two writers never wait for each other; throws `zoneNotFound` if any is missing.
    static func lock(
        _ zoneIDs: Set<RecordZoneID>, account: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> ZoneRows {
        var zones = ZoneRows()
        guard !zoneIDs.isEmpty else { return zones }
        let names = zoneIDs.map(\.zoneName)
        let rows = try await connection.query(
            """
            SELECT name, id, change_sequence, purged_through FROM zone WHERE account = \(account) AND name = ANY(\(names)::text[])
            ORDER BY id FOR UPDATE
            """, logger: logger)
        for try await (name, id, sequence, purged) in rows.decode((String, Int64, Int64, Int64).self) {
            zones.rows[RecordZoneID(zoneName: name)] = Row(id: id, changeSequence: sequence, purgedThrough: purged)
        }
        guard zones.rows.count == zoneIDs.count else { throw CloudError.zoneNotFound }
        return zones
    }

    /// The zone whose row id is `id`.
    func zoneID(ofRow id: Int64) -> RecordZoneID? {
        rows.first { $0.value.id == id }?.key
    }

    /// Takes the next change sequence of `zoneID`.
    mutating func nextSequence(of zoneID: RecordZoneID) -> Int64 {
        rows[zoneID]!.changeSequence += 1
        return rows[zoneID]!.changeSequence
    }

    /// Stores each zone's latest sequence.
    func saveSequences(_ connection: PostgresConnection, _ logger: Logger) async throws {
        for row in rows.values {
            try await connection.query("UPDATE zone SET change_sequence = \(row.changeSequence) WHERE id = \(row.id)", logger: logger)
        }
    }
}
