import Foundation
import GRDB
import IdeaBoxFoundation
@testable import IdeaStore
import Testing

/// `DatabaseFilePages` and the cells of its table leaf pages: what a hand-made page and
/// SQLite's own files read as, and that no damage (a truncated file, a garbage header, cell
/// pointers off the page, an overflow chain that loops, any byte at all) does worse than
/// leave out what it touched.
@Suite struct DatabaseFilePagesTests {
    @Test func aHandMadeLeafPageReadsEveryValue() {
        let first = HandMade.cell(rowid: 1, HandMade.record([
            (0, []), (1, [42]), (1, [0xFF]), (13 + 2 * 6, Array("靈感".utf8)),
            (7, Array(withUnsafeBytes(of: (2.5).bitPattern.bigEndian, Array.init))), (12 + 2 * 3, [1, 2, 3]),
        ]))
        let second = HandMade.cell(rowid: 300, HandMade.record([(8, []), (9, [])]))
        let pages = DatabaseFilePages(file: HandMade.file([HandMade.leaf([first, second])]), wal: [])
        #expect(pages.pageSize == 512 && pages.pageCount == 2)
        #expect(pages.tableLeafCells(onPage: 2) == [
            TableLeafCell(rowid: 1, values: [
                .null, 42.databaseValue, (-1).databaseValue, "靈感".databaseValue, 2.5.databaseValue, Data([1, 2, 3]).databaseValue,
            ]),
            TableLeafCell(rowid: 300, values: [0.databaseValue, 1.databaseValue]),
        ])
        #expect(pages.tableLeafCells(onPage: 1) == [])
        #expect(pages.tableLeafCells(onPage: 3) == nil)
    }

    @Test func aTruncatedFileLosesOnlyThePageItCuts() {
        let leaf = HandMade.leaf([HandMade.cell(rowid: 5, HandMade.record([(1, [5])]))])
        let file = HandMade.file([leaf, leaf])
        let pages = DatabaseFilePages(file: Array(file.dropLast(100)), wal: [])
        #expect(pages.pageCount == 3)
        #expect(pages.tableLeafCells(onPage: 2) == [TableLeafCell(rowid: 5, values: [5.databaseValue])])
        #expect(pages.page(3) == nil && pages.tableLeafCells(onPage: 3) == nil)
        #expect(DatabaseFilePages(file: Array(file.prefix(30)), wal: []).tableLeafCells(onPage: 1) == nil)
    }

    @Test func aGarbagePageHeaderIsNoLeafPage() {
        var garbage = HandMade.leaf([HandMade.cell(rowid: 5, HandMade.record([(1, [5])]))])
        garbage[0] = 0xA5
        var tooManyCells = HandMade.leaf([])
        tooManyCells[3] = 0xFF
        tooManyCells[4] = 0xFF
        let pages = DatabaseFilePages(file: HandMade.file([garbage, tooManyCells, Array(repeating: 0xA5, count: 512)]), wal: [])
        #expect((2...4).allSatisfy { pages.tableLeafCells(onPage: $0) == nil })
        // A file whose header is garbage is read with SQLite's default page size.
        var noHeader = HandMade.file([])
        noHeader.replaceSubrange(0..<100, with: repeatElement(0xA5, count: 100))
        #expect(DatabaseFilePages(file: noHeader, wal: []).pageSize == 4096)
    }

    @Test func cellPointersOffThePageAreCellsThatCantBeRead() {
        let cell = HandMade.cell(rowid: 9, HandMade.record([(1, [9])]))
        var page = HandMade.leaf([cell, cell, cell, cell])
        // Past the page, into the pointer array itself, and a cell whose header runs off the page.
        for (index, pointer) in [(0, 0xFFFF), (1, 9), (2, 511)] {
            page[8 + 2 * index] = UInt8(pointer >> 8)
            page[9 + 2 * index] = UInt8(pointer & 0xFF)
        }
        page[511] = 0x80
        let cells = DatabaseFilePages(file: HandMade.file([page]), wal: []).tableLeafCells(onPage: 2)
        #expect(cells == [
            TableLeafCell(rowid: nil, values: nil), TableLeafCell(rowid: nil, values: nil), TableLeafCell(rowid: nil, values: nil),
            TableLeafCell(rowid: 9, values: [9.databaseValue]),
        ])
    }

    /// A row longer than a page goes on over overflow pages (pages 3 and on, in a file with
    /// one table and one row): read whole, and not at all once its chain loops, ends early or
    /// leaves the file.
    @Test func anOverflowChainThatLoopsIsACellThatCantBeRead() throws {
        let text = String(repeating: "A long idea that goes on. ", count: 80)
        let file = try SQLiteFile.bytes { db in
            try db.execute(sql: "CREATE TABLE t (x TEXT)")
            try db.execute(sql: "INSERT INTO t (rowid, x) VALUES (4, ?)", arguments: [text])
        }
        #expect(DatabaseFilePages(file: file, wal: []).tableLeafCells(onPage: 2) == [TableLeafCell(rowid: 4, values: [text.databaseValue])])
        for next in [3, 0, 9_999] {
            var damaged = file
            damaged.replaceSubrange(2 * 512..<2 * 512 + 4, with: [0, 0, UInt8(next >> 8), UInt8(next & 0xFF)])
            #expect(DatabaseFilePages(file: damaged, wal: []).tableLeafCells(onPage: 2) == [TableLeafCell(rowid: 4, values: nil)])
        }
    }

    /// Deleted rows stay on pages SQLite put on its freelist (here without its secure delete,
    /// which would have zeroed them): those pages are left out.
    @Test func pagesOnTheFreelistAreLeftOut() throws {
        let file = try SQLiteFile.bytes { db in
            try db.execute(sql: "PRAGMA secure_delete = OFF")
            try db.execute(sql: "CREATE TABLE t (x TEXT)")
            for number in 0..<200 {
                try db.execute(sql: "INSERT INTO t (x) VALUES (?)", arguments: ["row \(number) " + String(repeating: "x", count: 40)])
            }
            try db.execute(sql: "DELETE FROM t WHERE rowid > 10")
        }
        let pages = DatabaseFilePages(file: file, wal: [])
        #expect(!pages.freePages.isEmpty)
        let rowids = (1...pages.pageCount).flatMap { pages.tableLeafCells(onPage: $0) ?? [] }.compactMap(\.rowid)
        // The schema's row of the table, then the rows left.
        #expect(rowids.sorted() == [1] + Array(1...10))
    }

    /// A database in WAL mode: the committed frames stand in for the file's pages; frames
    /// whose checksum fails, and all after them, are not read.
    @Test func theCommittedFramesOfTheWALStandInForThePages() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("wal.sqlite").path
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA page_size = 512; PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
                try db.execute(sql: "CREATE TABLE t (x TEXT)")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                try db.execute(sql: "INSERT INTO t (x) VALUES ('only in the WAL')")
            }
            let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let wal = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
            // The rows of the table (its page 2; page 1 holds the schema).
            func texts(_ wal: [UInt8]) -> [String] {
                (DatabaseFilePages(file: file, wal: wal).tableLeafCells(onPage: 2) ?? [])
                    .compactMap { $0.values?.first.flatMap(String.fromDatabaseValue) }
            }
            #expect(texts(wal) == ["only in the WAL"])
            #expect(texts([]) == [])
            var damaged = wal
            damaged[damaged.count - 1] ^= 0xFF
            #expect(texts(damaged) == [])
            #expect(texts(Array(wal.dropLast(1))) == [])
        }
    }

    /// Any byte anywhere, and any length: the reader reads what it can and never traps.
    @Test func noByteOfAFileCrashesTheReader() throws {
        let file = try SQLiteFile.bytes { db in
            try db.execute(sql: "CREATE TABLE t (x TEXT, y BLOB, z)")
            for number in 0..<40 {
                try db.execute(
                    sql: "INSERT INTO t VALUES (?, ?, ?)",
                    arguments: [String(repeating: "text \(number) ", count: number * 8), Data(repeating: UInt8(number), count: number * 30), number])
            }
        }
        var random = SeededRandomNumberGenerator(seed: 3)
        var cellsRead = 0
        for _ in 0..<400 {
            var damaged = file
            for _ in 0..<Int.random(in: 1...24, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if Bool.random(using: &random) { damaged.removeLast(Int.random(in: 0..<damaged.count, using: &random)) }
            let pages = DatabaseFilePages(file: damaged, wal: [])
            for number in 0...pages.pageCount + 1 {
                cellsRead += pages.tableLeafCells(onPage: number)?.count ?? 0
            }
        }
        #expect(cellsRead > 0)
    }
}

