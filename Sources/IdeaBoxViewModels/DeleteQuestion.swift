import IdeaModel

/// The y/n question `d` asks before deleting: about the selected idea, or about every idea of
/// a selection (`v`) at once.
public enum DeleteQuestion: Sendable, Equatable {
    /// Delete this idea?
    case idea(Idea)
    /// Delete these ideas, in list order?
    case ideas([Idea])

    /// The widest the question's box gets.
    static let maximumBoxWidth = 60

    /// The question's box's width on a screen `columns` wide.
    public static func boxWidth(columns: Int) -> Int {
        min(columns - 4, maximumBoxWidth)
    }

    /// The question in `text`'s words, in a box on a screen `columns` wide: an idea's title
    /// gets what the box leaves after the question's own words, so "y/n" always shows.
    public func question(in text: UIText, columns: Int) -> String {
        switch self {
        case .idea(let idea):
            let titleWidth = Self.boxWidth(columns: columns) - 4 - TextWidth.width(of: text.deleteQuestion(""))
            return text.deleteQuestion(TextWidth.truncate(idea.title, toWidth: titleWidth, ellipsis: true))
        case .ideas(let ideas):
            return text.deleteQuestion(count: ideas.count)
        }
    }
}
