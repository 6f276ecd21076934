import IdeaBoxFoundation
import Testing

/// `ByteOutput`: every write checks its room first.
@Suite struct ByteOutputTests {
    @Test("Writes that fit land in order, and the count says how many")
    func writesThatFitLand() {
        var room = [UInt8](repeating: 0, count: 40)
        let count = room.withUnsafeMutableBufferPointer { room in
            var output = ByteOutput(room)
            output.put(UInt8(ascii: "["))
            output.put("ab")
            output.put(eightBytes: UInt64(0x3837_3635_3433_3231))  // "12345678" in memory order on little-endian
            output.putDecimal(-9_223_372_036_854_775_807)
            output.put(UInt8(ascii: "]"))
            return output.count
        }
        #expect(String(decoding: room[..<count], as: UTF8.self) == "[ab12345678-9223372036854775807]")
    }

    @Test("A write past the room stops the program instead of writing there")
    func aWritePastTheRoomStops() async {
        await #expect(processExitsWith: .failure) {
            var room = [UInt8](repeating: 0, count: 4)
            room.withUnsafeMutableBufferPointer { room in
                var output = ByteOutput(room)
                output.put("abcd")
                output.put(UInt8(ascii: "e"))
            }
        }
    }

    @Test("A writer that says it wrote more than it may stops the program")
    func anOverlongWriterStops() async {
        await #expect(processExitsWith: .failure) {
            var room = [UInt8](repeating: 0, count: 8)
            room.withUnsafeMutableBufferPointer { room in
                var output = ByteOutput(room)
                output.put(maximumCount: 4) { _ in 5 }
            }
        }
    }
}
