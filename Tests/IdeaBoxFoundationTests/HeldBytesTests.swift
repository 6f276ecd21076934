import IdeaBoxFoundation
import Testing

/// Output held whole in mapped pieces: every byte comes back once, in order, whatever the
/// sizes of the writes.
@Suite struct HeldBytesTests {
    private func contents(_ held: borrowing HeldBytes) -> [UInt8] {
        var all: [UInt8] = []
        held.forEachPiece { all.append(contentsOf: $0) }
        return all
    }

    @Test func nothingWrittenHoldsNothing() {
        let held = HeldBytes()
        #expect(held.count == 0)
        #expect(contents(held).isEmpty)
    }

    @Test func writesThatFillSeveralPiecesComeBackInOrder() {
        var held = HeldBytes()
        var expected: [UInt8] = []
        var generator = SeededRandomNumberGenerator(seed: 3)
        for index in 0..<400 {
            let row = [UInt8](repeating: UInt8(index % 256), count: Int.random(in: 0...60_000, using: &generator))
            // Room asked for beyond what is written, as `export` does with its estimate.
            held.write(maximumCount: row.count + 5_000) { output in row.withUnsafeBufferPointer { output.put($0) } }
            expected += row
        }
        #expect(expected.count > 8 << 20)
        #expect(held.count == expected.count)
        #expect(contents(held) == expected)
    }

    @Test func aWriteLargerThanAPieceGetsAPieceOfItsOwn() {
        var held = HeldBytes()
        let small: [UInt8] = [1, 2, 3], last: [UInt8] = [9]
        let large = [UInt8](repeating: 7, count: (8 << 20) + 12_345)
        small.withUnsafeBytes { held.append($0) }
        large.withUnsafeBytes { held.append($0) }
        last.withUnsafeBytes { held.append($0) }
        #expect(contents(held) == [1, 2, 3] + large + [9])
    }
}
