import CloudKitModel
import CloudWebServices
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

    /// Each field is inserted unless present (`ON CONFLICT DO NOTHING`: of two servers
    /// giving one field a type at once, the second waits for the first's row and keeps it),
    /// then all are read back, after the inserts, so the answer is what is stored.
    public func claimFieldTypes(_ types: [String: String], recordType: String, account: String) async throws -> [String: String] {
        try await transaction { connection in
            let names = Array(types.keys)
            var claimed: [String: String] = [:]
            let stored = try await connection.query(
                """
                SELECT field_name, type FROM field_type
                WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(names)::text[])
                """, logger: logger)
            for try await (fieldName, type) in stored.decode((String, String).self) { claimed[fieldName] = type }
            for (fieldName, type) in types where claimed[fieldName] == nil {
                let chosen = try await Self.storedType(of: fieldName, recordType: recordType, account: account, connection, logger) ?? type
                try await connection.query(
                    """
                    INSERT INTO field_type (account, record_type, field_name, type)
                    VALUES (\(account), \(recordType), \(fieldName), \(chosen)) ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            let now = try await connection.query(
                """
                SELECT field_name, type FROM field_type
                WHERE account = \(account) AND record_type = \(recordType) AND field_name = ANY(\(names)::text[])
                """, logger: logger)
            for try await (fieldName, type) in now.decode((String, String).self) { claimed[fieldName] = type }
            return claimed
        }
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

    /// The type of field `fieldName` in a record of `recordType` that `account` stored
    /// before its schema was kept, or nil (see `SQLiteRecordStore.storedType`); of the
    /// records holding the field's name as a key, the first 16 are read.
    private static func storedType(
        of fieldName: String, recordType: String, account: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> String? {
        let rows = try await connection.query(
            """
            SELECT record.fields FROM record JOIN zone ON zone.id = record.zone_id
            WHERE zone.account = \(account) AND record.record_type = \(recordType) AND strpos(record.fields, \("\"\(fieldName)\":{")) > 0
            LIMIT 16
            """, logger: logger)
        var found: String?
        for try await fields in rows.decode(String.self) where found == nil {
            if let value = try StoredFields.decode(fields)[fieldName] { found = FieldSchema.typeName(of: value) }
        }
        return found
    }
}
