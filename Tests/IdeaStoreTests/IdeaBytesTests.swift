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

    /// An idea with its field stamps, as `export` writes it, for `JSONEncoder`.
    private struct Stamped: Encodable {
        struct Stamp: Encodable {
            var deviceId: String
            var updatedAt: Timestamp
        }

        struct Stamps: Encodable {
            var title: Stamp
            var description: Stamp
            var isCompleted: Stamp
        }

        var createdAt: Timestamp
        var description: String
        var deviceId: String
        var fieldStamps: Stamps
        var id: String
        var isCompleted: Bool
        var lastSyncedAt: Timestamp
        var title: String
        var updatedAt: Timestamp
        var version: Int
    }

    @Test("With stamps, fieldStamps comes out nested as JSONEncoder writes it, at any indent")
    func stampsAsJSONEncoderWritesThem() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let stamped = Stamped(
            createdAt: Timestamp(milliseconds: 1_000), description: "a \"quoted\"\nline", deviceId: "device B",
            fieldStamps: Stamped.Stamps(
                title: .init(deviceId: "device B", updatedAt: Timestamp(milliseconds: 9_007)),
                description: .init(deviceId: "裝置 \"A\"/1", updatedAt: Timestamp(milliseconds: 5_000)),
                isCompleted: .init(deviceId: "sample-en", updatedAt: Timestamp(milliseconds: 0))),
            id: "6f1c2b3a-4d5e-4f60-8172-839405a6b7c8", isCompleted: true, lastSyncedAt: Timestamp(milliseconds: 9_999),
            title: "靈感", updatedAt: Timestamp(milliseconds: 9_007), version: 4)
        let expected = String(decoding: try encoder.encode(stamped), as: UTF8.self)
        for indent in ["", "    "] {
            var bytes: [UInt8] = []
            var (id, title, description, deviceId) = (stamped.id, stamped.title, stamped.description, stamped.deviceId)
            var (titleBy, descriptionBy, completedBy) = (
                stamped.fieldStamps.title.deviceId, stamped.fieldStamps.description.deviceId,
                stamped.fieldStamps.isCompleted.deviceId
            )
            id.withUTF8 { id in title.withUTF8 { title in description.withUTF8 { description in deviceId.withUTF8 { deviceId in
                titleBy.withUTF8 { titleBy in descriptionBy.withUTF8 { descriptionBy in completedBy.withUTF8 { completedBy in
                    let stamps = IdeaBytes.Stamps(
                        title: IdeaBytes.Stamp(time: stamped.fieldStamps.title.updatedAt, deviceId: titleBy),
                        description: IdeaBytes.Stamp(time: stamped.fieldStamps.description.updatedAt, deviceId: descriptionBy),
                        isCompleted: IdeaBytes.Stamp(time: stamped.fieldStamps.isCompleted.updatedAt, deviceId: completedBy))
                    IdeaBytes(
                        id: id, title: title, description: description, isCompleted: true, createdAt: stamped.createdAt,
                        updatedAt: stamped.updatedAt, deviceId: deviceId, version: 4, lastSyncedAt: stamped.lastSyncedAt,
                        stamps: stamps
                    ).writeJSON(to: &bytes, indent: indent)
                } } }
            } } } }
            #expect(String(decoding: bytes, as: UTF8.self) == expected.replacingOccurrences(of: "\n", with: "\n" + indent))
        }
    }
}
