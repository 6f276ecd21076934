/// The selected idea shown full screen over the list (`p` on a screen too narrow for the
/// pane beside it), scrolled.
public struct FullPreview: Sendable, Equatable {
    /// How many lines are scrolled off its top.
    public var scroll = 0

    /// The preview at its top.
    public init() {}

    /// What a key asks of the app, beyond scrolling.
    public enum Outcome: Sendable, Equatable {
        /// Nothing: it scrolled, or the key does nothing here.
        case none
        /// Back to the list.
        case close
        /// Back to the list, and quit (Ctrl-C).
        case quit
    }

    /// A key, the preview `lineCount` lines long with `visibleRows` of them showing: a
    /// scrolling key of `scrollKeys` scrolls, `Esc` (or `p`, `q`, Enter) goes back to the list.
    public mutating func handle(_ key: Key, lineCount: Int, visibleRows: Int, scrollKeys: ScrollKeys) -> Outcome {
        let limit = max(0, lineCount - visibleRows)
        if let scrolled = scrollKeys.scrolled(min(scroll, limit), by: key, page: visibleRows, limit: limit) {
            scroll = scrolled
            return .none
        }
        switch key {
        case .escape, .char("p"), .char("q"), .enter: return .close
        case .ctrl("c"): return .quit
        default: return .none
        }
    }
}
