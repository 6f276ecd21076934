import IdeaBoxViewModels
import IdeaModel
import Testing

/// Editing text one grapheme cluster at a time: wide characters, emoji and combining marks
/// are never split, and the cursor always sits between two clusters.
@Suite struct TextBufferTests {
    private static let thumbsUp = "👍🏽"
    private static let technologist = "👩‍💻"
    private static let eAcute = "e\u{301}"

    /// Cluster texts that each must behave as one unit.
    static let clusters = ["中", "文", thumbsUp, technologist, eAcute, "🇹🇼", "a"]

    @Test func emptyBufferStartsWithTheCursorAtZero() {
        let buffer = TextBuffer()
        #expect(buffer.text == "")
        #expect(buffer.count == 0)
        #expect(buffer.cursor == 0)
        #expect(!buffer.isMultiline)
    }

    @Test func startsWithTheCursorAtTheEnd() {
        let buffer = TextBuffer("中文👍🏽", isMultiline: true)
        #expect(buffer.cursor == 3)
        #expect(buffer.count == 3)
        #expect(buffer.isMultiline)
    }

    @Test("Every cluster counts as one character and is removed whole", arguments: clusters)
    func clusterIsOneUnit(cluster: String) {
        var buffer = TextBuffer("x")
        buffer.insert(cluster)
        buffer.insert("y")
        #expect(buffer.count == 3)
        #expect(buffer.cursor == 3)
        buffer.moveLeft()
        buffer.deleteBackward()
        #expect(buffer.text == "xy")
        #expect(buffer.cursor == 1)
        buffer.moveLeft()
        buffer.insert(cluster)
        #expect(buffer.text == cluster + "xy")
        #expect(buffer.cursor == 1)
        buffer.moveToLineStart()
        buffer.deleteForward()
        #expect(buffer.text == "xy")
        buffer.replace(with: "x" + cluster + "y")
        buffer.moveLeft()
        buffer.moveLeft()
        #expect(buffer.cursor == 1)
        buffer.deleteForward()
        #expect(buffer.text == "xy")
    }

    @Test func insertsAtTheCursorWithWideCharacters() {
        var buffer = TextBuffer("中文")
        buffer.moveLeft()
        buffer.insert("英")
        #expect(buffer.text == "中英文")
        #expect(buffer.cursor == 2)
        buffer.moveToLineStart()
        buffer.insert(Self.thumbsUp)
        #expect(buffer.text == "👍🏽中英文")
        #expect(buffer.cursor == 1)
        buffer.moveToLineEnd()
        buffer.insert(Self.technologist)
        #expect(buffer.text == "👍🏽中英文👩‍💻")
        #expect(buffer.cursor == 5)
        #expect(buffer.characters == ["👍🏽", "中", "英", "文", "👩‍💻"])
    }

    @Test func backspaceAndDeleteRemoveWholeClusters() {
        var buffer = TextBuffer("a\(Self.thumbsUp)\(Self.technologist)\(Self.eAcute)中")
        #expect(buffer.count == 5)
        buffer.deleteBackward()
        #expect(buffer.text == "a👍🏽👩‍💻e\u{301}")
        buffer.deleteBackward()
        #expect(buffer.text == "a👍🏽👩‍💻")
        buffer.moveLeft()
        buffer.moveLeft()
        #expect(buffer.cursor == 1)
        buffer.deleteForward()
        #expect(buffer.text == "a👩‍💻")
        buffer.deleteForward()
        #expect(buffer.text == "a")
        #expect(buffer.cursor == 1)
        buffer.deleteForward()
        #expect(buffer.text == "a")
        buffer.deleteBackward()
        buffer.deleteBackward()
        #expect(buffer.text == "")
        #expect(buffer.cursor == 0)
    }

    @Test func aSkinToneTypedAfterItsEmojiJoinsIt() {
        var buffer = TextBuffer()
        buffer.insert("👍")
        buffer.insert("🏽")
        #expect(buffer.characters == ["👍🏽"])
        #expect(buffer.cursor == 1)
        buffer.insert("e")
        buffer.insert("\u{301}")
        #expect(buffer.characters == ["👍🏽", "é"])
        #expect(buffer.cursor == 2)
        buffer.deleteBackward()
        #expect(buffer.text == "👍🏽")
    }

