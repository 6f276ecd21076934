/// Which of the terminal's sixteen colors each of the app's named colors is drawn in: a
/// theme (`default`, `light`), with the config file's per-element colors over it.
public struct TerminalPalette: Sendable, Equatable {
    /// The terminal color of each named color; a missing one is the terminal's own.
    public var colors: [CellColor: TerminalColor]

    /// A palette of these colors.
    public init(colors: [CellColor: TerminalColor]) {
        self.colors = colors
    }

    /// For a dark background (and the app's look before themes).
    public static let standard = TerminalPalette(colors: [
        .accent: .cyan, .muted: .brightBlack, .error: .red, .success: .green, .highlight: .yellow,
    ])

    /// For a light background: no yellow or cyan, which fade into white.
    public static let light = TerminalPalette(colors: [
        .accent: .blue, .muted: .brightBlack, .error: .red, .success: .green, .highlight: .magenta,
    ])

    /// The SGR parameter for `color`'s foreground, nil for the terminal's own. Without the
    /// bright half (8 colors) a bright color falls back to its plain one, and bright black
    /// (muted text) to white, which stays readable where black would not.
    func foreground(_ color: CellColor, hasBrightColors: Bool) -> String? {
        guard let terminalColor = colors[color], let index = terminalColor.index else { return nil }
        if index < 8 { return "\(30 + index)" }
        if hasBrightColors { return "\(90 + index - 8)" }
        return index == 8 ? "37" : "\(30 + index - 8)"
    }
}

/// One of the terminal's sixteen colors, by the names the config file uses.
public enum TerminalColor: String, CaseIterable, Sendable {
    case `default`, black, red, green, yellow, blue, magenta, cyan, white
    case brightBlack = "bright-black", brightRed = "bright-red", brightGreen = "bright-green", brightYellow = "bright-yellow"
    case brightBlue = "bright-blue", brightMagenta = "bright-magenta", brightCyan = "bright-cyan", brightWhite = "bright-white"

    /// The ANSI color number 0…15, nil for the terminal's own foreground.
    var index: Int? {
        guard let position = Self.allCases.firstIndex(of: self), position > 0 else { return nil }
        return position - 1
    }
}

extension CellColor {
    /// The name the config file's `[colors]` table uses for it.
    public var configName: String {
        switch self {
        case .default: "default"
        case .accent: "accent"
        case .muted: "muted"
        case .error: "error"
        case .success: "success"
        case .highlight: "highlight"
        }
    }
}
