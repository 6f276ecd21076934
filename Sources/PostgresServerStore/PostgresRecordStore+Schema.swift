import CloudKitModel
import Logging
import PostgresNIO
import ServerStore

/// The field types of each database's record types (`RecordSchemaStore`).
extension PostgresRecordStore {
    public func fieldTypes(account: String, recordTypes: Set<String>) async throws -> [String: [String: String]] {
        let recordTypes = Array(recordTypes)
        return try await run { connection in
            let rows = try await connection.query(
                """
                SELECT record_type, field_name, type FROM field_type
                WHERE account = \(account) AND record_type = ANY(\(recordTypes)::text[])
                """, logger: logger)
            var types: [String: [String: String]] = [:]
            for try await (recordType, fieldName, type) in rows.decode((String, String, String).self) {
                types[recordType, default: [:]][fieldName] = type
            }
            return types
        }
    }

    /// In one transaction, so that a refused claim stores nothing. The claims of one database
    /// wait for each other (an advisory lock on its key), so that two cannot both take the
    /// last places `FieldTypeLimits` leaves; each new field is inserted unless present (`ON
    /// CONFLICT DO NOTHING`: a `modify` keeping a type at once waits for this row and keeps
    /// it), then read back, after the inserts, so the answer is what is stored. Only the
    /// schema table is read, by its key: every field of a stored record has its row there
    /// already (`modify` writes it, and `v13` did for the records stored before).
    public func claimFieldTypes(_ types: [String: [String: String]], account: String) async throws -> [String: [String: String]] {
        try await transaction { connection in
            var claimed: [String: [String: String]] = [:]
            try await connection.query("SELECT pg_advisory_xact_lock(8421, hashtext(\(account)))", logger: logger)
            var inDatabase: Int?
            for recordType in types.keys.sorted() {
                let named = types[recordType]!
                let names = named.keys.sorted()
                let stored = try await connection.query(
                    """
                    SELECT field_name, type FROM field_type
                    WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(names)::text[])
                    """, logger: logger)
                for try await (fieldName, type) in stored.decode((String, String).self) { claimed[recordType, default: [:]][fieldName] = type }
                let new = names.filter { claimed[recordType]?[$0] == nil }
                guard !new.isEmpty else { continue }
                let counts = try await connection.query(
                    """
                    SELECT count(*) FILTER (WHERE record_type = \(recordType)), count(*) FROM field_type WHERE account = \(account)
                    """, logger: logger)
                var inType = 0
                for try await (type, database) in counts.decode((Int64, Int64).self) {
                    inType = Int(type)
                    if inDatabase == nil { inDatabase = Int(database) }
                }
                if let reason = FieldTypeLimits.refusal(
                    newFields: new.count, recordType: recordType, inType: inType, inDatabase: inDatabase ?? 0)
                {
                    throw FieldTypeLimitExceeded(reason: reason)
                }
                let newTypes = new.map { named[$0]! }
                try await connection.query(
                    """
                    INSERT INTO field_type (account, record_type, field_name, type)
                    SELECT \(account), \(recordType), * FROM unnest(\(new)::text[], \(newTypes)::text[]) ON CONFLICT DO NOTHING
                    """, logger: logger)
                let now = try await connection.query(
                    """
                    SELECT field_name, type FROM field_type
                    WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(new)::text[])
                    """, logger: logger)
                for try await (fieldName, type) in now.decode((String, String).self) { claimed[recordType, default: [:]][fieldName] = type }
                inDatabase = (inDatabase ?? 0) + new.count
            }
            return claimed
        }
    }

    /// Gives each field of `records` that has no type in the database `account` the type its
    /// value has (`FieldTypeLimits.types`), inside a modify's transaction: a save through
    /// `serve` claimed them before, so this only finds them. In the order of their keys, as
    /// a claim inserts, so that two transactions never wait for each other's rows in turn.
    static func keepFieldTypes(of records: [RemoteRecord], account: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        var typed: [String: [String: String]] = [:]
        for record in records {
            for (fieldName, type) in FieldTypeLimits.types(of: record.fields) where typed[record.recordType]?[fieldName] == nil {
                typed[record.recordType, default: [:]][fieldName] = type
            }
        }
        var rows = (recordTypes: [String](), names: [String](), types: [String]())
        for recordType in typed.keys.sorted() {
            for (fieldName, type) in typed[recordType]!.sorted(by: { $0.key < $1.key }) {
                rows.recordTypes.append(recordType)
                rows.names.append(fieldName)
                rows.types.append(type)
            }
        }
        guard !rows.names.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO field_type (account, record_type, field_name, type)
            SELECT \(account), * FROM unnest(\(rows.recordTypes)::text[], \(rows.names)::text[], \(rows.types)::text[])
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    public func schema(ofAccount account: String) async throws -> [FieldTypeEntry] {
        let others = DatabaseOwner.otherKeys(of: account)
        return try await run { connection in
            let rows = try await connection.query(
                """
                SELECT account, record_type, field_name, type FROM field_type
                WHERE account = \(account) OR (account >= \(others.from) AND account < \(others.before))
                ORDER BY account, record_type, field_name
                """, logger: logger)
            var entries: [FieldTypeEntry] = []
            for try await (database, recordType, fieldName, type) in rows.decode((String, String, String, String).self) {
                entries.append(FieldTypeEntry(database: database, recordType: recordType, fieldName: fieldName, type: type))
            }
            return entries
        }
    }
}
