/// The Search tab's field: what is typed, whether keys go to it, and whether the count of
/// matches shown is a lower bound still being refined.
public struct SearchField: Sendable, Equatable {
    /// What is typed, and where the cursor is in it.
    public var query = TextBuffer()
    /// Whether typed keys go to the field.
    public var isFocused = false
    /// Whether the count of matches is a lower bound still being refined.
    public var isCountCapped = false
    /// The key just pressed that starts a two-key sequence, if one was.
    var pendingPrefix: Key?

    /// An empty field, without focus.
    public init() {}

    /// What a key asks of the app.
    public enum Outcome: Sendable, Equatable {
        /// Nothing: it waits for a second key, or changed nothing.
        case none
        /// The text changed: search again.
        case edited
        /// A bound action, which leaves the field.
        case action(SearchAction)
    }

    /// A key while the field has focus, read with `keys`: a bound action (the field loses
    /// focus), the first key of a sequence (it waits for the second), or one of the editing
    /// keys every text field shares (`TextBuffer.apply`).
    public mutating func handle(_ key: Key, keys: SearchKeys) -> Outcome {
        let previous = pendingPrefix
        pendingPrefix = nil
        switch keys.press(key, after: previous) {
        case .waiting:
            pendingPrefix = key
            return .none
        case .action(let action):
            isFocused = false
            return .action(action)
        case .other:
            return query.apply(key) == .edited ? .edited : .none
        }
    }
}
