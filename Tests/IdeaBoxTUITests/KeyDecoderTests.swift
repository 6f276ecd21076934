import CNcurses
import IdeaBoxTUI
import IdeaBoxViewModels
import Testing

@Suite struct KeyDecoderTests {
    private func characters(_ text: String) -> [RawInput] {
        text.unicodeScalars.map(RawInput.character)
    }

    private func decode(_ batches: [RawInput]...) -> [Key] {
        var decoder = KeyDecoder()
        return batches.flatMap { decoder.decode($0) }
    }

    @Test func typedTextArrivesAsCharacters() {
        #expect(decode(characters("aZ 1")) == [.char("a"), .char("Z"), .char(" "), .char("1")])
        #expect(decode(characters("中文")) == [.char("中"), .char("文")])
    }

    @Test func scalarsOfOneClusterAssembleIntoOneCharacter() {
        #expect(decode(characters("👍🏽👩‍💻e\u{301}🇺🇸")) == [.char("👍🏽"), .char("👩‍💻"), .char("e\u{301}"), .char("🇺🇸")])
    }

    @Test func controlCharactersAreNamedKeys() {
        #expect(decode(characters("\r\n\t\u{7F}\u{8}")) == [.enter, .enter, .tab, .backspace, .backspace])
    }

    @Test func controlLettersAreCtrlKeys() {
        #expect(decode(characters("\u{1}\u{3}\u{13}\u{1A}")) == [.ctrl("a"), .ctrl("c"), .ctrl("s"), .ctrl("z")])
    }

    @Test func otherControlCharactersAreIgnored() {
        #expect(decode(characters("\u{0}\u{1C}\u{9B}x")) == [.char("x")])
    }

    @Test(arguments: [
        (KEY_UP, Key.up), (KEY_DOWN, .down), (KEY_LEFT, .left), (KEY_RIGHT, .right),
        (KEY_HOME, .home), (KEY_END, .end), (KEY_PPAGE, .pageUp), (KEY_NPAGE, .pageDown),
        (KEY_DC, .delete), (KEY_BACKSPACE, .backspace), (KEY_ENTER, .enter), (KEY_BTAB, .backTab),
        (KEY_RESIZE, .resize), (KEY_F0 + 1, .f(1)), (KEY_F0 + 2, .f(2)), (KEY_F0 + 12, .f(12)),
    ])
    func ncursesKeyCodes(code: Int32, key: Key) {
        #expect(decode([.keyCode(code)]) == [key])
    }

    @Test func unknownKeyCodesAreIgnored() {
        #expect(decode([.keyCode(KEY_MOUSE), .character("a")]) == [.char("a")])
    }

    @Test func keysKeepTheirOrderAroundTypedText() {
        let input = characters("ab") + [.keyCode(KEY_LEFT)] + characters("c\r")
        #expect(decode(input) == [.char("a"), .char("b"), .left, .char("c"), .enter])
    }

    @Test func escapeAtTheEndOfABatchIsTheEscapeKey() {
        #expect(decode(characters("\u{1B}")) == [.escape])
        #expect(decode(characters("\u{1B}\u{1B}")) == [.escape, .escape])
        #expect(decode(characters("a\u{1B}"), characters("b")) == [.char("a"), .escape, .char("b")])
    }

    @Test func escapeBeforeACharacterIsAlt() {
        #expect(decode(characters("\u{1B}x\u{1B}中")) == [.alt("x"), .alt("中")])
    }

    @Test func escapeBeforeAControlOrKeyCodeIsEscapeThenThatKey() {
        #expect(decode(characters("\u{1B}\r")) == [.escape, .enter])
        #expect(decode(characters("\u{1B}") + [.keyCode(KEY_UP)]) == [.escape, .up])
    }

    @Test(arguments: [
        ("[A", Key.up), ("[B", .down), ("[C", .right), ("[D", .left), ("[H", .home), ("[F", .end),
        ("[Z", .backTab), ("[1;2C", .right), ("[1~", .home), ("[4~", .end), ("[3~", .delete),
        ("[5~", .pageUp), ("[6~", .pageDown), ("[15~", .f(5)), ("[24~", .f(12)), ("[1;2P", .f(1)),
        ("OA", .up), ("OH", .home), ("OM", .enter), ("OP", .f(1)), ("OS", .f(4)),
    ])
    func escapeSequencesNcursesLeftAlone(sequence: String, key: Key) {
        #expect(decode(characters("\u{1B}" + sequence)) == [key])
    }

    @Test func unknownEscapeSequencesAreDropped() {
        #expect(decode(characters("\u{1B}[99~x\u{1B}[2~\u{1B}Ozy")) == [.char("x"), .char("y")])
    }

    @Test func aBrokenEscapeSequenceGivesWayToWhatFollows() {
        #expect(decode(characters("\u{1B}[1\r")) == [.enter])
        #expect(decode(characters("\u{1B}[")) == [.alt("[")])
        #expect(decode(characters("\u{1B}O")) == [.alt("O")])
        #expect(decode(characters("\u{1B}[12"), characters("x")) == [.char("x")])
    }

    @Test func aBracketedPasteIsOneKey() {
        let input = characters("a\u{1B}[200~line 1\r\nline 2\r中 👍🏽\u{1B}[201~b")
        #expect(decode(input) == [.char("a"), .paste("line 1\nline 2\n中 👍🏽"), .char("b")])
    }

    @Test func aPasteSpreadOverBatchesArrivesWhole() {
        let keys = decode(characters("\u{1B}[200~one"), characters(" two\u{1B}"), characters("[201"), characters("~"))
        #expect(keys == [.paste("one two")])
    }

    @Test func aPasteKeepsEscapesThatDoNotEndIt() {
        #expect(decode(characters("\u{1B}[200~a\u{1B}[201x\u{1B}[201~")) == [.paste("a\u{1B}[201x")])
    }

    @Test func keyCodesInsideAPasteAreIgnored() {
        let input = characters("\u{1B}[200~a") + [.keyCode(KEY_UP)] + characters("b\u{1B}[201~")
        #expect(decode(input) == [.paste("ab")])
    }

    @Test func anEmptyPasteIsStillAPaste() {
        #expect(decode(characters("\u{1B}[200~\u{1B}[201~")) == [.paste("")])
    }

    @Test func sgrMouseReportsArePressesAndWheelTurnsAtZeroBasedCells() {
        #expect(decode(characters("\u{1B}[<0;10;5M")) == [.mouse(MouseEvent(.press, row: 4, column: 9))])
        #expect(decode(characters("\u{1B}[<64;1;1M\u{1B}[<65;2;3M")) == [
            .mouse(MouseEvent(.wheelUp, row: 0, column: 0)), .mouse(MouseEvent(.wheelDown, row: 2, column: 1)),
        ])
        // A press with Ctrl held is still a press; releases, other buttons and motion are dropped.
        #expect(decode(characters("\u{1B}[<16;3;3M")) == [.mouse(MouseEvent(.press, row: 2, column: 2))])
        #expect(decode(characters("\u{1B}[<0;10;5m\u{1B}[<2;1;1M\u{1B}[<32;4;4Mx")) == [.char("x")])
    }

    @Test func ctrlAndAltArrowsMoveByWord() {
        #expect(decode(characters("\u{1B}[1;5D\u{1B}[1;5C\u{1B}[1;3D\u{1B}[1;2D")) == [.wordLeft, .wordRight, .wordLeft, .left])
    }

    @Test func endOfInputEndsNothingButTheBatch() {
        #expect(decode(characters("ab") + [.endOfInput]) == [.char("a"), .char("b")])
    }
}
