/// How much a line of the library's log matters.
public enum LibraryLogKind: String, Sendable {
    /// A conflict settled, with where the loser is kept.
    case conflict
    /// Something refused or kept that a person should know about.
    case warning
    /// For the record.
    case info
}
