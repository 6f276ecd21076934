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
            var inDatabase: Int?
            var claimed: [String: [String: String]] = [:]
            for recordType in types.keys.sorted() {
                let named = types[recordType]!
                var new: [String] = []
                for fieldName in named.keys.sorted() {
                    if let stored = try String.fetchOne(select, arguments: [account, recordType, fieldName]) {
                        claimed[recordType, default: [:]][fieldName] = stored
                    } else {
                        new.append(fieldName)
                    }
                }
                guard !new.isEmpty else { continue }
                let inType = try Int.fetchOne(countType, arguments: [account, recordType]) ?? 0
                if inDatabase == nil {
                    inDatabase = try Int.fetchOne(
                        db.cachedStatement(sql: "SELECT count(*) FROM fieldType WHERE account = ?"), arguments: [account]) ?? 0
                }
                if let reason = FieldTypeLimits.refusal(
                    newFields: new.count, recordType: recordType, inType: inType, inDatabase: inDatabase!)
                {
                    throw FieldTypeLimitExceeded(reason: reason)
                }
                for fieldName in new {
                    try insert.execute(arguments: [account, recordType, fieldName, named[fieldName]!])
                    claimed[recordType, default: [:]][fieldName] = named[fieldName]!
                }
                inDatabase! += new.count
            }
            return claimed
        }
    }

    /// Gives each of `fields` of `recordType` that has no type in the database `account` the type its
    /// value has (`FieldTypeLimits.types`), inside a modify's transaction: a save through
    /// `serve` claimed them before (so this only finds them), the embedded remote's did not.
    static func keepFieldTypes(of fields: [String: FieldValue], recordType: String, account: String, _ db: Database) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO fieldType (account, recordType, fieldName, type) VALUES (?, ?, ?, ?)")
        for (fieldName, type) in FieldTypeLimits.types(of: fields) {
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
