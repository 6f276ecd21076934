import IdeaBoxViewModels
import Testing

@Suite struct TextWidthTests {
    @Test(arguments: [
        ("a", 1), ("~", 1), ("é", 1), ("e\u{301}", 1), ("─", 1), ("…", 1),
        ("中", 2), ("。", 2), ("ｆ", 2), ("한", 2), ("\u{1100}\u{1161}", 2),
        ("😀", 2), ("👍🏽", 2), ("👩‍💻", 2), ("👨‍👩‍👧‍👦", 2), ("🏳️‍🌈", 2), ("❤️", 2), ("1️⃣", 2), ("🇺🇸", 2),
        ("❤", 1), ("🇺", 1),
        ("\t", 0), ("\n", 0), ("\r\n", 0), ("\u{7}", 0), ("\u{85}", 0), ("\u{301}", 0), ("\u{200B}", 0),
    ] as [(Character, Int)])
    func characterWidth(character: Character, expected: Int) {
        #expect(TextWidth.width(of: character) == expected)
    }

    @Test func scalarWidthFollowsGlibc() {
        #expect(TextWidth.width(of: "a" as Unicode.Scalar) == 1)
        #expect(TextWidth.width(of: "\u{3000}" as Unicode.Scalar) == 2)
        #expect(TextWidth.width(of: "\u{1F3FD}" as Unicode.Scalar) == 2)
        #expect(TextWidth.width(of: "\u{FE0F}" as Unicode.Scalar) == 0)
        #expect(TextWidth.width(of: "\u{1160}" as Unicode.Scalar) == 0)
        #expect(TextWidth.width(of: "\u{1B}" as Unicode.Scalar) == 0)
        #expect(TextWidth.width(of: "\u{10FFFD}" as Unicode.Scalar) == 1)
    }

    @Test func stringWidthAddsClusters() {
        #expect(TextWidth.width(of: "") == 0)
        #expect(TextWidth.width(of: "IdeaBox") == 7)
        #expect(TextWidth.width(of: "全部靈感") == 8)
        #expect(TextWidth.width(of: "ok 👍🏽 中") == 8)
        #expect(TextWidth.width(of: "a\tb") == 2)
        #expect(TextWidth.width(of: "中文"[...]) == 4)
    }

    @Test func truncateCutsByWidthWithoutSplittingWideCharacters() {
        #expect(TextWidth.truncate("hello", toWidth: 5) == "hello")
        #expect(TextWidth.truncate("hello", toWidth: 3) == "hel")
        #expect(TextWidth.truncate("中文字", toWidth: 5) == "中文")
        #expect(TextWidth.truncate("中文字", toWidth: 1) == "")
        #expect(TextWidth.truncate("a👩‍💻b", toWidth: 2) == "a")
        #expect(TextWidth.truncate("hello", toWidth: 0) == "")
        #expect(TextWidth.truncate("hello", toWidth: -1) == "")
    }

    @Test func truncateWithEllipsisStaysWithinTheWidth() {
        #expect(TextWidth.truncate("hello", toWidth: 5, ellipsis: true) == "hello")
        #expect(TextWidth.truncate("hello world", toWidth: 6, ellipsis: true) == "hello…")
        #expect(TextWidth.truncate("中文字", toWidth: 5, ellipsis: true) == "中文…")
        #expect(TextWidth.truncate("中文字", toWidth: 4, ellipsis: true) == "中…")
        #expect(TextWidth.truncate("hello", toWidth: 1, ellipsis: true) == "…")
        #expect(TextWidth.truncate("hello", toWidth: 0, ellipsis: true) == "")
    }

    @Test func padFillsToExactlyTheWidth() {
        #expect(TextWidth.pad("ab", toWidth: 4) == "ab  ")
        #expect(TextWidth.pad("中", toWidth: 3) == "中 ")
        #expect(TextWidth.pad("中文字", toWidth: 5) == "中文 ")
        #expect(TextWidth.pad("7", toWidth: 3, alignment: .trailing) == "  7")
        #expect(TextWidth.pad("abc", toWidth: 0) == "")
    }

