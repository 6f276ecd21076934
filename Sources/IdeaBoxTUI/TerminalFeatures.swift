import Foundation

/// What the terminal named by `TERM` can take beyond drawing: the clipboard (OSC 52) and
/// hyperlinks (OSC 8). Neither can be asked of a terminal and answered in time, so the rule
/// goes by name: the Linux console, `dumb` and the old hardware types (`vt100`, `vt220`…)
/// take neither; every emulator that draws in a window (xterm and its kin, tmux, screen,
/// kitty, alacritty, foot, wezterm…) takes both, or ignores what it does not know.
public struct TerminalFeatures: Sendable, Equatable {
    /// Whether `y` can put text on the clipboard.
    public var clipboard: Bool
    /// Whether links are sent as OSC 8.
    public var hyperlinks: Bool

    /// The features of the terminal `term`.
    public init(term: String) {
        let type = term.lowercased()
        let isConsole = type.isEmpty || type == "dumb" || type == "linux" || type.hasPrefix("linux-") || type.hasPrefix("vt")
            || type == "cons25" || type == "ansi"
        clipboard = !isConsole
        hyperlinks = !isConsole
    }

    /// OSC 52 asking the terminal to put `text` on the clipboard (`c`), BEL-terminated as
    /// xterm and tmux read it.
    public static func clipboardSequence(_ text: String) -> [UInt8] {
        Array("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}".utf8)
    }
}
