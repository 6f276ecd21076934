/// What a key does while the search field has focus, by name: `SearchKeys` maps keys to
/// these. The raw value is the name the config file's `[search-keys]` table uses. The field's
/// own editing keys (arrows, `Ctrl-A`, `Ctrl-W`…) stay as they are.
public enum SearchAction: String, BindableAction {
    /// Leave the field for the results (the query stays).
    case results
    /// Leave the field (the query and its results stay).
    case leave
    /// Leave the field for the next tab.
    case nextTab = "next-tab"
    /// Leave the field for the previous tab.
    case previousTab = "previous-tab"
    /// Leave the app.
    case quit

    /// The search field's keys before any config file.
    public static let defaultKeys: [SearchAction: [KeySequence]] = [
        .results: [[.enter], [.down]],
        .leave: [[.escape]],
        .nextTab: [[.tab]],
        .previousTab: [[.backTab]],
        .quit: [[.ctrl("c")]],
    ]

    /// The config file's `[search-keys]`.
    public static let configTable = "search-keys"

    /// Characters are typed into the query.
    public static let typesText = true

    /// No search action moves: a sequence's first key must be free.
    public var isMove: Bool { false }
}
