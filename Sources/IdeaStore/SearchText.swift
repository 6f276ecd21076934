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
        try db.execute(
            sql: "INSERT INTO ideaShortGram(rowid, grams) VALUES (?, ?)",
            arguments: [localId, shortGrams(foldedTitle, foldedDescription)])
    }

    /// Removes an idea's tokens from the short-gram index. The folded text must be what was
    /// indexed: a contentless FTS5 table deletes by replaying the same tokens.
    static func unindexShortGrams(_ db: Database, localId: Int64, foldedTitle: String, foldedDescription: String) throws {
        try db.execute(
            sql: "INSERT INTO ideaShortGram(ideaShortGram, rowid, grams) VALUES ('delete', ?, ?)",
            arguments: [localId, shortGrams(foldedTitle, foldedDescription)])
    }

    /// The distinct tokens of every character and adjacent pair, within each field (a pair
    /// never spans the title and the description). Grams holding white space are left
    /// out: a query is trimmed, so a one- or two-character query never contains any.
    static func shortGrams(_ fields: String...) -> String {
        var seen = Set<String>()
        var tokens: [String] = []
        for field in fields {
            var previous: String?
            for character in field {
                guard !character.isWhitespace else {
                    previous = nil
                    continue
                }
                let current = token(character)
                if seen.insert(current).inserted { tokens.append(current) }
                if let previous {
                    let pair = previous + "x" + current
                    if seen.insert(pair).inserted { tokens.append(pair) }
                }
                previous = current
            }
        }
        return tokens.joined(separator: " ")
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
