
/// Editable text with a cursor that always sits between two grapheme clusters, so it can
/// never land inside a wide character or an emoji.
public struct TextBuffer: Sendable, Equatable {
    /// The text, one element per grapheme cluster.
    public private(set) var characters: [Character]
    /// The cursor, as the number of clusters before it.
    public private(set) var cursor: Int
    /// Whether the text may hold line breaks (a description) or is one line (a title).
    public let isMultiline: Bool

    /// A buffer holding `text` with the cursor at its end.
    public init(_ text: String = "", isMultiline: Bool = false) {
        self.isMultiline = isMultiline
        characters = Array(Self.clean(text, isMultiline: isMultiline))
        cursor = characters.count
    }

    /// The whole text.
    public var text: String { String(characters) }

    /// The number of grapheme clusters: what the length limits count.
    public var count: Int { characters.count }

    /// Inserts typed or pasted text at the cursor. A one-line buffer turns line breaks and
    /// tabs into spaces; control characters other than those are dropped.
    public mutating func insert(_ text: String) {
        let cleaned = Self.clean(text, isMultiline: isMultiline)
        guard !cleaned.isEmpty else { return }
        let before = String(characters[..<cursor]) + cleaned
        let joined = before + String(characters[cursor...])
        characters = Array(joined)
        cursor = min(Array(before).count, characters.count)
    }

    /// Replaces the whole text, cursor at the end.
    public mutating func replace(with text: String) {
        self = TextBuffer(text, isMultiline: isMultiline)
    }

    /// Backspace: removes the cluster before the cursor.
    public mutating func deleteBackward() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    /// Delete: removes the cluster after the cursor.
    public mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    /// Moves one cluster left.
    public mutating func moveLeft() { cursor = max(0, cursor - 1) }

    /// Moves one cluster right.
    public mutating func moveRight() { cursor = min(characters.count, cursor + 1) }

    /// Home, Ctrl-A: to the start of the current line.
    public mutating func moveToLineStart() { cursor = lineStart }

    /// End, Ctrl-E: to the end of the current line.
    public mutating func moveToLineEnd() { cursor = lineEnd }

    /// Ctrl-K: deletes from the cursor to the end of the line, or the line break itself
    /// when the cursor is already at the end of a line.
    public mutating func killToLineEnd() {
        let end = lineEnd
        if end == cursor {
            deleteForward()
        } else {
            characters.removeSubrange(cursor..<end)
        }
    }

    /// Ctrl-U: deletes from the start of the line to the cursor.
    public mutating func killToLineStart() {
        let start = lineStart
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    /// Alt-B, Ctrl-Left: to the start of this word, or of the one before when already there.
    public mutating func moveWordLeft() { cursor = wordStart }

    /// Alt-F, Ctrl-Right: to the end of this word, or of the next one when already there.
    public mutating func moveWordRight() { cursor = wordEnd }

    /// Ctrl-W: deletes from the start of the word before the cursor to the cursor.
    public mutating func deleteWordBackward() {
        let start = wordStart
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    /// Where Alt-B goes: back over anything that is not part of a word (spaces,
    /// punctuation, line breaks), then over the word's letters and digits.
    private var wordStart: Int {
        var index = cursor
        while index > 0 && !Self.isWordCharacter(characters[index - 1]) { index -= 1 }
        while index > 0 && Self.isWordCharacter(characters[index - 1]) { index -= 1 }
        return index
    }

    /// Where Alt-F goes: forward over what is not a word, then over the word.
    private var wordEnd: Int {
        var index = cursor
        while index < characters.count && !Self.isWordCharacter(characters[index]) { index += 1 }
        while index < characters.count && Self.isWordCharacter(characters[index]) { index += 1 }
        return index
    }

    /// Letters (CJK ideographs among them), digits and emoji make words.
    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
            || (character.unicodeScalars.first?.properties.isEmojiPresentation ?? false)
    }

    /// Moves to the line above, as the text wraps at `width` cells, keeping the column.
    public mutating func moveUp(wrappingAt width: Int) { moveVertically(by: -1, width: width) }

    /// Moves to the line below, as the text wraps at `width` cells, keeping the column.
    public mutating func moveDown(wrappingAt width: Int) { moveVertically(by: 1, width: width) }

    /// Whether the cursor is on the first line as wrapped at `width`.
    public func isOnFirstLine(wrappingAt width: Int) -> Bool {
        TextWidth.locate(offset: cursor, in: TextWidth.wrap(text, toWidth: max(1, width))).line == 0
    }

    /// Whether the cursor is on the last line as wrapped at `width`.
    public func isOnLastLine(wrappingAt width: Int) -> Bool {
        let lines = TextWidth.wrap(text, toWidth: max(1, width))
        return TextWidth.locate(offset: cursor, in: lines).line >= lines.count - 1
    }

    private var lineStart: Int {
        var index = cursor
        while index > 0, characters[index - 1] != "\n" { index -= 1 }
        return index
    }

    private var lineEnd: Int {
        var index = cursor
        while index < characters.count, characters[index] != "\n" { index += 1 }
        return index
    }

    private mutating func moveVertically(by delta: Int, width: Int) {
        let lines = TextWidth.wrap(text, toWidth: max(1, width))
        let location = TextWidth.locate(offset: cursor, in: lines)
        let target = location.line + delta
        guard lines.indices.contains(target) else {
            cursor = delta < 0 ? 0 : characters.count
            return
        }
        let line = lines[target]
        // Where a soft break consumed nothing, the line's end is the next line's start and
        // shows there; the last place on this line is before its last character.
        let wrapsWithoutBreak = lines.indices.contains(target + 1)
            && lines[target + 1].range.lowerBound == line.range.upperBound
        let end = wrapsWithoutBreak ? line.range.upperBound - 1 : line.range.upperBound
        var column = 0
        var offset = line.range.lowerBound
        while offset < end {
            let width = TextWidth.width(of: characters[offset])
            if column + width > location.column { break }
            column += width
            offset += 1
        }
        cursor = offset
    }

    private static func clean(_ text: String, isMultiline: Bool) -> String {
        var result = ""
        for character in text {
            switch character {
            // Every Unicode line break (U+2028 too, which the idea rules refuse), not only
            // CR and LF, so pasted text never leaves a field that can't be saved.
            case let lineBreak where lineBreak.isNewline:
                result.append(isMultiline ? "\n" : " ")
            case "\t":
                result.append(isMultiline ? "\t" : " ")
            default:
                if character.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) {
                    result.append(character)
                }
            }
        }
        return result
    }
}
