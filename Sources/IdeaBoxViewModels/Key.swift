/// A key press, or a whole paste, as the app sees it.
public enum Key: Hashable, Sendable {
    /// A typed grapheme cluster.
    case char(Character)
    /// Enter or Return (also Ctrl-J and Ctrl-M).
    case enter
    /// Tab (also Ctrl-I).
    case tab
    /// Shift-Tab.
    case backTab
    /// Backspace (also Ctrl-H).
    case backspace
    /// Delete, the key that removes the character after the cursor.
    case delete
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Arrow left.
    case left
    /// Arrow right.
    case right
    /// Ctrl-Left (or Alt-Left): a word back.
    case wordLeft
    /// Ctrl-Right (or Alt-Right): a word forward.
    case wordRight
    /// Home.
    case home
    /// End.
    case end
    /// Page Up.
    case pageUp
    /// Page Down.
    case pageDown
    /// Escape on its own.
    case escape
    /// Ctrl with a letter, the letter lowercase: `.ctrl("c")` is Ctrl-C.
    case ctrl(Character)
    /// Alt (Meta) with a character, sent by terminals as ESC and the character.
    case alt(Character)
    /// Function key F1, F2, …
    case f(Int)
    /// The terminal changed size.
    case resize
    /// Text pasted in one piece (bracketed paste), line breaks as "\n".
    case paste(String)
    /// A mouse button or the wheel, at a cell of the screen.
    case mouse(MouseEvent)
}

/// What the mouse did, and at which cell (0-based).
public struct MouseEvent: Hashable, Sendable {
    /// The kinds of mouse input the app uses.
    public enum Action: Hashable, Sendable {
        /// The left button went down.
        case press
        /// The wheel turned away from the user (scroll up).
        case wheelUp
        /// The wheel turned towards the user (scroll down).
        case wheelDown
    }

    /// What happened.
    public var action: Action
    /// The row of the cell under the pointer.
    public var row: Int
    /// The column of the cell under the pointer.
    public var column: Int

    /// An event at `row`, `column`.
    public init(_ action: Action, row: Int, column: Int) {
        self.action = action
        self.row = row
        self.column = column
    }
}
