import GRDB

/// What can still be read of one table of a damaged database: every row on a page that is
/// whole, found by walking the table's own b-tree (its rowids, or the primary key of a
/// table without rowid) around the pages that fail.
///
/// A scan in key order stops at the first damaged page; a scan from the other end stops at
/// the last. What lies between is probed by key ranges: a scan up and a scan down from the
/// middle of each gap, the gaps they leave probed in turn, so the rows of the whole pages
/// between damaged ones are found too. A damaged page that holds only part of the tree's
/// upper levels hides every row below it: no walk of this table reaches them, and the ideas
/// among them are found by reading every page of the file (`PageSalvage`).
struct TableSalvage {
    /// The columns read, in the order of each row's values.
    let columns: [String]
    /// The rows read, in key order.
    let rows: [[DatabaseValue]]
    /// Whether every row was read: no read failed.
    let isComplete: Bool

    /// Nothing read of a table that could not be found or had none of the columns.
    static let unreadable = TableSalvage(columns: [], rows: [], isComplete: false)

    /// How many probes one table gets: each is two seeks, so even a damaged page high in a
    /// large tree, which no probe gets past, costs well under a second.
    static let probeBudget = 512

    /// Reads the columns among `wanted` that `table` has, from `db` (the damaged database,
    /// outside any transaction: a failed read may end one).
    static func read(_ table: String, columns wanted: [String], from db: Database) -> TableSalvage {
        guard let shape = try? TableShape(table, db) else { return .unreadable }
        let columns = wanted.filter(shape.columns.contains)
        guard !columns.isEmpty else { return .unreadable }
        var reader = Reader(table: table, key: shape.key, columns: columns, db: db)
        let isComplete = reader.readAll()
        let rows = reader.rows.sorted { $0.key < $1.key }.map(\.value)
        return TableSalvage(columns: columns, rows: rows, isComplete: isComplete)
    }
}

/// A table's columns and the key its b-tree is ordered by, read from the schema (which
/// SQLite holds in memory once the database is open).
private struct TableShape {
    var columns: Set<String>
    /// `rowid`, or the single-column primary key of a table without rowid.
    var key: String

    init(_ table: String, _ db: Database) throws {
        let info = try Row.fetchAll(db, sql: "SELECT name, pk FROM pragma_table_info(?)", arguments: [table])
        guard !info.isEmpty else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no table \(table)") }
        columns = Set(info.map { $0["name"] })
        if (try? db.makeStatement(sql: "SELECT rowid FROM \(table.quotedDatabaseIdentifier)")) != nil {
            key = "rowid"
        } else {
            let primaryKey = info.filter { ($0["pk"] as Int) > 0 }
            guard primaryKey.count == 1 else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no single key") }
            key = primaryKey[0]["name"]
        }
    }
}

/// A key of a table's b-tree, ordered as SQLite orders it: integers, then text byte by byte.
private enum SalvageKey: Comparable, Hashable {
    case integer(Int64)
    case text([UInt8])

    init?(_ value: DatabaseValue) {
        switch value.storage {
        case .int64(let number): self = .integer(number)
        case .string(let text): self = .text(Array(text.utf8))
        default: return nil
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let number): number.databaseValue
        case .text(let bytes): String(decoding: bytes, as: UTF8.self).databaseValue
        }
    }

    static func < (lhs: SalvageKey, rhs: SalvageKey) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(left), .integer(right)): left < right
        case (.integer, .text): true
        case (.text, .integer): false
        case let (.text(left), .text(right)): left.lexicographicallyPrecedes(right)
        }
    }

    /// A key halfway between two keys of `sample`'s kind (nil: no bound), strictly between
    /// them; nil if there is none to probe: integers next to each other, or text that is not
    /// a UUID as IdeaBox writes one (lower-case), the only text keys it has.
    static func between(_ lower: SalvageKey?, _ upper: SalvageKey?, like sample: SalvageKey) -> SalvageKey? {
        switch sample {
        case .integer:
            var low = Int64.min, high = Int64.max
            if let lower { guard case .integer(let value) = lower else { return nil }; low = value }
            if let upper { guard case .integer(let value) = upper else { return nil }; high = value }
            let width = UInt64(bitPattern: high &- low)
            guard high > low, width > 1 else { return nil }
            return .integer(low &+ Int64(bitPattern: width / 2))
        case .text:
            var low = UInt128.min, high = UInt128.max
            if let lower { guard let value = uuidNumber(lower) else { return nil }; low = value }
            if let upper { guard let value = uuidNumber(upper) else { return nil }; high = value }
            guard high > low, high - low > 1 else { return nil }
            return .text(uuidText(low + (high - low) / 2))
        }
    }

    /// A lower-case UUID's 128 bits; nil for any other key.
    private static func uuidNumber(_ key: SalvageKey) -> UInt128? {
        guard case .text(let bytes) = key, bytes.count == 36 else { return nil }
        var number: UInt128 = 0
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            number = number << 4 | UInt128(digit)
        }
        return number
    }

    /// The lower-case UUID text of 128 bits.
    private static func uuidText(_ number: UInt128) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for nibble in (0..<32).reversed() {
            text.append(digits[Int((number >> (nibble * 4)) & 0xF)])
            if [24, 20, 16, 12].contains(nibble) { text.append(UInt8(ascii: "-")) }
        }
        return text
    }
}

