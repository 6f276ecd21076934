import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaModel
import IdeaStore
import Testing

/// `export`'s and `--json`'s array of ideas, written straight into the output's memory: byte
/// for byte what `JSONEncoder` writes for the same ideas, whether the writer holds everything
/// (`export`) or writes out as it goes (`list --json`).
@Suite struct JSONArrayWriterTests {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static let trickyTexts = [
        "靈感 咖啡 台北夜市", "👩‍💻 🇹🇼 👍🏽 emoji", String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }),
        #"a "quoted" \ back\slash"#, "a/b // c </script>", "line\u{2028}separator\u{2029}paragraph", "é\u{7F}\u{FEFF}", "",
    ]

    private static func ideas() -> [Idea] {
        var random = SeededRandomNumberGenerator(seed: 0x5eed)
        return (0..<300).map { index in
            let title = trickyTexts[index % trickyTexts.count] + " \(index)"
            let description = (0..<Int.random(in: 0...6, using: &random)).map { _ in trickyTexts.randomElement(using: &random)! }
                .joined(separator: "\n")
            return Idea(
                id: UUID(), title: title, description: description, isCompleted: index % 3 == 0,
                createdAt: Timestamp(milliseconds: 1_700_000_000_000 + Int64(index) * 61_001),
                updatedAt: Timestamp(milliseconds: 1_700_000_000_000 + Int64(index) * 61_001 + 5), deviceId: "device \"\(index)\"/x",
                version: index * 7, lastSyncedAt: index % 2 == 0 ? nil : Timestamp(milliseconds: 1_800_000_000_000))
        }
    }

    /// What the writer puts in `output` for `ideas`.
    private static func written(_ ideas: [Idea], holdsEverything: Bool) -> [UInt8] {
        var output = Output.BufferedWriter(holdsEverything: holdsEverything)
        var writer = Output.JSONArrayWriter()
        for idea in ideas {
            var (id, title, description, deviceId) = (idea.idString, idea.title, idea.description, idea.deviceId)
            id.withUTF8 { id in
                title.withUTF8 { title in
                    description.withUTF8 { description in
                        deviceId.withUTF8 { deviceId in
                            writer.write(IdeaBytes(
                                id: id, title: title, description: description, isCompleted: idea.isCompleted,
                                createdAt: idea.createdAt, updatedAt: idea.updatedAt, deviceId: deviceId, version: idea.version,
                                lastSyncedAt: idea.lastSyncedAt), to: &output)
                        }
                    }
                }
            }
        }
        writer.finish(to: &output)
        return output.buffered
    }

    @Test(arguments: [true, false])
    func theArrayIsWhatJSONEncoderWrites(holdsEverything: Bool) throws {
        let ideas = Self.ideas()
        // A writer that writes out as it goes keeps less than 64 KB: compare a few ideas there.
        let shown = holdsEverything ? ideas : Array(ideas.prefix(20))
        let expected = String(decoding: try Self.encoder.encode(shown), as: UTF8.self) + "\n"
        #expect(String(decoding: Self.written(shown, holdsEverything: holdsEverything), as: UTF8.self) == expected)
    }

    @Test func noIdeasIsAnEmptyArray() {
        #expect(Self.written([], holdsEverything: true) == Array("[]\n".utf8))
    }
}
