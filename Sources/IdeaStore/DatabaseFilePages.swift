import Foundation

/// The pages of an SQLite database file, read from its bytes by the documented file format
/// (https://www.sqlite.org/fileformat2.html), not by SQLite: a repair reads every page this
/// way, so that the rows on a whole page are found even when a damaged page above them hides
/// them from SQLite's walk of the b-tree.
///
/// The bytes are hostile: every offset is checked, and a page that can't be read is nil. The
/// WAL's committed frames stand in for the pages they replace, as they do for SQLite. Pages on
/// the freelist are left out: they hold rows that were deleted.
struct DatabaseFilePages {
    /// The size of each page, in bytes.
    let pageSize: Int
    /// The bytes of each page that hold data: the page size less the bytes reserved at its end.
    let usableSize: Int
    /// How many pages the database has.
    let pageCount: Int
    /// The text encoding of the database's text: 1 UTF-8, 2 UTF-16le, 3 UTF-16be.
    let textEncoding: Int
    /// The pages on the freelist, as far as it could be read.
    private(set) var freePages: Set<Int> = []
    private let file: [UInt8]
    /// The latest committed copy of a page in the WAL, by page number: the range of `wal` it is.
    private let walPages: [Int: Range<Int>]
    private let wal: [UInt8]

    /// The start of every SQLite database file.
    static let magic = Array("SQLite format 3\u{0}".utf8)
    /// The page size assumed when neither the file's header nor the WAL's gives one: SQLite's default.
    static let defaultPageSize = 4096

    /// Reads the database `file` and, if it has one, its WAL, as they are on disk.
    init(contentsOf file: URL) {
        let bytes = FileManager.default.contents(atPath: file.path).map { [UInt8]($0) } ?? []
        let wal = FileManager.default.contents(atPath: file.path + "-wal").map { [UInt8]($0) } ?? []
        self.init(file: bytes, wal: wal)
    }

    /// The database whose file holds `file` and whose WAL holds `wal` (empty: none).
    init(file: [UInt8], wal: [UInt8]) {
        self.file = file
        self.wal = wal
        let header = file.count >= 100 && Array(file[0..<16]) == Self.magic ? Array(file[0..<100]) : nil
        let headerPageSize = header.flatMap { Self.pageSize(Int(FileBytes.bigEndian($0, at: 16, count: 2) ?? 0)) }
        let log = WriteAheadLog(wal, pageSize: headerPageSize)
        pageSize = headerPageSize ?? log?.pageSize ?? Self.defaultPageSize
        let reserved = header.map { Int($0[20]) } ?? 0
        usableSize = pageSize - reserved >= 480 ? pageSize - reserved : pageSize
        walPages = log?.pages ?? [:]
        pageCount = log?.databaseSize ?? (file.count + pageSize - 1) / pageSize
        textEncoding = (header.flatMap { FileBytes.bigEndian($0, at: 56, count: 4) }).map(Int.init) ?? 1
        if let header, let firstTrunk = FileBytes.bigEndian(header, at: 32, count: 4) {
            freePages = readFreelist(from: Int(firstTrunk))
        }
    }

    /// The page numbered `number` (from 1), whole, or nil if the file and the WAL don't hold
    /// all of it.
    func page(_ number: Int) -> ArraySlice<UInt8>? {
        guard number >= 1, number <= pageCount else { return nil }
        if let range = walPages[number] { return wal[range] }
        let start = (number - 1) * pageSize
        guard start + pageSize <= file.count else { return nil }
        return file[start..<start + pageSize]
    }

    /// A valid page size read from the header's field (1 meaning 65536), or nil.
    static func pageSize(_ field: Int) -> Int? {
        let size = field == 1 ? 65536 : field
        return (512...65536).contains(size) && size & (size - 1) == 0 ? size : nil
    }

    /// Every page the freelist names, its trunk pages included, from the first trunk page:
    /// as far as the chain reads (a damaged trunk page ends it).
    private func readFreelist(from firstTrunk: Int) -> Set<Int> {
        var free: Set<Int> = []
        var trunk = firstTrunk
        while trunk > 1, !free.contains(trunk), let page = page(trunk) {
            free.insert(trunk)
            guard let next = FileBytes.bigEndian(page, at: 0, count: 4).map(Int.init),
                  let count = FileBytes.bigEndian(page, at: 4, count: 4).map(Int.init), count <= (usableSize - 8) / 4
            else { break }
            for index in 0..<count {
                if let leaf = FileBytes.bigEndian(page, at: 8 + 4 * index, count: 4).map(Int.init), leaf >= 1, leaf <= pageCount {
                    free.insert(leaf)
                }
            }
            trunk = next
        }
        return free
    }
}

