import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// `Idea.jsonText`: byte for byte what `JSONEncoder` writes, so the command line's `--json`
/// output is the same as before it was written directly.
@Suite struct IdeaJSONTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func encoded(_ idea: Idea) throws -> String {
        String(decoding: try encoder.encode(idea), as: UTF8.self)
    }

    static func idea(title: String, description: String, synced: Bool, version: Int = 3) -> Idea {
        Idea(
            id: UUID(uuidString: "6F1C2B3A-4D5E-4F60-8172-839405A6B7C8")!, title: title, description: description,
            isCompleted: synced, createdAt: Timestamp(milliseconds: 1_795_162_530_123),
            updatedAt: Timestamp(milliseconds: 1_795_162_599_999), deviceId: "device \"A\"/1", version: version,
            lastSyncedAt: synced ? Timestamp(milliseconds: 1_795_162_600_000) : nil)
    }

    @Test("Every control character, quotes, backslashes, slashes and non-ASCII text come out as JSONEncoder writes them")
    func everyEscape() throws {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        for text in [controls, #"a "quoted" \ back\slash / and // slashes"#, "靈感 👩‍💻 🇹🇼 é\u{7F}\u{2028}\u{FEFF}", ""] {
            for synced in [false, true] {
                let idea = Self.idea(title: text, description: text + "\n" + text, synced: synced)
                #expect(idea.jsonText() == (try Self.encoded(idea)), "\(text.debugDescription)")
            }
        }
    }

    @Test("Random text over 2,000 ideas: the same bytes as JSONEncoder, indented lines included")
    func randomText() throws {
        var random = SeededRandomNumberGenerator(seed: 0x1dea_b0c5)
        let alphabet = Array("ab \"\\/\n\t\r\u{0}\u{1F}\u{7F}靈感é👍🏽🇹🇼\u{2028}".unicodeScalars)
        for _ in 0..<2_000 {
            func text() -> String {
                String(String.UnicodeScalarView((0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }))
            }
            let idea = Self.idea(title: text(), description: text(), synced: Bool.random(using: &random),
                                 version: Int.random(in: 0...Int.max, using: &random))
            let expected = try Self.encoded(idea)
            #expect(idea.jsonText() == expected)
            #expect(idea.jsonText(indent: "  ") == expected.replacingOccurrences(of: "\n", with: "\n  "))
        }
    }
}
