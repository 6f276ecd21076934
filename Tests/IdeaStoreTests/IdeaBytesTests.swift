import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// `IdeaBytes`: what `export` writes each row with. Its JSON is compared with `JSONEncoder`
/// in `IdeaJSONTests` (through `Idea.jsonText`); here, the checks it makes of a row's bytes.
@Suite struct IdeaBytesTests {
    static let id = Array("6f1c2b3a-4d5e-4f60-8172-839405a6b7c8".utf8)

    static func isIdText(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer(IdeaBytes.isIdText)
    }

    @Test("An id as Idea.idString spells it is id text, whatever its digits")
    func idStrings() {
        #expect(Self.isIdText(Self.id))
        for _ in 0..<200 {
            #expect(Self.isIdText(Array(UUID().lowercasedString.utf8)))
        }
        #expect(Self.isIdText(Array("00000000-0000-0000-0000-000000000000".utf8)))
        #expect(Self.isIdText(Array("ffffffff-ffff-ffff-ffff-ffffffffffff".utf8)))
    }

    @Test("Every byte at every position: only a dash where a dash belongs and a lower-case hex digit elsewhere")
    func everyByteAtEveryPosition() {
        let dashes: Set = [8, 13, 18, 23]
        for position in 0..<36 {
            for byte in UInt8.min...UInt8.max {
                var bytes = Self.id
                bytes[position] = byte
                let fits = dashes.contains(position)
                    ? byte == UInt8(ascii: "-")
                    : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                #expect(Self.isIdText(bytes) == fits, "byte \(byte) at \(position)")
            }
        }
    }

    @Test("Any other length is not id text", arguments: [0, 1, 32, 35, 37, 38, 72])
    func otherLengths(count: Int) {
        let bytes = (0..<count).map { Self.id[$0 % 36] }
        #expect(!Self.isIdText(bytes))
        #expect(!IdeaBytes.isIdText(UnsafeBufferPointer(start: nil, count: 0)))
    }

    @Test("An escape at any offset of long text, around each eight-byte step, comes out as JSONEncoder writes it")
    func escapesAtEveryOffset() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        for escape in ["\"", "\\", "\u{0}", "\n", "\u{1F}"] {
            for offset in 0..<50 {
                let text = String(repeating: "a", count: offset) + escape + String(repeating: "靈", count: 20)
                let idea = Idea(
                    id: UUID(), title: text, description: String(text.reversed()), isCompleted: false,
                    createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 1), deviceId: "d", version: 0)
                #expect(idea.jsonText() == String(decoding: try encoder.encode(idea), as: UTF8.self), "\(escape.debugDescription) at \(offset)")
            }
        }
    }
}