    @Test func wrapBreaksAfterTheLastSpaceThatFits() {
        let lines = TextWidth.wrap("hello big world", toWidth: 9)
        #expect(lines.map(\.text) == ["hello big", "world"])
        #expect(lines.map(\.range) == [0..<9, 10..<15])
        #expect(lines.map(\.width) == [9, 5])
    }

    @Test func wrapCarriesTheUnfinishedWordToTheNextLine() {
        let lines = TextWidth.wrap("one two three", toWidth: 10)
        #expect(lines.map(\.text) == ["one two", "three"])
        #expect(lines.map(\.range) == [0..<7, 8..<13])
    }

    @Test func wrapCutsWordsLongerThanALine() {
        #expect(TextWidth.wrap("abcdefghij", toWidth: 4).map(\.text) == ["abcd", "efgh", "ij"])
    }

    @Test func wrapBreaksBetweenWideCharactersAnywhere() {
        #expect(TextWidth.wrap("中文字符串", toWidth: 4).map(\.text) == ["中文", "字符", "串"])
        #expect(TextWidth.wrap("ab中文", toWidth: 3).map(\.text) == ["ab", "中", "文"])
        #expect(TextWidth.wrap("我喜欢 Swift 语言", toWidth: 8).map(\.text) == ["我喜欢", "Swift 语", "言"])
    }

    @Test func wrapHonoursHardBreaks() {
        let lines = TextWidth.wrap("a\n\nbc\n", toWidth: 10)
        #expect(lines.map(\.text) == ["a", "", "bc", ""])
        #expect(lines.map(\.range) == [0..<1, 2..<2, 3..<5, 6..<6])
    }

    @Test func wrapOfEmptyTextIsOneEmptyLine() {
        let lines = TextWidth.wrap("", toWidth: 5)
        #expect(lines.map(\.text) == [""])
        #expect(lines.map(\.range) == [0..<0])
    }

    @Test func wrapGivesAWideCharacterItsOwnLineWhenNothingFits() {
        #expect(TextWidth.wrap("中a", toWidth: 1).map(\.text) == ["中", "a"])
    }

    @Test func locateMapsOffsetsToLinesAndColumns() {
        let lines = TextWidth.wrap("hello world", toWidth: 5)
        #expect(TextWidth.locate(offset: 0, in: lines) == TextLocation(line: 0, column: 0))
        #expect(TextWidth.locate(offset: 5, in: lines) == TextLocation(line: 0, column: 5))
        #expect(TextWidth.locate(offset: 6, in: lines) == TextLocation(line: 1, column: 0))
        #expect(TextWidth.locate(offset: 11, in: lines) == TextLocation(line: 1, column: 5))
        #expect(TextWidth.locate(offset: 99, in: lines) == TextLocation(line: 1, column: 5))
    }

    @Test func locateStartsTheNextLineAtABreakThatConsumedNothing() {
        let lines = TextWidth.wrap("中文字", toWidth: 4)
        #expect(TextWidth.locate(offset: 1, in: lines) == TextLocation(line: 0, column: 2))
        #expect(TextWidth.locate(offset: 2, in: lines) == TextLocation(line: 1, column: 0))
        #expect(TextWidth.locate(offset: 3, in: lines) == TextLocation(line: 1, column: 2))
    }

    @Test func locateAfterANewlineIsTheStartOfTheNextLine() {
        let lines = TextWidth.wrap("ab\n", toWidth: 5)
        #expect(TextWidth.locate(offset: 2, in: lines) == TextLocation(line: 0, column: 2))
        #expect(TextWidth.locate(offset: 3, in: lines) == TextLocation(line: 1, column: 0))
    }
}
