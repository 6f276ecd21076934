/// An idea as the text file a person edits in their own editor (`E`, `ideabox edit ID`):
/// the title on the first line, a blank line, then the description, as `git commit` lays
/// out a message.
public struct IdeaText: Equatable, Sendable {
    /// The first line.
    public var title: String
    /// Everything after the title and the blank lines under it.
    public var description: String

    /// A title and a description.
    public init(title: String, description: String) {
        self.title = title
        self.description = description
    }

    /// What the editor opens: the title, and when there is a description a blank line and
    /// the description; a final newline, as editors write one. A new idea is an empty file.
    public var fileText: String {
        if title.isEmpty && description.isEmpty { return "" }
        return description.isEmpty ? "\(title)\n" : "\(title)\n\n\(description)\n"
    }

    /// Reads what the editor left: the first line is the title, the blank lines under it
    /// separate it from the description, whose trailing blank lines and final newline
    /// (which editors add) go. Line breaks of any kind become `\n`. The rules are checked
    /// later, as the form checks them: nothing is cut here.
    public init(fileText: String) {
        let normalized = fileText.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
        var lines = normalized.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let title = lines.isEmpty ? "" : lines.removeFirst()
        while let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
        self.init(title: title, description: lines.joined(separator: "\n"))
    }
}
