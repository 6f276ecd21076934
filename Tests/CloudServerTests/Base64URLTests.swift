@testable import CloudServer
import Foundation
import IdeaBoxFoundation
import Testing

/// Base64url as tokens and tickets are written: RFC 4648's vectors, a round trip of every
/// length, and every text read exactly as the earlier spelling through Foundation's base64
/// read it (the same bytes, or nil for the same texts), so that no ticket or token changes
/// meaning.
struct Base64URLTests {
    /// The earlier implementation (Foundation's base64 with `+`/`/` replaced), as the judge of
    /// what each text means.
    private enum Foundation64 {
        static func encode(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        static func decode(_ text: String) -> Data? {
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
            guard let data = Data(base64Encoded: base64), encode(data) == text else { return nil }
            return data
        }
    }

    @Test("RFC 4648's test vectors, without padding")
    func vectors() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Data(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Data(plain.utf8))
        }
        // The two characters that differ from base64's.
        #expect(Base64URL.encode(Data([0xFB, 0xFF])) == "-_8")
        #expect(Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
    }

    @Test("Random bytes of every length from 0 to 64 come back as they went, spelled as Foundation spelled them")
    func roundTrip() {
        var generator = SeededRandomNumberGenerator(seed: 40)
        for count in 0...64 {
            for _ in 0..<20 {
                let bytes = Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
                let text = Base64URL.encode(bytes)
                #expect(text == Foundation64.encode(bytes))
                #expect(Base64URL.decode(text) == bytes)
                #expect(Base64URL.decode(text[...]) == bytes)
            }
        }
    }

    @Test("Texts that are not base64url as written are refused: padding, base64's own characters, a lone last character, unused bits set, anything else")
    func refusals() {
        for text in ["Zg==", "Zm8=", "+/8", "-/8", "Z", "Zm9vY", "Zh", "Zm9", "Zm 9v", "Zm9v\n", "é", "Zm9v=", "=", "%2B", "Zm\u{0}9"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
            #expect(Foundation64.decode(text) == nil, "\(text)")
        }
    }

    @Test("Random texts (of base64url's characters and a few others) are read exactly as Foundation's base64 read them")
    func sameMeaningAsFoundation() {
        var generator = SeededRandomNumberGenerator(seed: 41)
        let characters = Array("AQgwZaz09-_+/= .é\u{0}")
        var accepted = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...12, using: &generator)
            // Mostly base64url's own characters, so that many are accepted and their last bits vary.
            let text = String((0..<count).map { _ in
                Bool.random(using: &generator) ? characters.randomElement(using: &generator)! : characters[Int.random(in: 0..<7, using: &generator)]
            })
            let expected = Foundation64.decode(text)
            #expect(Base64URL.decode(text) == expected, "\(text)")
            if expected != nil { accepted += 1 }
        }
        #expect(accepted > 1000)
    }
}
