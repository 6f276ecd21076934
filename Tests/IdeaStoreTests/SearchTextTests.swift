import Foundation
import IdeaBoxFoundation
@testable import IdeaStore
import Testing

/// Folding and the short-gram tokens: the fast paths for text whose scalars stand alone
/// give exactly what the general, grapheme-by-grapheme way gives.
@Suite struct SearchTextTests {
    /// Every scalar `standsAlone` accepts.
    private static let standingAlone: [Unicode.Scalar] = (0...0x10FFFF).compactMap { value in
        SearchText.standsAlone(UInt32(value)) ? Unicode.Scalar(UInt32(value)) : nil
    }

    @Test func aScalarThatStandsAloneIsAWholeCharacterBesideAnyOther() {
        // Grapheme rules join a scalar to its neighbour only if it extends, is a spacing
        // mark or a prepend, or is one of the special sequences (CR LF, Hangul, emoji,
        // regional indicators). Either side of a plain letter and of an ideograph shows it.
        var joined: [String] = []
        for scalar in Self.standingAlone where scalar != "\r" && scalar != "\n" {
            for neighbour: Unicode.Scalar in ["a", "中", "\u{00E9}"] {
                let pairs = [String(scalar) + String(neighbour), String(neighbour) + String(scalar)]
                if pairs.contains(where: { $0.count != 2 }) {
                    joined.append(String(scalar.value, radix: 16))
                }
            }
        }
        #expect(joined.isEmpty)
        #expect(("\r" + "\n").count == 1, "CR LF is one character: both are white space, which the grams skip")
    }

    @Test func foldingAScalarThatStandsAloneMatchesNormalizingAndLowerCasing() {
        var different: [String] = []
        for scalar in Self.standingAlone {
            let text = String(scalar)
            if SearchText.fold(text) != text.precomposedStringWithCanonicalMapping.lowercased() {
                different.append(String(scalar.value, radix: 16))
            }
            // NFC leaves it alone, and it can't attach to what comes before: it is a
            // starter (the starters that compose as a second part are Indic vowel signs
            // and Hangul jamo, none of them in the set).
            if text.precomposedStringWithCanonicalMapping != text || scalar.properties.canonicalCombiningClass != .notReordered {
                different.append("nfc " + String(scalar.value, radix: 16))
            }
        }
        #expect(different.isEmpty)
    }

    @Test("Folding matches normalizing and lower-casing", arguments: [
        "Hello WORLD", "靈感 同步 ＡＢＣ ａｂｃ", "Ärger Straße İstanbul ǅ", "e\u{301}tude", "Cafe\u{301} CAFÉ",
        "が が", "ｶﾞ", "👍🏽 Party 🎉", "한국어 한국어", "Ω ΣΑΣ", "tab\tnew\nline\r\nend", "",
    ])
    func folding(text: String) {
        #expect(SearchText.fold(text) == text.precomposedStringWithCanonicalMapping.lowercased())
    }

    @Test func foldingRandomTextMatchesNormalizingAndLowerCasing() {
        var random = SeededRandomNumberGenerator(seed: 0x1dea_b0c5)
        let pool = Self.standingAlone + ["\u{301}", "\u{3099}", "\u{200D}", "👍", "\u{1F3FD}", "ᄀ", "ᅡ", "\u{3000}"]
        for _ in 0..<2000 {
            let text = String(String.UnicodeScalarView((0..<Int.random(in: 0...12, using: &random)).map { _ in
                pool.randomElement(using: &random)!
            }))
            #expect(SearchText.fold(text) == text.precomposedStringWithCanonicalMapping.lowercased(), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// Three code points or more: each distinct trigram a quoted phrase of one token; from
    /// four on, the candidates must hold the query itself.
    @Test func aLongQueryIsItsTrigramsAndTheQueryToCheck() {
        #expect(SearchText.plan(forFoldedQuery: "abc") == SearchText.Plan(table: "ideaTrigram", match: "\"abc\"", mustContain: nil))
        #expect(SearchText.plan(forFoldedQuery: "靈感筆記") == SearchText.Plan(
            table: "ideaTrigram", match: "\"靈感筆\" \"感筆記\"", mustContain: "靈感筆記"))
        #expect(SearchText.plan(forFoldedQuery: "aaaaa") == SearchText.Plan(table: "ideaTrigram", match: "\"aaa\"", mustContain: "aaaaa"))
        #expect(SearchText.plan(forFoldedQuery: #"say "hi""#).match == #""say" "ay " "y """ " ""h" """hi" "hi""""#)
        #expect(SearchText.plan(forFoldedQuery: "e\u{301}t").match == "\"e\u{301}t\"", "code points, as FTS5's trigrams count them")
        #expect(SearchText.plan(forFoldedQuery: "靈感").table == "ideaShortGram")
        #expect(SearchText.plan(forFoldedQuery: "靈感").mustContain == nil)
    }

    @Test("Short grams are every character and adjacent pair of each field", arguments: [
        ["idea app", ""], ["靈感 同步", "靈感靈感"], ["ａｂ ab", "a\tb\nc\r\nd"], ["e\u{301}tude", "cafe\u{301}"],
        ["👍🏽👍", "🇹🇼🇯🇵"], ["가각 가", "が が"], ["x", "y"], ["", ""], ["a\u{3000}b", "\u{A0}c d"],
    ])
    func shortGrams(fields: [String]) {
        #expect(tokens(SearchText.shortGrams(fields[0], fields[1])) == Self.referenceGrams(fields))
    }

    @Test func shortGramsOfRandomTextAreEveryCharacterAndAdjacentPair() {
        var random = SeededRandomNumberGenerator(seed: 0x1dea_b0c5)
        let pool = Array(Self.standingAlone.prefix(600)) + Array(Self.standingAlone.suffix(300))
            + ["\u{301}", "\u{3099}", "\u{200D}", "👍", "\u{1F3FD}", "ᄀ", "ᅡ", "\u{3000}", " ", "\n"]
        for _ in 0..<2000 {
            let fields = (0..<2).map { _ in
                String(String.UnicodeScalarView((0..<Int.random(in: 0...10, using: &random)).map { _ in
                    pool.randomElement(using: &random)!
                }))
            }
            #expect(tokens(SearchText.shortGrams(fields[0], fields[1])) == Self.referenceGrams(fields))
        }
    }

    private func tokens(_ grams: String) -> [String] {
        grams.split(separator: " ").map(String.init)
    }

    /// The grams by the definition: characters by grapheme, first appearance first.
    private static func referenceGrams(_ fields: [String]) -> [String] {
        func token(_ character: Character) -> String {
            character.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "y")
        }
        var grams: [String] = []
        var seen = Set<String>()
        func add(_ gram: String) {
            if seen.insert(gram).inserted { grams.append(gram) }
        }
        for field in fields {
            var previous: Character?
            for character in field {
                guard !character.isWhitespace else {
                    previous = nil
                    continue
                }
                add(token(character))
                if let previous { add(token(previous) + "x" + token(character)) }
                previous = character
            }
        }
        return grams
    }
}
