import Foundation
import IdeaBoxFoundation
import Testing

/// `JSONString`: IdeaBox's one escaper writes what `JSONEncoder` writes.
@Suite struct JSONStringTests {
    @Test("Every control character, quote and backslash is escaped as JSONEncoder escapes it", arguments: 0..<0x20)
    func controlCharactersMatchJSONEncoder(code: Int) throws {
        let text = "a\(Character(Unicode.Scalar(UInt8(code))))\"\\/é靈感👍🏽 and some more text"
        var bytes: [UInt8] = []
        JSONString.append(text, to: &bytes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        #expect(bytes == Array(try encoder.encode(text)))
    }

    @Test("Backspace is \\b, as in the export")
    func backspaceIsShort() {
        var bytes: [UInt8] = []
        JSONString.append("\u{8}", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #""\b""#)
    }
}
