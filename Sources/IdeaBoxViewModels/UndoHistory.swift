import IdeaModel

/// What `u` can undo and `Ctrl-R` redo in this run of the app: adds, deletes, done/undone
/// and edits, newest last, at most `limit` of them. Each is taken back as a new edit against
/// the present, never as a snapshot written over what another device did since.
public struct UndoHistory: Sendable, Equatable {
    /// One change a person made, with what it takes to make it again or take it back.
    public enum Action: Sendable, Equatable {
        /// `idea` was added (as it was stored).
        case add(Idea)
        /// `idea` was deleted (as it was just before).
        case delete(Idea)
        /// The idea was marked done (`true`) or not done.
        case setCompleted(Idea, isCompleted: Bool)
        /// The idea was edited from `before` to `after`.
        case edit(before: Idea, after: Idea)
        /// One action on many ideas at once (a selection's done or delete), taken back whole.
        indirect case batch([Action])

        /// The title to name the action by, as it was when it was done.
        public var title: String {
            switch self {
            case .add(let idea), .delete(let idea), .setCompleted(let idea, _): idea.title
            case .edit(_, let after): after.title
            case .batch(let actions): actions.first?.title ?? ""
            }
        }
    }

    /// How many actions are kept; the oldest goes first.
    public static let limit = 100

    /// The actions that `u` takes back, newest last.
    public private(set) var undoable: [Action] = []
    /// The actions that `Ctrl-R` makes again, newest last.
    public private(set) var redoable: [Action] = []

    /// An empty history.
    public init() {}

    /// Records a new action; whatever could be redone is forgotten.
    public mutating func record(_ action: Action) {
        undoable.append(action)
        if undoable.count > Self.limit { undoable.removeFirst(undoable.count - Self.limit) }
        redoable.removeAll()
    }

    /// The action to undo next, taken off the history; `undone(_:)` puts it on the redo side.
    public mutating func popUndo() -> Action? { undoable.popLast() }

    /// The action to redo next, taken off the history; `redone(_:)` puts it back on the undo side.
    public mutating func popRedo() -> Action? { redoable.popLast() }

    /// `action` was undone: it can be redone.
    public mutating func undone(_ action: Action) { redoable.append(action) }

    /// `action` was redone: it can be undone again.
    public mutating func redone(_ action: Action) { undoable.append(action) }
}
