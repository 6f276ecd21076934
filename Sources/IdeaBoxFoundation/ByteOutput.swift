/// Writes bytes one after another into memory reserved beforehand, checking before each
/// write that it fits: an estimate of the room that fell short stops the program with a
/// message instead of writing past the room.
public struct ByteOutput {
    // Inlinable, with the callers in other modules (the export writes ten fields an idea
    // through it): as calls, the checked writes took a tenth more of `export`'s time.
    @usableFromInline var next: UnsafeMutablePointer<UInt8>
    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    @usableFromInline let end: UnsafeMutablePointer<UInt8>

    /// Writes from the start of `room`.
    @inlinable public init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        start = room.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!
        next = start
        end = start + room.count
    }

    /// How many bytes were written.
    @inlinable public var count: Int { next - start }

    @inlinable func ensureRoom(_ count: Int) {
        precondition(end - next >= count, "ByteOutput: a write of \(count) bytes does not fit the room reserved")
    }

    @inlinable public mutating func put(_ byte: UInt8) {
        ensureRoom(1)
        next.initialize(to: byte)
        next += 1
    }

    /// Writes the eight bytes of `word` in memory order, as they were loaded.
    @inlinable public mutating func put(eightBytes word: UInt64) {
        ensureRoom(8)
        UnsafeMutableRawPointer(next).storeBytes(of: word, as: UInt64.self)
        next += 8
    }

    @inlinable @inline(__always) public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        ensureRoom(bytes.count)
        next.initialize(from: base, count: bytes.count)
        next += bytes.count
    }

    /// Writes `text`; always inlined, so that its length is known where it is written and a
    /// short text is a few moves, not a call to `memmove`.
    @inlinable @inline(__always) public mutating func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Lets `write` put at most `maximumCount` bytes at the next position; it returns how
    /// many it wrote.
    @inlinable public mutating func put(maximumCount: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        ensureRoom(maximumCount)
        let written = write(next)
        precondition((0...maximumCount).contains(written), "ByteOutput: wrote \(written) bytes, more than the \(maximumCount) allowed")
        next += written
    }

    /// Writes `value` in decimal, as `String(value)` spells it: at most 20 bytes.
    @inlinable public mutating func putDecimal(_ value: Int) {
        put(maximumCount: 20) { digitsStart in
            var at = digitsStart
            if value < 0 {
                at.initialize(to: UInt8(ascii: "-"))
                at += 1
            }
            var magnitude = value.magnitude, digits = 0
            repeat {
                digits += 1
                magnitude /= 10
            } while magnitude > 0
            magnitude = value.magnitude
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                at[offset] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            return at + digits - digitsStart
        }
    }
}
