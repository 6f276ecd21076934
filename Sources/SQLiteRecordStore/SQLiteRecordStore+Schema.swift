import CloudKitModel
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
    /// and the second reads it, and a refused claim stores nothing. It reads the schema table
    /// only, by its key: every field of a stored record has its row there already (`modify`
    /// writes it, and `v16` did for the records stored before), so a claim costs what it
    /// names, not what the account holds.
    public func claimFieldTypes(_ types: [String: [String: String]], account: String) throws -> [String: [String: String]] {
        try writer.write { db in
            let select = try db.cachedStatement(sql: "SELECT type FROM fieldType WHERE account = ? AND recordType = ? AND fieldName = ?")
            let countType = try db.cachedStatement(sql: "SELECT count(*) FROM fieldType WHERE account = ? AND recordType = ?")
            let insert = try db.cachedStatement(sql: "INSERT INTO fieldType (account, recordType, fieldName, type) VALUES (?, ?, ?, ?)")
            var claim = FieldTypeClaim(types)
            for recordType in claim.recordTypes {
                for fieldName in claim.fieldNames(of: recordType) {
                    if let stored = try String.fetchOne(select, arguments: [account, recordType, fieldName]) {
                        claim.keep([fieldName: stored], of: recordType)
                    }
                }
                let new = claim.newFields(of: recordType)
                guard !new.isEmpty else { continue }
                let inType = try Int.fetchOne(countType, arguments: [account, recordType]) ?? 0
                let inDatabase = try claim.fieldsInDatabase ?? Int.fetchOne(
                    db.cachedStatement(sql: "SELECT count(*) FROM fieldType WHERE account = ?"), arguments: [account]) ?? 0
                let added = try claim.add(new, to: recordType, fieldsInType: inType, fieldsInDatabase: inDatabase)
                for (fieldName, type) in added { try insert.execute(arguments: [account, recordType, fieldName, type]) }
                claim.keep(Dictionary(uniqueKeysWithValues: added.map { ($0.fieldName, $0.type) }), of: recordType)
            }
            return claim.claimed
        }
    }

    /// Gives each field of `records` (each a record type and its fields) that has no type in
    /// the database `account` the type its value has (`ModifyRules.fieldTypes`), inside a
    /// modify's transaction: a save through `serve` claimed them before (so this only finds
    /// them), the embedded remote's did not.
    static func keepFieldTypes(
        of records: [(recordType: String, fields: [String: FieldValue])], account: String, _ db: Database
    ) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO fieldType (account, recordType, fieldName, type) VALUES (?, ?, ?, ?)")
        for (recordType, fieldName, type) in ModifyRules.fieldTypes(of: records) {
            try insert.execute(arguments: [account, recordType, fieldName, type])
        }
    }

    /// Gives every field of every record stored before the schema was kept the type its value
    /// has, the first record's where two differ (`v16-stored-field-types`): one pass, once.
    static func keepFieldTypesOfStoredRecords(_ db: Database) throws {
        let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO fieldType (account, recordType, fieldName, type) VALUES (?, ?, ?, ?)")
        let rows = try Row.fetchCursor(
            db, sql: "SELECT zone.account, record.recordType, record.fields FROM record JOIN zone ON zone.id = record.zoneId")
        while let row = try rows.next() {
            let account: String = row[0]
            let recordType: String = row[1]
            // A record whose fields cannot be read (none a server wrote) gives none, rather than keep the file shut.
            guard let fields = try? StoredFields.decode(row[2]) else { continue }
            for (fieldName, type) in FieldTypeLimits.types(of: fields) {
                try insert.execute(arguments: [account, recordType, fieldName, type])
            }
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
}
