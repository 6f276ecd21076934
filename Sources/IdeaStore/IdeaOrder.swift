import GRDB

/// The order of All Ideas and Completed (`S` in the app, `list --sort`). Search results
/// stay newest first.
///
/// Titles sort by their folded form (`SearchText.fold`: lower-cased, NFC), byte by byte,
/// which for UTF-8 is Unicode scalar order: case-insensitive Latin first (digits and
/// punctuation before letters), then kana, then Chinese in the order of the Unihan
/// blocks, which is radical then stroke count — the order of a Chinese dictionary (部首).
/// A locale's collation (Foundation's `compare(options:locale:)`) needs ICU data this
/// binary does not carry, and SQLite could not use it in an index; this order is the same
/// on every machine, and an index serves it. Accented Latin letters come after `z`.
public struct IdeaOrder: Sendable, Hashable {
    /// What the ideas are sorted by.
    public enum Key: String, CaseIterable, Sendable {
        /// When the idea was created, newest first: the default and the specs' order.
        case created
        /// When the idea last changed, latest first.
        case updated
        /// The title, A to Z (Chinese after Latin, by radical and strokes).
        case title
    }

    /// What the ideas are sorted by.
    public var key: Key
    /// Whether the order is turned round (oldest first; Z to A).
    public var isReversed: Bool

    /// `key`, turned round if `isReversed`.
    public init(_ key: Key, isReversed: Bool = false) {
        self.key = key
        self.isReversed = isReversed
    }

    /// Newest first by creation: the default.
    public static let newestFirst = IdeaOrder(.created)

    /// The next order `S` gives: created, updated, title, then created again (not reversed).
    public var next: IdeaOrder {
        let keys = Key.allCases
        return IdeaOrder(keys[(keys.firstIndex(of: key)! + 1) % keys.count])
    }

    /// How the order is stored (`title`, `updated-reversed`).
    public var storedName: String { isReversed ? "\(key.rawValue)-reversed" : key.rawValue }

    /// The order stored as `name`, or nil for anything else.
    public init?(storedName name: String) {
        let reversed = name.hasSuffix("-reversed")
        guard let key = Key(rawValue: reversed ? String(name.dropLast("-reversed".count)) : name) else { return nil }
        self.init(key, isReversed: reversed)
    }

    /// What Completed reads in this order: the ideas through the order's own index, so a page
    /// is a few rows of a walk rather than all done ideas sorted (SQLite would otherwise pick
    /// the done flag's index, made for newest first, and sort 25,000 rows for a page).
    var completedSource: String {
        switch key {
        case .created: "idea"
        case .updated: "idea INDEXED BY idea_by_updatedAt"
        case .title: "idea INDEXED BY idea_by_foldedTitle"
        }
    }

    /// The ORDER BY terms, each with the direction this order reads them in (or, with
    /// `backwards`, the opposite one: a page near the end is read from the end). The row id
    /// breaks ties, so each order is total and matches its index (`idea_by_…`).
    func orderBy(backwards: Bool = false) -> String {
        let (column, descending): (String, Bool) = switch key {
        case .created: ("createdAt", true)
        case .updated: ("updatedAt", true)
        case .title: ("foldedTitle", false)
        }
        let direction = (descending != isReversed) != backwards ? "DESC" : "ASC"
        return "ORDER BY \(column) \(direction), localId \(direction)"
    }
}

extension IdeaRepository {
    /// The order the app last showed All Ideas and Completed in, on this profile; nil if
    /// it never changed it.
    public func listOrder() throws -> IdeaOrder? {
        try connection.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.listOrder])
                .flatMap(IdeaOrder.init(storedName:))
        }
    }

    /// Remembers the app's order for this profile. Not a change of the ideas: the revision,
    /// which other processes watch, stays.
    public func setListOrder(_ order: IdeaOrder) throws {
        try connection.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [MetaKey.listOrder, order.storedName])
        }
    }
}