/// The walk of one table.
private struct Reader {
    let table: String
    let key: String
    let columns: [String]
    let db: Database
    /// Every row read, by key.
    var rows: [SalvageKey: [DatabaseValue]] = [:]

    /// Where one scan got: whether a read failed, and the last key it read, if any.
    struct Scan {
        var failed: Bool
        var last: SalvageKey?
    }

    /// Reads every row it can reach; returns whether nothing failed.
    mutating func readAll() -> Bool {
        let up = scan(above: nil, below: nil, descending: false)
        guard up.failed else { return true }
        let down = scan(above: up.last, below: nil, descending: true)
        guard down.failed else { return false }
        let sample: SalvageKey = key == "rowid" ? .integer(0) : .text([])
        var gaps = [(lower: up.last, upper: down.last)]
        var probes = 0
        while !gaps.isEmpty, probes < TableSalvage.probeBudget {
            let gap = gaps.removeFirst()
            guard let middle = SalvageKey.between(gap.lower, gap.upper, like: sample) else { continue }
            probes += 1
            let above = scan(from: middle, below: gap.upper)
            let beneath = scan(above: gap.lower, below: middle, descending: true)
            if beneath.failed { gaps.append((gap.lower, beneath.last ?? middle)) }
            if above.failed { gaps.append((above.last ?? middle, gap.upper)) }
        }
        return false
    }

    /// Reads rows with keys between `lower` and `upper` (both left out; nil: no bound), up or
    /// down, until there are no more or a read fails.
    mutating func scan(above lower: SalvageKey?, below upper: SalvageKey?, descending: Bool) -> Scan {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let lower {
            conditions.append("\(key.quotedDatabaseIdentifier) > ?")
            arguments.append(lower.databaseValue)
        }
        if let upper {
            conditions.append("\(key.quotedDatabaseIdentifier) < ?")
            arguments.append(upper.databaseValue)
        }
        return scan(conditions, arguments, descending: descending)
    }

    /// Reads rows from `start` (included) up to `upper` (left out).
    mutating func scan(from start: SalvageKey, below upper: SalvageKey?) -> Scan {
        var conditions = ["\(key.quotedDatabaseIdentifier) >= ?"]
        var arguments = [start.databaseValue]
        if let upper {
            conditions.append("\(key.quotedDatabaseIdentifier) < ?")
            arguments.append(upper.databaseValue)
        }
        return scan(conditions, arguments, descending: false)
    }

    private mutating func scan(_ conditions: [String], _ arguments: [DatabaseValue], descending: Bool) -> Scan {
        let keyColumn = key.quotedDatabaseIdentifier
        let selected = ([keyColumn] + columns.map(\.quotedDatabaseIdentifier)).joined(separator: ", ")
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        // NOT INDEXED: the table's own b-tree, where the rows are, whatever its indexes hold.
        let sql = """
            SELECT \(selected) FROM \(table.quotedDatabaseIdentifier) NOT INDEXED \(filter) \
            ORDER BY \(keyColumn) \(descending ? "DESC" : "ASC")
            """
        var result = Scan(failed: false, last: nil)
        do {
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try cursor.next() {
                let values = Array(row.databaseValues)
                guard let key = SalvageKey(values[0]) else { continue }
                rows[key] = Array(values.dropFirst())
                result.last = key
            }
        } catch {
            result.failed = true
        }
        return result
    }
}