/// A database file made by SQLite itself, with pages of 512 bytes, as bytes.
private enum SQLiteFile {
    static func bytes(_ fill: (Database) throws -> Void) throws -> [UInt8] {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("made.sqlite").path
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA page_size = 512")
                try fill(db)
            }
            try queue.close()
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }
}

/// Database files made by hand, byte by byte, as the file format describes them.
private enum HandMade {
    static let pageSize = 512

    /// A file whose first page holds the header and an empty schema, followed by `pages`.
    static func file(_ pages: [[UInt8]]) -> [UInt8] {
        var header = Array("SQLite format 3\u{0}".utf8)
        header += [UInt8(pageSize >> 8), UInt8(pageSize & 0xFF), 1, 1, 0, 64, 32, 32]
        header += [0, 0, 0, 1] + bigEndian(pages.count + 1) + [0, 0, 0, 0, 0, 0, 0, 0]
        header += Array(repeating: 0, count: 56 - header.count) + [0, 0, 0, 1]
        header += Array(repeating: 0, count: 92 - header.count) + [0, 0, 0, 1] + [0, 0, 0, 0]
        let first = header + Array(leaf([]).prefix(pageSize - 100))
        return first + pages.flatMap { $0 }
    }

    /// A table b-tree leaf page holding `cells`, the first at the end of the page.
    static func leaf(_ cells: [[UInt8]]) -> [UInt8] {
        var page = [UInt8](repeating: 0, count: pageSize)
        var end = pageSize
        var pointers: [UInt8] = []
        for cell in cells {
            end -= cell.count
            page.replaceSubrange(end..<end + cell.count, with: cell)
            pointers += [UInt8(end >> 8), UInt8(end & 0xFF)]
        }
        let header: [UInt8] = [0x0D, 0, 0, UInt8(cells.count >> 8), UInt8(cells.count & 0xFF), UInt8(end >> 8 & 0xFF), UInt8(end & 0xFF), 0]
        page.replaceSubrange(0..<header.count + pointers.count, with: header + pointers)
        return page
    }

    /// A table leaf cell: the payload's size, the rowid, the payload (small enough for one page).
    static func cell(rowid: Int, _ payload: [UInt8]) -> [UInt8] {
        varint(payload.count) + varint(rowid) + payload
    }

    /// A record of values, each a serial type and its bytes.
    static func record(_ values: [(type: Int, bytes: [UInt8])]) -> [UInt8] {
        let types = values.flatMap { varint($0.type) }
        return varint(types.count + 1) + types + values.flatMap(\.bytes)
    }

    /// A varint of a small number (below 2^28).
    static func varint(_ number: Int) -> [UInt8] {
        var groups = [UInt8(number & 0x7F)]
        var rest = number >> 7
        while rest > 0 {
            groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return groups
    }

    private static func bigEndian(_ number: Int) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(number >> $0 & 0xFF) }
    }
}