/// The committed frames of a WAL file (https://www.sqlite.org/fileformat2.html#walformat):
/// each frame whose salts match the header's and whose running checksum holds, up to the last
/// frame that ends a transaction; anything after it was never committed.
private struct WriteAheadLog {
    /// The page size the WAL was written with.
    let pageSize: Int
    /// The latest committed copy of each page, by page number: its range in the WAL's bytes.
    let pages: [Int: Range<Int>]
    /// The database's size in pages after the last commit.
    let databaseSize: Int

    /// Reads `bytes`; nil if it holds no committed frame, or was written with a page size
    /// other than `databasePageSize` (the database header's, if it could be read).
    init?(_ bytes: [UInt8], pageSize databasePageSize: Int?) {
        guard bytes.count >= 32, let magic = FileBytes.bigEndian(bytes, at: 0, count: 4), magic & ~1 == 0x377F_0682,
              let size = FileBytes.bigEndian(bytes, at: 8, count: 4).flatMap({ DatabaseFilePages.pageSize(Int($0)) }),
              databasePageSize == nil || databasePageSize == size
        else { return nil }
        let bigEndian = magic & 1 == 1
        var checksum = Self.checksum(bytes[0..<24], bigEndian: bigEndian, from: (0, 0))
        guard Self.matches(checksum, bytes, at: 24) else { return nil }
        var pending: [Int: Range<Int>] = [:], committed: [Int: Range<Int>] = [:]
        var committedSize: Int?
        var offset = 32
        while offset + 24 + size <= bytes.count {
            let frame = bytes[offset..<offset + 24]
            guard frame.dropFirst(8).prefix(8).elementsEqual(bytes[16..<24]) else { break }
            checksum = Self.checksum(frame.prefix(8), bigEndian: bigEndian, from: checksum)
            checksum = Self.checksum(bytes[offset + 24..<offset + 24 + size], bigEndian: bigEndian, from: checksum)
            guard Self.matches(checksum, bytes, at: offset + 16),
                  let page = FileBytes.bigEndian(bytes, at: offset, count: 4), page > 0,
                  let sizeAfterCommit = FileBytes.bigEndian(bytes, at: offset + 4, count: 4)
            else { break }
            pending[Int(page)] = offset + 24..<offset + 24 + size
            if sizeAfterCommit > 0 {
                committed.merge(pending) { _, new in new }
                pending = [:]
                committedSize = Int(sizeAfterCommit)
            }
            offset += 24 + size
        }
        guard let committedSize else { return nil }
        pageSize = size
        pages = committed.filter { $0.key <= committedSize }
        databaseSize = committedSize
    }

    /// Whether the two words at `offset` in `bytes` are `checksum`.
    static func matches(_ checksum: (UInt32, UInt32), _ bytes: [UInt8], at offset: Int) -> Bool {
        FileBytes.bigEndian(bytes, at: offset, count: 4) == UInt64(checksum.0)
            && FileBytes.bigEndian(bytes, at: offset + 4, count: 4) == UInt64(checksum.1)
    }

    /// The WAL's running checksum of `bytes` (a multiple of 8 long) from `start`: its 32-bit
    /// words in the byte order the magic number chose, summed as the format says.
    static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, from start: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (first, second) = start
        var index = bytes.startIndex
        func word() -> UInt32 {
            let value = bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
            index += 4
            return bigEndian ? value : value.byteSwapped
        }
        while index + 8 <= bytes.endIndex {
            first = first &+ word() &+ second
            second = second &+ word() &+ first
        }
        return (first, second)
    }
}

/// Numbers read from hostile bytes: nil where they would run past the end.
enum FileBytes {
    /// The big-endian unsigned number of `count` bytes (at most 8) at `offset` from the start of `bytes`.
    static func bigEndian<Source: Collection<UInt8>>(_ bytes: Source, at offset: Int, count: Int) -> UInt64? where Source.Index == Int {
        let start = bytes.startIndex + offset
        guard offset >= 0, count <= 8, start + count <= bytes.endIndex else { return nil }
        return bytes[start..<start + count].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// SQLite's variable-length integer at `offset` from the start of `bytes` and its length
    /// in bytes (1 to 9), or nil if it runs past the end.
    static func varint<Source: Collection<UInt8>>(_ bytes: Source, at offset: Int) -> (value: Int64, length: Int)? where Source.Index == Int {
        guard offset >= 0 else { return nil }
        var value: UInt64 = 0
        for length in 1...9 {
            let index = bytes.startIndex + offset + length - 1
            guard index < bytes.endIndex else { return nil }
            let byte = bytes[index]
            if length == 9 { return (Int64(bitPattern: value << 8 | UInt64(byte)), 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (Int64(bitPattern: value), length) }
        }
        return nil
    }
}
