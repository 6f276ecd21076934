import IdeaBoxCommandLine
import IdeaBoxFoundation
import Testing

/// Standard output's buffer: a writer that holds everything gives back every byte, in order.
@Suite struct BufferedWriterTests {
    @Test func aWriterThatHoldsEverythingKeepsEveryByteInOrderAcrossPieces() {
        var writer = Output.BufferedWriter(holdsEverything: true)
        var expected: [UInt8] = []
        for index in 0..<700 {
            let row = [UInt8](repeating: UInt8(index % 251), count: 15_000 + index)
            writer.write(maximumCount: row.count) { output in row.withUnsafeBufferPointer { output.put($0) } }
            writer.write("\(index),")
            expected += row + Array("\(index),".utf8)
        }
        // More than one piece of held memory (8 MiB).
        #expect(expected.count > 9 << 20)
        #expect(writer.buffered == expected)
    }

    @Test func aWriterThatWritesAsItGoesKeepsWhatIsNotYetWrittenOut() {
        var writer = Output.BufferedWriter()
        writer.write("[")
        writer.write(maximumCount: 10) { $0.put("ab") }
        #expect(writer.buffered == Array("[ab".utf8))
        writer.flush()
        #expect(writer.buffered.isEmpty)
    }
}
