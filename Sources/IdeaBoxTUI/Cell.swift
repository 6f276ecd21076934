/// One cell of a `CellGrid`: a grapheme cluster and its style, or the right half of a wide one.
public struct Cell: Hashable, Sendable {
    /// The grapheme cluster shown in the cell; empty for the continuation of a wide cluster.
    public var text: String
    /// How the cell is drawn.
    public var style: CellStyle

    /// A cell showing `text` (one grapheme cluster, or empty for a continuation).
    public init(text: String, style: CellStyle = .plain) {
        self.text = text
        self.style = style
    }

    /// An unstyled space.
    public static let blank = Cell(text: " ")

    /// Whether the cell is the right half of the wide cluster in the cell before it.
    public var isContinuation: Bool { text.isEmpty }
}
