/// What a key does in a list (All Ideas, Completed, or Search's results), by name: the
/// `KeyBindings` table maps keys to these, and `AppModel.perform(_:)` carries them out.
/// The raw value is the name the config file's `[keys]` table uses.
public enum ListAction: String, BindableAction {
    /// Leave the app.
    case quit
    /// Open All Ideas.
    case allIdeas = "all-ideas"
    /// Open Completed.
    case completed
    /// Open Search (its field focused only when empty).
    case searchTab = "search-tab"
    /// The next tab, round.
    case nextTab = "next-tab"
    /// The previous tab, round.
    case previousTab = "previous-tab"
    /// One row up.
    case up
    /// One row down.
    case down
    /// A screenful up.
    case pageUp = "page-up"
    /// A screenful down.
    case pageDown = "page-down"
    /// The first row.
    case first
    /// The last row.
    case last
    /// A new idea in the edit form.
    case new
    /// The selected idea in the edit form.
    case edit
    /// The selected idea in the person's own editor (`$VISUAL`, `$EDITOR`, `vi`).
    case openInEditor = "open-in-editor"
    /// The next order of All Ideas and Completed: created, last changed, title.
    case cycleOrder = "cycle-order"
    /// The preview of the selected idea shown or hidden (full screen below 120 columns).
    case preview
    /// Done or not done, for the selected idea or every one of a selection.
    case toggleDone = "toggle-done"
    /// Delete (asks y/n), the selected idea or every one of a selection.
    case delete
    /// The selected idea's history.
    case history
    /// Take back the newest action.
    case undo
    /// Make the newest undone action again.
    case redo
    /// The Search tab, its field focused.
    case search
    /// The help overlay.
    case help
    /// A sync now.
    case sync
    /// The simulated network off or on.
    case network
    /// The sync log and conflicts.
    case syncLog = "sync-log"
    /// Start (or end) a selection of many rows at the selected one.
    case select
    /// Leave the selection.
    case leaveSelection = "leave-selection"
    /// Copy the selected idea to the clipboard (OSC 52).
    case copy
    /// Open the selected idea's first link with `xdg-open`.
    case openLink = "open-link"

    /// The app's own keys, one or more for every action above (what `config.toml`'s `[keys]`
    /// replaces); each action's first key is the one the hints name.
    public static let defaultKeys: [ListAction: [KeySequence]] = [
        .quit: [[.char("q")], [.ctrl("c")]],
        .allIdeas: [[.char("1")]],
        .completed: [[.char("2")]],
        .searchTab: [[.char("3")]],
        .nextTab: [[.tab]],
        .previousTab: [[.backTab]],
        .up: [[.up], [.char("k")]],
        .down: [[.down], [.char("j")]],
        .pageUp: [[.pageUp]],
        .pageDown: [[.pageDown]],
        .first: [[.home], [.char("g")]],
        .last: [[.end], [.char("G")]],
        .new: [[.char("n")]],
        .edit: [[.char("e")], [.enter]],
        .openInEditor: [[.char("E")]],
        .cycleOrder: [[.char("S")]],
        .preview: [[.char("p")]],
        .toggleDone: [[.char("x")], [.char(" ")]],
        .delete: [[.char("d")], [.delete]],
        .history: [[.char("h")]],
        .undo: [[.char("u")]],
        .redo: [[.ctrl("r")]],
        .search: [[.char("/")]],
        .help: [[.char("?")], [.f(1)]],
        .sync: [[.char("s")]],
        .network: [[.char("o")]],
        .syncLog: [[.char("l")]],
        .select: [[.char("v")]],
        .leaveSelection: [[.escape]],
        .copy: [[.char("y")]],
        .openLink: [[.char("g"), .char("x")]],
    ]

    /// The config file's `[keys]`.
    public static let configTable = "keys"

    /// A list has no text field: any key may be bound.
    public static let typesText = false

    /// Whether the action only moves the cursor (see `BindableAction`).
    public var isMove: Bool {
        switch self {
        case .up, .down, .pageUp, .pageDown, .first, .last: true
        default: false
        }
    }
}
