import Glibc

/// Output held whole in memory before a byte of it goes out (`export`: a read that fails half
/// way writes nothing), in pieces of memory mapped for it and asked of the kernel as huge
/// pages (`MADV_HUGEPAGE`).
///
/// Held in ordinary 4 KiB pages, the 7.5 MB of an export of 10,000 ideas took 1,850 page
/// faults to fill and as many pages to free, a fifth of the command's time; in 2 MiB pages
/// it takes four. Where the kernel gives no huge pages (transparent huge pages off), the
/// pieces are ordinary memory and work as before.
public struct HeldBytes: ~Copyable {
    /// The pieces filled so far, in order: where each starts, how many bytes it holds, and the
    /// mapping to give back.
    private var pieces: [(bytes: UnsafeMutablePointer<UInt8>, count: Int, mapping: UnsafeMutableRawBufferPointer)] = []
    /// The piece being filled.
    private var current: UnsafeMutablePointer<UInt8>?
    private var used = 0
    private var capacity = 0
    private var mapping = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// The room of each piece, a whole number of huge pages.
    static let pieceSize = 8 << 20
    /// The size of a huge page on x86-64 and of the alignment the kernel needs to use one.
    static let hugePageSize = 2 << 20

    /// An empty holder; nothing is mapped until the first write.
    public init() {}

    /// How many bytes it holds.
    public var count: Int {
        pieces.reduce(used) { $0 + $1.count }
    }

    /// Lets `write` put at most `maximumCount` bytes after those held (`ByteOutput` stops
    /// the program rather than write past them).
    public mutating func write(maximumCount: Int, _ write: (inout ByteOutput) -> Void) {
        if current == nil || capacity - used < maximumCount {
            startPiece(holding: maximumCount)
        }
        var output = ByteOutput(UnsafeMutableBufferPointer(start: current! + used, count: capacity - used))
        write(&output)
        used += output.count
    }

    /// Appends `bytes`.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        write(maximumCount: bytes.count) { $0.put(bytes.assumingMemoryBound(to: UInt8.self)) }
    }

    /// Calls `body` with each piece's bytes, in order; together they are everything held.
    public func forEachPiece(_ body: (UnsafeRawBufferPointer) -> Void) {
        for piece in pieces {
            body(UnsafeRawBufferPointer(start: piece.bytes, count: piece.count))
        }
        if let current {
            body(UnsafeRawBufferPointer(start: current, count: used))
        }
    }

    /// Maps a new piece, room for `count` bytes at least, its start on a huge page's boundary.
    private mutating func startPiece(holding count: Int) {
        if let current {
            pieces.append((current, used, mapping))
        }
        let room = Swift.max(Self.pieceSize, (count + Self.hugePageSize - 1) / Self.hugePageSize * Self.hugePageSize)
        // One huge page more than the room, so an aligned start leaves the room whole.
        let length = room + Self.hugePageSize
        let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        // MAP_FAILED, (void *)-1, is a macro Swift does not import.
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else {
            fatalError("HeldBytes: no memory for \(length) bytes")
        }
        let aligned = UnsafeMutableRawPointer(
            bitPattern: (UInt(bitPattern: address) + UInt(Self.hugePageSize) - 1) & ~UInt(Self.hugePageSize - 1))!
        // Advice only: without transparent huge pages the piece is ordinary memory.
        _ = madvise(aligned, room, MADV_HUGEPAGE)
        mapping = UnsafeMutableRawBufferPointer(start: address, count: length)
        current = aligned.assumingMemoryBound(to: UInt8.self)
        capacity = room
        used = 0
    }

    deinit {
        for piece in pieces {
            munmap(piece.mapping.baseAddress, piece.mapping.count)
        }
        if current != nil {
            munmap(mapping.baseAddress, mapping.count)
        }
    }
}
