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
            var claim = FieldTypeClaim(types)
            try await connection.query("SELECT pg_advisory_xact_lock(8421, hashtext(\(account)))", logger: logger)
            for recordType in claim.recordTypes {
                let names = claim.fieldNames(of: recordType)
                let stored = try await connection.query(
                    """
                    SELECT field_name, type FROM field_type
                    WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(names)::text[])
                    """, logger: logger)
                for try await (fieldName, type) in stored.decode((String, String).self) { claim.keep([fieldName: type], of: recordType) }
                let new = claim.newFields(of: recordType)
                guard !new.isEmpty else { continue }
                let counts = try await connection.query(
                    """
                    SELECT count(*) FILTER (WHERE record_type = \(recordType)), count(*) FROM field_type WHERE account = \(account)
                    """, logger: logger)
                var (inType, inDatabase) = (0, 0)
                for try await (type, database) in counts.decode((Int64, Int64).self) { (inType, inDatabase) = (Int(type), Int(database)) }
                let added = try claim.add(new, to: recordType, fieldsInType: inType, fieldsInDatabase: inDatabase)
                let newTypes = added.map(\.type)
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
                for try await (fieldName, type) in now.decode((String, String).self) { claim.keep([fieldName: type], of: recordType) }
            }
            return claim.claimed
        }
    }

    /// Gives each field of `records` that has no type in the database `account` the type its
    /// value has (`ModifyRules.fieldTypes`), inside a modify's transaction: a save through
    /// `serve` claimed them before, so this only finds them. In the order of their keys, as
    /// a claim inserts, so that two transactions never wait for each other's rows in turn.
    static func keepFieldTypes(of records: [RemoteRecord], account: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let typed = ModifyRules.fieldTypes(of: records.map { ($0.recordType, $0.fields) })
        guard !typed.isEmpty else { return }
        let (recordTypes, names, types) = (typed.map(\.recordType), typed.map(\.fieldName), typed.map(\.type))
        try await connection.query(
            """
            INSERT INTO field_type (account, record_type, field_name, type)
            SELECT \(account), * FROM unnest(\(recordTypes)::text[], \(names)::text[], \(types)::text[])
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
