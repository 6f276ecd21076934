import Foundation
import GRDB

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
    ///
    /// Text whose scalars all stand alone (see `standsAlone`) and have no case beyond
    /// ASCII, which is nearly all English and Chinese text, is folded byte by byte: NFC
    /// can't change it, and only its ASCII letters change case.
    static func fold(_ text: String) -> String {
        let byByte = text.unicodeScalars.allSatisfy { scalar in
            standsAlone(scalar.value) && (scalar.value < 0x80 || scalar.value >= 0x3000 && !(0xFF21...0xFF3A ~= scalar.value))
        }
        guard byByte else { return text.precomposedStringWithCanonicalMapping.lowercased() }
        return String(decoding: text.utf8.map { 0x41...0x5A ~= $0 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether a scalar is a whole character wherever it stands and NFC leaves it as it
    /// is: printable ASCII, tab and line breaks, Latin-1 and the Latin extensions, CJK
    /// punctuation, kana and ideographs, and full-width forms. Left out are the combining
    /// marks (U+0300 on, U+302A–U+302F, U+3099–U+309A), joiners, variation selectors,
    /// Hangul jamo, emoji and compatibility ideographs, so no grapheme rule joins two of
    /// these and no canonical composition applies to them. `SearchTextTests` checks this
    /// against the standard library for every scalar of the set.
    static func standsAlone(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0x7E, 0xA0...0x2FF,
             0x3001...0x3029, 0x3030...0x3098, 0x309B...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xFF01...0xFF5E:
            true
        default:
            false
        }
    }

    /// `Character.isWhitespace` for a scalar that stands alone.
    private static func isWhitespace(standingAlone value: UInt32) -> Bool {
        value == 0x20 || value == 0x09 || value == 0x0A || value == 0x0D || value == 0xA0
    }

    /// How a folded, non-empty query is answered: the index that gives its candidates, the
    /// FTS5 MATCH expression, and the text each candidate must still contain.
    struct Plan: Equatable {
        /// The FTS5 table.
        var table: String
        /// The MATCH expression.
        var match: String
        /// What a candidate's folded title or description must contain to be a hit, where
        /// the index's hits are candidates only: the trigram index keeps no positions, so a
        /// query of four or more code points finds the ideas holding each of its trigrams,
        /// anywhere (`"abc" "bcd"` also finds "bcd abc"). Nil where every candidate is a hit.
        var mustContain: String?

        /// The hits as the index finds them, as `FROM … WHERE …` with its arguments: for
        /// counting, which can stop after the first few (an `IN` list of candidates would be
        /// gathered whole first). Deleted ideas' entries left in the index are no hits.
        var hitsFromIndex: (sql: String, arguments: StatementArguments) {
            guard let mustContain else {
                return (
                    "FROM \(table) WHERE \(table) MATCH ? AND \(table).rowid NOT IN (SELECT localId FROM staleSearchEntry)",
                    [match]
                )
            }
            return (
                "FROM \(table) CROSS JOIN idea ON idea.localId = \(table).rowid WHERE \(table) MATCH ?"
                    + " AND (instr(idea.foldedTitle, ?) > 0 OR instr(idea.foldedDescription, ?) > 0)",
                [match, mustContain, mustContain]
            )
        }

        /// The condition (for `WHERE`) on an `idea` row that makes it a hit, with its
        /// arguments: among the candidates, and holding `mustContain` if there is one.
        var hits: (condition: String, arguments: StatementArguments) {
            let candidates = "localId IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?)"
            guard let mustContain else { return (candidates, [match]) }
            return (
                "\(candidates) AND (instr(foldedTitle, ?) > 0 OR instr(foldedDescription, ?) > 0)",
                [match, mustContain, mustContain]
            )
        }
    }

    /// The plan for a folded, non-empty query.
    static func plan(forFoldedQuery query: String) -> Plan {
        let scalars = Array(query.unicodeScalars)
        if scalars.count >= 3 {
            // Each trigram a phrase of one token (the index's only kind without positions).
            let trigrams = (0...(scalars.count - 3)).map { start in
                "\"" + String(String.UnicodeScalarView(scalars[start..<(start + 3)])).replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            var distinct: [String] = []
            for trigram in trigrams where !distinct.contains(trigram) { distinct.append(trigram) }
            return Plan(table: "ideaTrigram", match: distinct.joined(separator: " "), mustContain: scalars.count > 3 ? query : nil)
        }
        let characters = Array(query)
        let token = characters.count == 1
            ? token(characters[0])
            : token(characters[0]) + "x" + token(characters[1])
        return Plan(table: "ideaShortGram", match: token)
    }

    /// An idea's text as the indexes hold it. Working it out needs no database, so a sync
    /// does it for the next page on another thread.
    struct Indexed: Sendable {
        var foldedTitle: String
        var foldedDescription: String
        /// The short-gram tokens of the folded text.
        var grams: String

        init(title: String, description: String) {
            self.init(foldedTitle: SearchText.fold(title), foldedDescription: SearchText.fold(description))
        }

        /// The text of an idea whose title and description are folded already.
        init(foldedTitle: String, foldedDescription: String) {
            self.foldedTitle = foldedTitle
            self.foldedDescription = foldedDescription
            grams = shortGrams(foldedTitle, foldedDescription)
        }
    }

    /// Both search indexes, each an FTS5 table.
    static let indexTables = ["ideaTrigram", "ideaShortGram"]

    /// Adds an idea's text to both indexes.
    static func index(_ db: Database, localId: Int64, _ text: Indexed) throws {
        try db.run(sql: indexTrigramSQL, arguments: [localId, text.foldedTitle, text.foldedDescription])
        try db.run(sql: indexShortGramSQL, arguments: [localId, text.grams])
    }

    /// `index`'s statement for the trigram index: the idea's `localId`, folded title, folded description.
    static let indexTrigramSQL = "INSERT INTO ideaTrigram(rowid, foldedTitle, foldedDescription) VALUES (?, ?, ?)"
    /// `index`'s statement for the short-gram index: the idea's `localId`, its grams.
    static let indexShortGramSQL = "INSERT INTO ideaShortGram(rowid, grams) VALUES (?, ?)"

    /// Merges the small segments of both indexes, writing about `pages` pages of each at
    /// most (FTS5's `merge`: levels of four segments or more, oldest work first). The
    /// indexes answer the same before and after; fewer segments make a search read less.
    static func merge(_ db: Database, pages: Int) throws {
        for table in indexTables {
            try db.execute(sql: "INSERT INTO \(table)(\(table), rank) VALUES ('merge', ?)", arguments: [pages])
        }
    }

    /// Merges every segment of both indexes into one (FTS5's `optimize`), rewriting them whole.
    static func optimize(_ db: Database) throws {
        for table in indexTables {
            try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES ('optimize')")
        }
    }

    /// Empties both indexes (FTS5's 'delete-all', which also drops what FTS5 held of them in
    /// memory) and forgets the entries deletes left: for a profile with no idea, whose
    /// indexes a bulk import fills whole (`SearchIndexBuild`).
    static func emptyIndexes(_ db: Database) throws {
        for table in indexTables {
            try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES ('delete-all')")
        }
        try db.execute(sql: "DELETE FROM staleSearchEntry")
    }

    /// Adds every idea's folded text to both emptied indexes, then merges each into one
    /// segment, as a bulk import leaves them.
    static func indexEveryIdea(_ db: Database) throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT localId, foldedTitle, foldedDescription FROM idea")
        while let row = try rows.next() {
            try index(db, localId: row[0], Indexed(foldedTitle: row[1], foldedDescription: row[2]))
        }
        try optimize(db)
    }

    /// Removes an idea's folded text from both indexes. It must be the text that was
    /// indexed: FTS5 deletes by replaying the same tokens. A deleted idea's entries are left
    /// for later instead (`leaveForLater`).
    static func unindex(_ db: Database, localId: Int64, foldedTitle: String, foldedDescription: String) throws {
        try db.run(sql: unindexTrigramSQL, arguments: [localId, foldedTitle, foldedDescription])
        try db.run(sql: unindexShortGramSQL, arguments: [localId, shortGrams(foldedTitle, foldedDescription)])
    }

    /// `unindex`'s statement for the trigram index: the row id, the folded title and description.
    static let unindexTrigramSQL =
        "INSERT INTO ideaTrigram(ideaTrigram, rowid, foldedTitle, foldedDescription) VALUES ('delete', ?, ?, ?)"
    /// `unindex`'s statement for the short-gram index: the row id, the grams of the folded text.
    static let unindexShortGramSQL = "INSERT INTO ideaShortGram(ideaShortGram, rowid, grams) VALUES ('delete', ?, ?)"

    /// The distinct tokens of every character and adjacent pair, within each field (a pair
    /// never spans the title and the description). Grams holding white space are left
    /// out: a query is trimmed, so a one- or two-character query never contains any.
    ///
    /// Every added or synced idea goes through this, so the common cases are fast: a field
    /// whose scalars all stand alone is read scalar by scalar, without grapheme breaking,
    /// and characters of one code point are deduplicated by number and written straight
    /// into bytes. The tokens are exactly those of `token(_:)`.
    static func shortGrams(_ fields: String...) -> String {
        var grams = GramWriter(utf8Count: fields.reduce(0) { $0 + $1.utf8.count })
        for field in fields {
            if field.unicodeScalars.allSatisfy({ standsAlone($0.value) }) {
                // Each scalar is a character: the same tokens, without grapheme breaking.
                var previous: UInt32?
                for scalar in field.unicodeScalars {
                    guard !isWhitespace(standingAlone: scalar.value) else {
                        previous = nil
                        continue
                    }
                    grams.add(scalar.value)
                    if let previous { grams.add(previous, scalar.value) }
                    previous = scalar.value
                }
                continue
            }
            var previous: Character?
            for character in field {
                guard !character.isWhitespace else {
                    previous = nil
                    continue
                }
                let scalars = character.unicodeScalars
                let single = scalars.count == 1 ? scalars.first!.value : nil
                if let single {
                    grams.add(single)
                } else {
                    grams.add(composed: token(character))
                }
                if let previous {
                    let before = previous.unicodeScalars
                    if let single, before.count == 1, let first = before.first?.value {
                        grams.add(first, single)
                    } else {
                        grams.add(composed: token(previous) + "x" + token(character))
                    }
                }
                previous = character
            }
        }
        return grams.text
    }

    /// Distinct tokens, space-separated. Tokens of one code point and pairs of them are
    /// deduplicated by number and written straight into bytes.
    private struct GramWriter {
        private var seen: KeySet
        private var seenComposed = Set<String>()
        private var bytes: [UInt8] = []

        /// A writer for the grams of text of `utf8Count` bytes in all.
        init(utf8Count: Int) {
            // At most one character and one pair per byte.
            seen = KeySet(capacity: 2 * utf8Count)
            bytes.reserveCapacity(utf8Count * 6)
        }

        var text: String { String(decoding: bytes, as: UTF8.self) }

        /// A character of one code point.
        mutating func add(_ scalar: UInt32) {
            guard seen.insert(1 << 63 | UInt64(scalar)) else { return }
            separate()
            appendHex(scalar)
        }

        /// A pair of characters of one code point each.
        mutating func add(_ first: UInt32, _ second: UInt32) {
            guard seen.insert(1 << 62 | UInt64(first) << 21 | UInt64(second)) else { return }
            separate()
            appendHex(first)
            bytes.append(UInt8(ascii: "x"))
            appendHex(second)
        }

        /// Any other token.
        mutating func add(composed token: String) {
            guard seenComposed.insert(token).inserted else { return }
            separate()
            bytes.append(contentsOf: token.utf8)
        }

        private mutating func separate() {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: " ")) }
        }

        /// `value` in lower-case hex without leading zeros, as `String(value, radix: 16)`.
        private mutating func appendHex(_ value: UInt32) {
            var shift: UInt32 = 28
            while shift > 0 && value >> shift == 0 { shift -= 4 }
            while true {
                let digit = UInt8(value >> shift & 0xF)
                bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
                if shift == 0 { break }
                shift -= 4
            }
        }
    }

    /// A set of non-zero keys, for the grams of one idea: open addressing sized once, with
    /// a multiplicative hash. The standard `Set` hashes every key with SipHash, which cost
    /// more than all the rest of building the grams.
    private struct KeySet {
        private var slots: [UInt64]
        private let shift: UInt64

        /// A set for at most `capacity` keys, at most half full.
        init(capacity: Int) {
            var bits = 4
            while 1 << bits < 2 * capacity { bits += 1 }
            slots = Array(repeating: 0, count: 1 << bits)
            shift = UInt64(64 - bits)
        }

        /// Adds `key` (not zero); returns whether it was new.
        mutating func insert(_ key: UInt64) -> Bool {
            let mask = slots.count - 1
            var index = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while true {
                if slots[index] == key { return false }
                if slots[index] == 0 {
                    slots[index] = key
                    return true
                }
                index = (index + 1) & mask
            }
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
