import CNcurses
import IdeaBoxViewModels

/// Turns raw terminal input (`wget_wch` results) into `Key`s: ncurses key codes, control
/// characters, ESC-prefixed Alt keys and escape sequences ncurses left undecoded, typed
/// text assembled into whole grapheme clusters, bracketed pastes as one `Key.paste`, and
/// SGR mouse reports (ESC [ < b ; x ; y M) as `Key.mouse`.
public struct KeyDecoder: Sendable {
    private enum State: Sendable {
        case ground
        case escape
        case controlSequence(String)
        case singleShift
        case paste
    }

    private static let escapeCharacter: Unicode.Scalar = "\u{1B}"
    private static let pasteStart = "200"
    private static let pasteEnd: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "1", "~"]

    private var state = State.ground
    private var typed = ""
    private var pasted: [Unicode.Scalar] = []

    /// A decoder with nothing pending.
    public init() {}

    /// Decodes one batch of input read together. The end of a batch means nothing else is
    /// waiting, so a lone ESC there is the Escape key; a paste still open at the end
    /// continues with the next batch.
    public mutating func decode(_ batch: [RawInput]) -> [Key] {
        var keys: [Key] = []
        for input in batch {
            consume(input, into: &keys)
        }
        flushTyped(into: &keys)
        switch state {
        case .escape:
            keys.append(.escape)
            state = .ground
        case .controlSequence(let parameters):
            if parameters.isEmpty { keys.append(.alt("[")) }
            state = .ground
        case .singleShift:
            keys.append(.alt("O"))
            state = .ground
        case .ground, .paste:
            break
        }
        return keys
    }

    private mutating func consume(_ input: RawInput, into keys: inout [Key]) {
        switch state {
        case .ground:
            consumeInGround(input, into: &keys)
        case .escape:
            consumeAfterEscape(input, into: &keys)
        case .controlSequence(let parameters):
            guard case .character(let scalar) = input, (0x20...0x7E).contains(scalar.value) else {
                state = .ground
                consumeInGround(input, into: &keys)
                return
            }
            if scalar.value < 0x40 {
                state = .controlSequence(parameters + String(scalar))
            } else {
                state = .ground
                finishControlSequence(parameters, final: scalar, into: &keys)
            }
        case .singleShift:
            state = .ground
            guard case .character(let scalar) = input else {
                consumeInGround(input, into: &keys)
                return
            }
            if let key = Self.singleShiftKey(scalar) { keys.append(key) }
        case .paste:
            guard case .character(let scalar) = input else { return }
            pasted.append(scalar)
            if scalar == "~" && pasted.suffix(Self.pasteEnd.count).elementsEqual(Self.pasteEnd) {
                pasted.removeLast(Self.pasteEnd.count)
                keys.append(.paste(Self.normalizedLineBreaks(pasted)))
                pasted = []
                state = .ground
            }
        }
    }

    private mutating func consumeInGround(_ input: RawInput, into keys: inout [Key]) {
        switch input {
        case .keyCode(let code):
            flushTyped(into: &keys)
            if let key = Self.key(forCode: code) { keys.append(key) }
        case .endOfInput:
            // The app's loop ends there; the decoder has nothing to make of it.
            flushTyped(into: &keys)
        case .character(let scalar):
            let value = scalar.value
            if value >= 0x20 && !(0x7F...0x9F).contains(value) {
                typed.unicodeScalars.append(scalar)
                return
            }
            flushTyped(into: &keys)
            switch value {
            case 0x1B: state = .escape
            case 0x0A, 0x0D: keys.append(.enter)
            case 0x09: keys.append(.tab)
            case 0x08, 0x7F: keys.append(.backspace)
            case 0x01...0x1A: keys.append(.ctrl(Character(Unicode.Scalar(0x60 + UInt8(value)))))
            default: break
            }
        }
    }

    private mutating func consumeAfterEscape(_ input: RawInput, into keys: inout [Key]) {
        state = .ground
        if case .character(let scalar) = input {
            switch scalar {
            case "[":
                state = .controlSequence("")
                return
            case "O":
                state = .singleShift
                return
            case Self.escapeCharacter:
                keys.append(.escape)
                state = .escape
                return
            default:
                if scalar.value > 0x20 && scalar.value != 0x7F {
                    keys.append(.alt(Character(scalar)))
                    return
                }
            }
        }
        keys.append(.escape)
        consumeInGround(input, into: &keys)
    }

    private mutating func finishControlSequence(_ parameters: String, final: Unicode.Scalar, into keys: inout [Key]) {
        if final == "~" && parameters == Self.pasteStart {
            state = .paste
            return
        }
        if parameters.hasPrefix("<") {
            if let event = Self.mouseEvent(parameters.dropFirst(), final: final) { keys.append(.mouse(event)) }
            return
        }
        if let key = Self.controlSequenceKey(parameters, final: final) { keys.append(key) }
    }

    private mutating func flushTyped(into keys: inout [Key]) {
        keys.append(contentsOf: typed.map(Key.char))
        typed = ""
    }

    private static func key(forCode code: Int32) -> Key? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_DC: .delete
        case KEY_BACKSPACE: .backspace
        case KEY_ENTER: .enter
        case KEY_BTAB: .backTab
        case KEY_RESIZE: .resize
        case KEY_F0 + 1...KEY_F0 + 63: .f(Int(code - KEY_F0))
        default: extendedKey(named: keyname(code).map { String(cString: $0) })
        }
    }

    /// Keys that terminfo lists under extended names, with a modifier number: 3 is Alt and
    /// 5 is Ctrl (`kLFT5` is Ctrl-Left).
    private static func extendedKey(named name: String?) -> Key? {
        switch name {
        case "kLFT3", "kLFT5": .wordLeft
        case "kRIT3", "kRIT5": .wordRight
        default: nil
        }
    }

    /// A press of the left button or a turn of the wheel from an SGR mouse report
    /// (`b;x;y`, 1-based cells, final `M` for a press and `m` for a release); other buttons,
    /// releases and motion are not used.
    private static func mouseEvent(_ parameters: Substring, final: Unicode.Scalar) -> MouseEvent? {
        let numbers = parameters.split(separator: ";").compactMap { Int($0) }
        guard final == "M", numbers.count == 3, numbers[1] >= 1, numbers[2] >= 1 else { return nil }
        let (row, column) = (numbers[2] - 1, numbers[1] - 1)
        let modifiers = 4 | 8 | 16
        switch numbers[0] & ~modifiers {
        case 0: return MouseEvent(.press, row: row, column: column)
        case 64: return MouseEvent(.wheelUp, row: row, column: column)
        case 65: return MouseEvent(.wheelDown, row: row, column: column)
        default: return nil
        }
    }

    /// Keys from CSI sequences (ESC [ parameters final) that ncurses did not decode
    /// because the terminfo entry lacks them; of the modifiers only Ctrl and Alt on the left
    /// and right arrows count (a word back or forward).
    private static func controlSequenceKey(_ parameters: String, final: Unicode.Scalar) -> Key? {
        let modifier = parameters.split(separator: ";").dropFirst().first.flatMap { Int($0) }
        if modifier == 3 || modifier == 5 {
            if final == "D" { return .wordLeft }
            if final == "C" { return .wordRight }
        }
        switch final {
        case "A": return .up
        case "B": return .down
        case "C": return .right
        case "D": return .left
        case "H": return .home
        case "F": return .end
        case "Z": return .backTab
        case "P", "Q", "R", "S": return .f(Int(final.value - ("P" as Unicode.Scalar).value) + 1)
        case "~": break
        default: return nil
        }
        switch Int(parameters.split(separator: ";").first ?? "") {
        case 1, 7: return .home
        case 4, 8: return .end
        case 3: return .delete
        case 5: return .pageUp
        case 6: return .pageDown
        case let number? where (11...15).contains(number): return .f(number - 10)
        case let number? where (17...21).contains(number): return .f(number - 11)
        case let number? where (23...24).contains(number): return .f(number - 12)
        default: return nil
        }
    }

    /// Keys from SS3 sequences (ESC O final), sent by terminals in application keypad mode.
    private static func singleShiftKey(_ final: Unicode.Scalar) -> Key? {
        switch final {
        case "A": .up
        case "B": .down
        case "C": .right
        case "D": .left
        case "H": .home
        case "F": .end
        case "M": .enter
        case "P", "Q", "R", "S": .f(Int(final.value - ("P" as Unicode.Scalar).value) + 1)
        default: nil
        }
    }

    /// Pasted text with CR LF and lone CR (what terminals send for Enter) turned into "\n".
    private static func normalizedLineBreaks(_ scalars: [Unicode.Scalar]) -> String {
        var text = String.UnicodeScalarView()
        var previousWasReturn = false
        for scalar in scalars {
            if scalar == "\n" && previousWasReturn {
                previousWasReturn = false
                continue
            }
            previousWasReturn = scalar == "\r"
            text.append(previousWasReturn ? "\n" : scalar)
        }
        return String(text)
    }
}
