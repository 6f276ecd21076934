/// The editing keys of every text field (the form's title and description, the search
/// field), in one place: what a key does to a buffer is the same wherever the buffer is.
extension TextBuffer {
    /// What an editing key did.
    public enum KeyEffect: Equatable, Sendable {
        /// The text changed (typed, pasted or deleted).
        case edited
        /// Only the cursor moved (or the key changed nothing it could).
        case moved
        /// Not an editing key: the field's owner decides what it does.
        case notEditing
    }

    /// Applies the editing key `key`: typing and pasting; `Backspace`, `Delete`/`Ctrl-D`;
    /// `←`/`Ctrl-B`, `→`/`Ctrl-F`; a word left and right (`Alt-←`/`Alt-B`, `Alt-→`/`Alt-F`);
    /// `Home`/`Ctrl-A`, `End`/`Ctrl-E`; `Ctrl-W` (the word before the cursor), `Ctrl-K` and
    /// `Ctrl-U` (to the line's end and start), as Emacs and readline bind them.
    @discardableResult
    public mutating func apply(_ key: Key) -> KeyEffect {
        switch key {
        case .char(let character): insert(String(character))
        case .paste(let text): insert(text)
        case .backspace: deleteBackward()
        case .delete, .ctrl("d"): deleteForward()
        case .ctrl("w"): deleteWordBackward()
        case .ctrl("k"): killToLineEnd()
        case .ctrl("u"): killToLineStart()
        case .left, .ctrl("b"): moveLeft(); return .moved
        case .right, .ctrl("f"): moveRight(); return .moved
        case .wordLeft, .alt("b"), .alt("B"): moveWordLeft(); return .moved
        case .wordRight, .alt("f"), .alt("F"): moveWordRight(); return .moved
        case .home, .ctrl("a"): moveToLineStart(); return .moved
        case .end, .ctrl("e"): moveToLineEnd(); return .moved
        default: return .notEditing
        }
        return .edited
    }
}
