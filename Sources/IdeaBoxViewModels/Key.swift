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
}
