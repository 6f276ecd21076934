/// The keys that scroll an overlay (help, the sync log, the full-screen preview): the
/// arrows, PgUp PgDn and Home End whatever the list's keys are, and the keys the list moves
/// with (`j` `k` `g` `G` by default).
public struct ScrollKeys: Sendable, Equatable {
    /// The list's keys, whose moves scroll too.
    public var bindings: KeyBindings

    /// The scrolling keys beside the moves of `bindings`.
    public init(_ bindings: KeyBindings) {
        self.bindings = bindings
    }

    /// The keys that scroll every overlay, whatever the list's keys are, and the move each makes.
    static let fixed: [(key: Key, move: ListAction)] = [
        (.up, .up), (.down, .down), (.pageUp, .pageUp), (.pageDown, .pageDown), (.home, .first), (.end, .last),
    ]

    /// The keys as `text` writes them: the arrows, PgUp PgDn, Home End, then the list's other
    /// single keys for those moves.
    public func labels(in text: UIText) -> [String] {
        let fixed = Self.fixed.map { [$0.key] }
        let bound = Self.fixed.flatMap { bindings.sequences(for: $0.move) }.filter { $0.count == 1 && !fixed.contains($0) }
        return (fixed + bound).map(text.keyLabel)
    }

    /// Where a scrolling key takes a scroll position of at most `limit`, `page` lines to a
    /// page; nil for any other key.
    public func scrolled(_ scroll: Int, by key: Key, page: Int, limit: Int) -> Int? {
        let bound = bindings.action(for: key, after: nil).flatMap { $0.isMove ? $0 : nil }
        guard let move = Self.fixed.first(where: { $0.key == key })?.move ?? bound else { return nil }
        let moved: Int
        switch move {
        case .up: moved = scroll - 1
        case .down: moved = scroll + 1
        case .pageUp: moved = scroll - max(1, page - 1)
        case .pageDown: moved = scroll + max(1, page - 1)
        case .first: moved = 0
        default: moved = limit
        }
        return min(max(0, moved), limit)
    }
}
