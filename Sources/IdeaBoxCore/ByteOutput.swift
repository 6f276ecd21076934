/// Writes bytes one after another into memory reserved beforehand, checking before each
/// write that it fits: an estimate of the room that fell short stops the program with a
/// message instead of writing past the room.
package struct ByteOutput {
    private var next: UnsafeMutablePointer<UInt8>
    private let start: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>

    /// Writes from the start of `room`.
    package init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        start = room.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!
        next = start
        end = start + room.count
    }

    /// How many bytes were written.
    package var count: Int { next - start }

    private func ensureRoom(_ count: Int) {
        precondition(end - next >= count, "ByteOutput: a write of \(count) bytes does not fit the room reserved")
    }

    package mutating func put(_ byte: UInt8) {
        ensureRoom(1)
        next.initialize(to: byte)
        next += 1
    }

    /// Writes the eight bytes of `word` in memory order, as they were loaded.
    package mutating func put(eightBytes word: UInt64) {
        ensureRoom(8)
        UnsafeMutableRawPointer(next).storeBytes(of: word, as: UInt64.self)
        next += 8
    }

    package mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        ensureRoom(bytes.count)
        next.initialize(from: base, count: bytes.count)
        next += bytes.count
    }

    package mutating func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Lets `write` put at most `maximumCount` bytes at the next position; it returns how
    /// many it wrote.
    package mutating func put(maximumCount: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        ensureRoom(maximumCount)
        let written = write(next)
        precondition((0...maximumCount).contains(written), "ByteOutput: wrote \(written) bytes, more than the \(maximumCount) allowed")
        next += written
    }

    /// Writes `value` in decimal, as `String(value)` spells it: at most 20 bytes.
    package mutating func putDecimal(_ value: Int) {
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
