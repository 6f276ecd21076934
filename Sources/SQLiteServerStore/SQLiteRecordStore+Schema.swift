import CloudKitModel
import CloudWebServices
import GRDB
import ServerStore

/// The field types of each database's record types (`RecordSchemaStore`).
extension SQLiteRecordStore {
    public func fieldTypes(account: String, recordTypes: Set<String>) throws -> [String: [String: String]] {
        try writer.read { db in
            var types: [String: [String: String]] = [:]
            let select = try db.cachedStatement(sql: "SELECT fieldName, type FROM fieldType WHERE account = ? AND recordType = ?")
            for recordType in recordTypes {
                for row in try Row.fetchAll(select, arguments: [account, recordType]) {
                    types[recordType, default: [:]][row[0]] = row[1] as String
                }
            }
            return types
        }
    }

    /// In one write transaction, so that of two saves giving one field a type the first wins
    /// and the second reads it.
    public func claimFieldTypes(_ types: [String: String], recordType: String, account: String) throws -> [String: String] {
        try writer.write { db in
            let select = try db.cachedStatement(sql: "SELECT type FROM fieldType WHERE account = ? AND recordType = ? AND fieldName = ?")
            let insert = try db.cachedStatement(sql: "INSERT INTO fieldType (account, recordType, fieldName, type) VALUES (?, ?, ?, ?)")
            var claimed: [String: String] = [:]
            for (fieldName, type) in types {
                if let stored = try String.fetchOne(select, arguments: [account, recordType, fieldName]) {
                    claimed[fieldName] = stored
                    continue
                }
                let chosen = try Self.storedType(of: fieldName, recordType: recordType, account: account, db) ?? type
                try insert.execute(arguments: [account, recordType, fieldName, chosen])
                claimed[fieldName] = chosen
            }
            return claimed
        }
    }

    public func schema(ofAccount account: String) throws -> [FieldTypeEntry] {
        let others = DatabaseOwner.otherKeys(of: account)
        return try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT account, recordType, fieldName, type FROM fieldType
                    WHERE account = ? OR (account >= ? AND account < ?) ORDER BY account, recordType, fieldName
                    """,
                arguments: [account, others.from, others.before]
            ).map { FieldTypeEntry(database: $0[0], recordType: $0[1], fieldName: $0[2], type: $0[3]) }
        }
    }

    /// The type of field `fieldName` in a record of `recordType` that `account` stored
    /// before its schema was kept, or nil if none has it. The stored JSON has a field's name
    /// as a key followed by its value's object, `"name":{`, which only a field (or an asset
    /// value's inner key) can be: the records holding that text are read until one has the field.
    private static func storedType(of fieldName: String, recordType: String, account: String, _ db: Database) throws -> String? {
        let rows = try String.fetchCursor(
            db.cachedStatement(sql: """
                SELECT record.fields FROM record JOIN zone ON zone.id = record.zoneId
                WHERE zone.account = ? AND record.recordType = ? AND instr(record.fields, ?) > 0
                """),
            arguments: [account, recordType, "\"\(fieldName)\":{"])
        while let fields = try rows.next() {
            if let value = try StoredFields.decode(fields)[fieldName], let type = FieldSchema.typeName(of: value) { return type }
        }
        return nil
    }
}
