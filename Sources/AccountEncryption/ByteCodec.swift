import Foundation

/// Appends big-endian integers and length-prefixed bytes: the writing half of the envelope's
/// and the sealed payload's encodings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    mutating func put(_ byte: UInt8) {
        bytes.append(byte)
    }

    mutating func put<Integer: FixedWidthInteger>(bigEndian value: Integer) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func put(_ data: some Sequence<UInt8>) {
        bytes.append(contentsOf: data)
    }

    /// `data` after its length as a `UInt16`; the caller has checked that it fits.
    mutating func put(short data: some Collection<UInt8>) {
        precondition(data.count <= Int(UInt16.max), "ByteWriter: \(data.count) bytes do not fit a 16-bit length")
        put(bigEndian: UInt16(data.count))
        put(data)
    }

    /// `data` after its length as a `UInt32`.
    mutating func put(long data: some Collection<UInt8>) {
        precondition(data.count <= Int(UInt32.max), "ByteWriter: \(data.count) bytes do not fit a 32-bit length")
        put(bigEndian: UInt32(data.count))
        put(data)
    }
}

/// Reads what `ByteWriter` wrote, refusing rather than trusting: every read is checked
/// against the bytes left, every length against a bound the caller gives, and `finish`
/// refuses trailing bytes. Input comes from the server, so it may be anything.
struct ByteReader {
    /// Why the bytes can't be read; `reason` is a short English phrase.
    struct Malformed: Error, Equatable {
        var reason: String
    }

    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
    }

    var remaining: Int { bytes.count - offset }

    mutating func byte(_ what: String) throws(Malformed) -> UInt8 {
        try take(1, what).first!
    }

    mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, _ what: String) throws(Malformed) -> Integer {
        let raw = try take(MemoryLayout<Integer>.size, what)
        return raw.reduce(Integer.zero) { ($0 << 8) | Integer(truncatingIfNeeded: $1) }
    }

    /// Exactly `count` bytes.
    mutating func take(_ count: Int, _ what: String) throws(Malformed) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw Malformed(reason: "\(what) is cut short") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    /// Bytes after a 16-bit length of at most `maximum`.
    mutating func short(_ what: String, maximum: Int) throws(Malformed) -> ArraySlice<UInt8> {
        let count = Int(try integer(UInt16.self, what))
        guard count <= maximum else { throw Malformed(reason: "\(what) is longer than \(maximum) bytes") }
        return try take(count, what)
    }

    /// Bytes after a 32-bit length of at most `maximum`.
    mutating func long(_ what: String, maximum: Int) throws(Malformed) -> ArraySlice<UInt8> {
        let count = Int(try integer(UInt32.self, what))
        guard count <= maximum else { throw Malformed(reason: "\(what) is longer than \(maximum) bytes") }
        return try take(count, what)
    }

    /// UTF-8 text after a 16-bit length of at most `maximum` bytes.
    mutating func text(_ what: String, maximum: Int) throws(Malformed) -> String {
        let raw = try short(what, maximum: maximum)
        guard let text = String(validating: raw, as: UTF8.self) else { throw Malformed(reason: "\(what) is not UTF-8") }
        return text
    }

    /// Refuses bytes left over after the last field.
    func finish(_ what: String) throws(Malformed) {
        guard remaining == 0 else { throw Malformed(reason: "\(remaining) bytes follow the end of \(what)") }
    }
}
