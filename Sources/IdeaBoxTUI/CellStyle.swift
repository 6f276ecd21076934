/// How a cell is drawn: a few attributes and one of the app's named colors.
public struct CellStyle: Hashable, Sendable {
    /// Heavier text.
    public var bold: Bool
    /// Foreground and background swapped, as for a selected row.
    public var reverse: Bool
    /// Underlined text.
    public var underline: Bool
    /// Fainter text.
    public var dim: Bool
    /// The named foreground color.
    public var color: CellColor
    /// The web address the cell links to (OSC 8), on terminals that show links.
    public var link: String?

    /// A style from its attributes; everything is off by default.
    public init(
        bold: Bool = false,
        reverse: Bool = false,
        underline: Bool = false,
        dim: Bool = false,
        color: CellColor = .default,
        link: String? = nil
    ) {
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
        self.dim = dim
        self.color = color
        self.link = link
    }

    /// The terminal's default look.
    public static let plain = CellStyle()
}

/// The app's palette, by meaning rather than by terminal color number.
public enum CellColor: Hashable, Sendable, CaseIterable {
    /// The terminal's own foreground.
    case `default`
    /// Titles and the active tab.
    case accent
    /// Secondary text such as dates and hints.
    case muted
    /// Failures.
    case error
    /// Completed work and a finished sync.
    case success
    /// Text that must catch the eye, such as search matches.
    case highlight
}
