import Foundation
import GRDB

/// Damage done on purpose to an SQLite database file, for the tests of what IdeaBox does
/// with a damaged database: where a table's rows are (SQLite's `dbstat`), and pages
/// overwritten. Every call opens the file and closes it again, the WAL copied into the
/// database first, so the pages it names are the file's own; nothing else may have it open.
public enum DatabaseDamage {
    /// The byte every overwritten page is filled with: no b-tree page starts with it.
    public static let pattern: UInt8 = 0xA5

    /// The leaf pages of the b-tree `name` (a table, an index, or a search index's shadow
    /// table such as `ideaTrigram_data`), in key order.
    public static func leafPages(of name: String, in file: URL) throws -> [Int] {
        try withDatabase(file) { db in
            try Int.fetchAll(
                db, sql: "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path", arguments: [name])
        }
    }

    /// The interior pages of the b-tree `name`, its root first.
    public static func interiorPages(of name: String, in file: URL) throws -> [Int] {
        try withDatabase(file) { db in
            try Int.fetchAll(
                db, sql: "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'internal' ORDER BY path", arguments: [name])
        }
    }

    /// The values of `column` in the rows on `page`, a leaf page of the rowid table `table`.
    public static func values(of column: String, in table: String, onLeafPage page: Int, of file: URL) throws -> [String] {
        let size = try pageSize(of: file)
        let bytes = try read(page: page, size: size, of: file)
        let rowids = try rowids(onTableLeaf: bytes, header: page == 1 ? 100 : 0)
        return try withDatabase(file) { db in
            try rowids.map { rowid in
                guard let value = try String.fetchOne(
                    db, sql: "SELECT \(column) FROM \(table) WHERE rowid = ?", arguments: [rowid])
                else { throw DamageError("no row \(rowid) in \(table)") }
                return value
            }
        }
    }

    /// How many rows (cells) a leaf page holds.
    public static func cellCount(onLeafPage page: Int, of file: URL) throws -> Int {
        let bytes = try read(page: page, size: try pageSize(of: file), of: file)
        let header = page == 1 ? 100 : 0
        guard [10, 13].contains(bytes[header]) else { throw DamageError("page \(page) is not a leaf page") }
        return Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
    }

    /// Overwrites each of `pages` with `pattern`.
    public static func overwrite(pages: [Int], of file: URL) throws {
        let size = try pageSize(of: file)
        for page in pages {
            try overwrite(bytes: size, at: (page - 1) * size, of: file)
        }
    }

    /// Overwrites `count` bytes from `offset` with `pattern`.
    public static func overwrite(bytes count: Int, at offset: Int, of file: URL) throws {
        try checkpoint(file)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(repeating: pattern, count: count))
        try handle.synchronize()
    }

    /// Whether the page holds `pattern` only.
    public static func isOverwritten(page: Int, of file: URL) throws -> Bool {
        let size = try pageSize(of: file)
        return try read(page: page, size: size, of: file).allSatisfy { $0 == pattern }
    }

    /// What `PRAGMA integrity_check` says of the file: `["ok"]` if it is whole.
    public static func integrityCheck(_ file: URL) throws -> [String] {
        try withDatabase(file) { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// The database's page size.
    public static func pageSize(of file: URL) throws -> Int {
        try withDatabase(file) { db in try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096 }
    }

    /// Copies the WAL into the database and removes it.
    public static func checkpoint(_ file: URL) throws {
        guard FileManager.default.fileExists(atPath: file.path + "-wal") else { return }
        try withDatabase(file) { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    private static func withDatabase<T>(_ file: URL, _ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: file.path)
        defer { try? queue.close() }
        return try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            return try body(db)
        }
    }

    private static func read(page: Int, size: Int, of file: URL) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64((page - 1) * size))
        return Array(try handle.read(upToCount: size) ?? Data())
    }

    /// The rowids of the cells of a table b-tree leaf page (type 13), from its cell pointers.
    private static func rowids(onTableLeaf page: [UInt8], header: Int) throws -> [Int64] {
        guard page.count > header + 8, page[header] == 13 else { throw DamageError("not a table leaf page") }
        let cells = Int(page[header + 3]) << 8 | Int(page[header + 4])
        return (0..<cells).map { cell in
            let pointer = header + 8 + 2 * cell
            var offset = Int(page[pointer]) << 8 | Int(page[pointer + 1])
            _ = varint(page, &offset)
            return varint(page, &offset)
        }
    }

    /// SQLite's variable-length integer at `offset`, which moves past it.
    private static func varint(_ bytes: [UInt8], _ offset: inout Int) -> Int64 {
        var value: UInt64 = 0
        for index in 0..<9 {
            let byte = bytes[offset]
            offset += 1
            if index == 8 {
                return Int64(bitPattern: value << 8 | UInt64(byte))
            }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return Int64(bitPattern: value)
    }
}

/// A file that is not what a damage was to be done to.
struct DamageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
