import AccountEncryption
import Testing

@Suite("RandomBytes")
struct RandomBytesTests {
    @Test("The system source gives the count asked for, and different bytes each time", arguments: [0, 1, 7, 8, 12, 33])
    func system(count: Int) {
        #expect(RandomBytes.system.bytes(count).count == count)
        if count >= 8 { #expect(RandomBytes.system.bytes(count) != RandomBytes.system.bytes(count)) }
    }
}