    @Test func leftAndRightStopAtTheEnds() {
        var buffer = TextBuffer("中👩‍💻")
        buffer.moveRight()
        #expect(buffer.cursor == 2)
        buffer.moveLeft()
        #expect(buffer.cursor == 1)
        buffer.moveLeft()
        buffer.moveLeft()
        #expect(buffer.cursor == 0)
        buffer.moveRight()
        buffer.moveRight()
        buffer.moveRight()
        #expect(buffer.cursor == 2)
    }

    @Test func homeAndEndWorkPerLine() {
        var buffer = TextBuffer("first 中\nsecond 👍🏽\nthird", isMultiline: true)
        #expect(buffer.cursor == buffer.count)
        buffer.moveToLineStart()
        #expect(buffer.cursor == 17)
        #expect(buffer.characters[buffer.cursor] == "t")
        buffer.moveLeft()
        buffer.moveToLineStart()
        #expect(buffer.cursor == 8)
        buffer.moveToLineEnd()
        #expect(buffer.cursor == 16)
        #expect(buffer.characters[buffer.cursor] == "\n")
        buffer.moveToLineEnd()
        #expect(buffer.cursor == 16)
        buffer.replace(with: "one\ntwo")
        buffer.moveToLineStart()
        buffer.moveLeft()
        buffer.moveToLineStart()
        #expect(buffer.cursor == 0)
        buffer.moveToLineEnd()
        #expect(buffer.cursor == 3)
    }

    @Test func killToLineEndCutsTheRestOfTheLineOrJoinsTheNext() {
        var buffer = TextBuffer("中文👍🏽 one\ntwo", isMultiline: true)
        buffer.moveToLineStart()
        buffer.moveLeft()
        buffer.moveToLineStart()
        buffer.moveRight()
        buffer.killToLineEnd()
        #expect(buffer.text == "中\ntwo")
        #expect(buffer.cursor == 1)
        buffer.killToLineEnd()
        #expect(buffer.text == "中two")
        #expect(buffer.cursor == 1)
        buffer.moveToLineEnd()
        buffer.killToLineEnd()
        #expect(buffer.text == "中two")
    }

    @Test func killToLineStartCutsBackToTheLineStart() {
        var buffer = TextBuffer("keep\n中文👩‍💻 gone", isMultiline: true)
        buffer.moveLeft()
        buffer.moveLeft()
        buffer.moveLeft()
        buffer.moveLeft()
        buffer.killToLineStart()
        #expect(buffer.text == "keep\ngone")
        #expect(buffer.cursor == 5)
        buffer.killToLineStart()
        #expect(buffer.text == "keep\ngone")
        var line = TextBuffer("👍🏽e\u{301}x")
        line.moveLeft()
        line.killToLineStart()
        #expect(line.text == "x")
        #expect(line.cursor == 0)
    }

    @Test func oneLineBufferFlattensLineBreaksAndTabsAndDropsControls() {
        var buffer = TextBuffer("a\nb\r\nc\rd\te")
        #expect(buffer.text == "a b c d e")
        buffer.replace(with: "")
        buffer.insert("x\u{7}y\u{1B}[2Jz\u{0}\u{7F}")
        #expect(buffer.text == "xy[2Jz")
        #expect(buffer.cursor == 6)
        buffer.insert("\n")
        #expect(buffer.text == "xy[2Jz ")
    }

    @Test("Every kind of line break is a line break", arguments: ["\u{2028}", "\u{2029}", "\u{85}", "\u{0B}", "\u{0C}"])
    func unicodeLineBreaks(separator: String) throws {
        var title = TextBuffer()
        title.insert("one" + separator + "two")
        #expect(title.text == "one two")
        #expect(try IdeaRules.normalizedTitle(title.text) == "one two")
        var description = TextBuffer(isMultiline: true)
        description.insert("one" + separator + "two")
        #expect(description.text == "one\ntwo")
        #expect(try IdeaRules.normalizedDescription(description.text) == "one\ntwo")
    }

    @Test func multiLineBufferKeepsLineBreaksAndTabs() {
        var buffer = TextBuffer(isMultiline: true)
        buffer.insert("a\r\nb\rc\nd\te\u{7}")
        #expect(buffer.text == "a\nb\nc\nd\te")
        #expect(buffer.cursor == buffer.count)
    }

