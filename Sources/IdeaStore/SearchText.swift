import Foundation
import GRDB
import IdeaBoxCore

/// How text is prepared for case-insensitive substring search, and how a query picks
/// the index that answers it.
///
/// Two indexes cover every query length:
/// - three or more code points: SQLite's FTS5 trigram tokenizer over the folded text;
/// - one or two characters (such as `靈` or `靈感`): a contentless FTS5 table holding
///   every distinct character and pair of adjacent characters of an idea, each written
///   as one ASCII token (`靈` is `9748`, `靈感` is `9748x611f`).
enum SearchText {
    /// Lower-cased, NFC-normalized text: stored beside the original and compared with
    /// the query folded the same way.
    static func fold(_ text: String) -> String {
        text.precomposedStringWithCanonicalMapping.lowercased()
    }

    /// The index a folded, non-empty query uses, and the FTS5 MATCH expression for it.
    static func plan(forFoldedQuery query: String) -> (table: String, match: String) {
        if query.unicodeScalars.count >= 3 {
            return ("ideaTrigram", "\"" + query.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        }
        let characters = Array(query)
        let token = characters.count == 1
            ? token(characters[0])
            : token(characters[0]) + "x" + token(characters[1])
        return ("ideaShortGram", token)
    }

    /// Adds an idea's one- and two-character tokens to the short-gram index.
    static func indexShortGrams(_ db: Database, localId: Int64, foldedTitle: String, foldedDescription: String) throws {
        try db.run(
            sql: "INSERT INTO ideaShortGram(rowid, grams) VALUES (?, ?)",
            arguments: [localId, shortGrams(foldedTitle, foldedDescription)])
    }

    /// Removes an idea's tokens from the short-gram index. The folded text must be what was
    /// indexed: a contentless FTS5 table deletes by replaying the same tokens.
    static func unindexShortGrams(_ db: Database, localId: Int64, foldedTitle: String, foldedDescription: String) throws {
        try db.run(
            sql: "INSERT INTO ideaShortGram(ideaShortGram, rowid, grams) VALUES ('delete', ?, ?)",
            arguments: [localId, shortGrams(foldedTitle, foldedDescription)])
    }

    /// The distinct tokens of every character and adjacent pair, within each field (a pair
    /// never spans the title and the description). Grams holding white space are left
    /// out: a query is trimmed, so a one- or two-character query never contains any.
    ///
    /// Every added or synced idea goes through this, so the common case (characters of one
    /// code point) is deduplicated by number and written straight into bytes; the tokens
    /// are exactly those of `token(_:)`.
    static func shortGrams(_ fields: String...) -> String {
        var seen = Set<UInt64>()
        var seenComposed = Set<String>()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.utf8.count } * 6)
        func emit(_ key: UInt64, write: (inout [UInt8]) -> Void) {
            guard seen.insert(key).inserted else { return }
            if !bytes.isEmpty { bytes.append(UInt8(ascii: " ")) }
            write(&bytes)
        }
        func emit(composed token: String) {
            guard seenComposed.insert(token).inserted else { return }
            if !bytes.isEmpty { bytes.append(UInt8(ascii: " ")) }
            bytes.append(contentsOf: token.utf8)
        }
        for field in fields {
            var previous: Character?
            for character in field {
                guard !character.isWhitespace else {
                    previous = nil
                    continue
                }
                let scalars = character.unicodeScalars
                let single = scalars.count == 1 ? scalars.first!.value : nil
                if let single {
                    emit(UInt64(single)) { appendHex(single, to: &$0) }
                } else {
                    emit(composed: token(character))
                }
                if let previous {
                    let before = previous.unicodeScalars
                    if let single, before.count == 1, let first = before.first?.value {
                        emit(1 << 62 | UInt64(first) << 21 | UInt64(single)) { bytes in
                            appendHex(first, to: &bytes)
                            bytes.append(UInt8(ascii: "x"))
                            appendHex(single, to: &bytes)
                        }
                    } else {
                        emit(composed: token(previous) + "x" + token(character))
                    }
                }
                previous = character
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `value` in lower-case hex without leading zeros, as `String(value, radix: 16)`.
    private static func appendHex(_ value: UInt32, to bytes: inout [UInt8]) {
        var shift = 28
        while shift > 0 && value >> UInt32(shift) == 0 { shift -= 4 }
        while shift >= 0 {
            bytes.append(hexDigits[Int(value >> UInt32(shift) & 0xF)])
            shift -= 4
        }
    }

    /// One character as an ASCII token: its code points in hex, joined by `y`.
    private static func token(_ character: Character) -> String {
        let scalars = character.unicodeScalars
        if scalars.count == 1 {
            return String(scalars.first!.value, radix: 16)
        }
        return scalars.map { String($0.value, radix: 16) }.joined(separator: "y")
    }
}
