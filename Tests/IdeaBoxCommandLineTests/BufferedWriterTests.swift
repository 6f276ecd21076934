import IdeaBoxCommandLine
import Testing

/// Standard output's buffer: a writer that holds everything gives back every byte, in order.
@Suite struct BufferedWriterTests {
    @Test func aWriterThatHoldsEverythingKeepsEveryByteInOrderAcrossPieces() {
        var writer = Output.BufferedWriter(holdsEverything: true)
        var expected: [UInt8] = []
        for index in 0..<220 {
            let row = [UInt8](repeating: UInt8(index % 251), count: 15_000 + index)
            writer.append { $0.append(contentsOf: row) }
            writer.write("\(index),")
            expected += row + Array("\(index),".utf8)
        }
        // More than three pieces of 1 MB.
        #expect(expected.count > 3 << 20)
        #expect(writer.buffered == expected)
    }
}