    @Test func aLongMixedPasteArrivesWholeAndInOrder() throws {
        let piece = "Idea 靈感 👍🏽 👩‍💻 café e\u{301} 🇹🇼 "
        var paste = ""
        while paste.count < 2000 { paste += piece }
        paste = String(paste.prefix(2000))
        #expect(paste.count == 2000)

        var buffer = TextBuffer("[]")
        buffer.moveLeft()
        buffer.insert(paste)
        #expect(buffer.text == "[" + paste + "]")
        #expect(buffer.count == 2002)
        #expect(buffer.cursor == 2001)

        var multiline = TextBuffer(isMultiline: true)
        let lines = (1...100).map { "line \($0): \(piece)" }.joined(separator: "\n")
        multiline.insert(lines)
        #expect(multiline.text == lines)
    }

    @Test func pasteTypedKeyByKeyMatchesPasteInOnePiece() {
        let text = "中文 👍🏽 e\u{301} 👩‍💻 end"
        var typed = TextBuffer()
        for character in text { typed.insert(String(character)) }
        var pasted = TextBuffer()
        pasted.insert(text)
        #expect(typed == pasted)
    }

    @Test func replaceCleansAndPutsTheCursorAtTheEnd() {
        var buffer = TextBuffer("old", isMultiline: false)
        buffer.moveToLineStart()
        buffer.replace(with: "new\nline")
        #expect(buffer.text == "new line")
        #expect(buffer.cursor == 8)
        #expect(!buffer.isMultiline)
    }

    // MARK: Up and down by wrapped lines

    @Test func upAndDownFollowHardLinesKeepingTheColumn() {
        var buffer = TextBuffer("abcdef\nxy\nlong line", isMultiline: true)
        buffer.moveUp(wrappingAt: 40)
        #expect(buffer.cursor == 9, "column 9 is past the end of \"xy\"")
        buffer.moveUp(wrappingAt: 40)
        #expect(buffer.cursor == 2)
        buffer.moveToLineStart()
        buffer.moveRight()
        buffer.moveDown(wrappingAt: 40)
        #expect(buffer.cursor == 8)
        buffer.moveDown(wrappingAt: 40)
        #expect(buffer.cursor == 11)
        buffer.moveDown(wrappingAt: 40)
        #expect(buffer.cursor == buffer.count, "down on the last line goes to the end")
        buffer.moveToLineStart()
        buffer.moveUp(wrappingAt: 40)
        buffer.moveUp(wrappingAt: 40)
        #expect(buffer.cursor == 0)
        buffer.moveRight()
        buffer.moveUp(wrappingAt: 40)
        #expect(buffer.cursor == 0, "up on the first line goes to the start")
    }

    @Test func upAndDownFollowSoftWrappedLines() {
        // At width 10: "aaaa bbbb" / "cccc dddd" / "eeee", the spaces at the breaks consumed.
        var buffer = TextBuffer("aaaa bbbb cccc dddd eeee", isMultiline: true)
        #expect(buffer.isOnLastLine(wrappingAt: 10))
        #expect(!buffer.isOnFirstLine(wrappingAt: 10))
        buffer.moveUp(wrappingAt: 10)
        #expect(buffer.cursor == 14)
        buffer.moveUp(wrappingAt: 10)
        #expect(buffer.cursor == 4)
        #expect(buffer.isOnFirstLine(wrappingAt: 10))
        buffer.moveDown(wrappingAt: 10)
        #expect(buffer.cursor == 14)
        #expect(!buffer.isOnFirstLine(wrappingAt: 10))
        #expect(!buffer.isOnLastLine(wrappingAt: 10))
        buffer.moveDown(wrappingAt: 10)
        #expect(buffer.cursor == 24)
    }

    @Test func upAndDownNeverLandInsideAWideCharacter() {
        // 中 takes columns 0-1 of the second line and 文 columns 2-3.
        var buffer = TextBuffer("abc中文\n中文ab", isMultiline: true)
        buffer.moveToLineStart()
        buffer.moveUp(wrappingAt: 7)
        buffer.moveToLineStart()
        buffer.moveRight()
        buffer.moveRight()
        buffer.moveRight()
        #expect(buffer.cursor == 3)
        buffer.moveDown(wrappingAt: 7)
        #expect(buffer.cursor == 7, "column 3 is inside 文: the cursor goes before it")
        buffer.moveUp(wrappingAt: 7)
        #expect(buffer.cursor == 2, "column 2 is between b and c")
        buffer.moveToLineEnd()
        #expect(buffer.cursor == 5)
        buffer.moveLeft()
        buffer.moveDown(wrappingAt: 7)
        #expect(buffer.cursor == 9, "column 5 is after 中文a")
        buffer.moveLeft()
        buffer.moveUp(wrappingAt: 7)
        #expect(buffer.cursor == 3, "column 4 is inside 中 on the first line: the cursor goes before it")
    }

    private static let wrappingText = "aaaaaaaaaa bbbbbbbbbbcccccccccc dd 中文中文中文中文 end 👩‍💻👍🏽e\u{301}x"

    private static func line(of buffer: TextBuffer, width: Int) -> Int {
        TextWidth.locate(offset: buffer.cursor, in: TextWidth.wrap(buffer.text, toWidth: width)).line
    }

    @Test("Up from the end moves exactly one wrapped line at a time", arguments: [3, 6, 7, 10, 12, 21])
    func upMovesOneWrappedLine(width: Int) {
        var buffer = TextBuffer(Self.wrappingText, isMultiline: true)
        let lineCount = TextWidth.wrap(buffer.text, toWidth: width).count
        var line = Self.line(of: buffer, width: width)
        #expect(line == lineCount - 1)
        while line > 0 {
            buffer.moveUp(wrappingAt: width)
            let next = Self.line(of: buffer, width: width)
            #expect(next == line - 1, "from line \(line) at width \(width)")
            guard next < line else { return }
            line = next
        }
    }

    @Test("Down from the end of each line moves exactly one wrapped line", arguments: [3, 6, 7, 10, 12, 21])
    func downMovesOneWrappedLine(width: Int) {
        var buffer = TextBuffer(Self.wrappingText, isMultiline: true)
        let lines = TextWidth.wrap(buffer.text, toWidth: width)
        buffer.moveToLineStart()
        // The furthest place on the first line: its last cluster's boundary that still shows there.
        while buffer.cursor < buffer.count {
            buffer.moveRight()
            if Self.line(of: buffer, width: width) != 0 {
                buffer.moveLeft()
                break
            }
        }
        var line = 0
        while line < lines.count - 1 {
            buffer.moveDown(wrappingAt: width)
            let next = Self.line(of: buffer, width: width)
            #expect(next == line + 1, "from line \(line) at width \(width)")
            guard next > line else { return }
            line = next
        }
    }

    @Test func downFromTheEndOfALineThatFillsTheWidthGoesToTheNextLine() {
        // At width 10: "aaaaaaaaaa" / "bbbbbbbbbb" / "cc": the second line ends where the
        // third starts, so the cursor must stop just before that.
        var buffer = TextBuffer("aaaaaaaaaa bbbbbbbbbbcc", isMultiline: true)
        buffer.moveToLineStart()
        for _ in 0..<10 { buffer.moveRight() }
        #expect(Self.line(of: buffer, width: 10) == 0)
        buffer.moveDown(wrappingAt: 10)
        #expect(Self.line(of: buffer, width: 10) == 1)
        #expect(buffer.cursor == 20)
    }

    @Test func upFromTheEndOfAFullLineGoesToTheLineAbove() {
        // At width 10: "aaaaaaaaaa" / "bbbbbbbbbb" / "cccccccccc".
        var buffer = TextBuffer("aaaaaaaaaa bbbbbbbbbbcccccccccc", isMultiline: true)
        #expect(Self.line(of: buffer, width: 10) == 2)
        buffer.moveUp(wrappingAt: 10)
        #expect(Self.line(of: buffer, width: 10) == 1)
        #expect(buffer.cursor == 20)
    }

    @Test("apply: typing and deleting edit the text, moves only move, and a key no field edits with is left to the field's owner")
    func applyTellsWhatAKeyDid() {
        var buffer = TextBuffer("靈感")
        #expect(buffer.apply(.char("!")) == .edited)
        #expect(buffer.apply(.ctrl("b")) == .moved)
        #expect(buffer.apply(.ctrl("d")) == .edited)
        #expect(buffer.text == "靈感" && buffer.cursor == 2)
        #expect(buffer.apply(.ctrl("a")) == .moved && buffer.cursor == 0)
        #expect(buffer.apply(.ctrl("f")) == .moved && buffer.cursor == 1)
        #expect(buffer.apply(.ctrl("k")) == .edited && buffer.text == "靈")
        #expect(buffer.apply(.enter) == .notEditing && buffer.apply(.ctrl("s")) == .notEditing)
        #expect(buffer.text == "靈")
    }
}
