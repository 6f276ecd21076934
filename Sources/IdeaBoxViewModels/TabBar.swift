import IdeaStore

/// The tab bar: the app's name, then each tab's label with its count, the open one marked,
/// laid out for a screen's width. The screen draws it, and a click is matched against it.
public struct TabBar: Sendable {
    /// One tab's label and where it starts.
    public typealias Label = (tab: AppModel.Tab, column: Int, label: String)

    /// The open tab.
    public let openTab: AppModel.Tab
    /// The app's name before the tabs (empty when a narrow bar leaves it out).
    public let name: String
    /// Each tab's label: its first column and its text.
    public let labels: [Label]

    /// The bar for `counts` in `text`'s words, `columns` wide, `openTab` open. On a narrow
    /// screen it keeps every tab: first with short labels, then without the app's name,
    /// then with the counts shortened (`12k`).
    public init(openTab: AppModel.Tab, counts: IdeaCounts, text: UIText, columns: Int) {
        self.openTab = openTab
        let appName = " \(text.appName) "
        let choices = [(appName, false, false), (appName, true, false), ("", true, false), ("", true, true)]
        var labels: [Label] = []
        for (name, short, compact) in choices {
            labels = Self.labels(after: name, counts: counts, text: text, short: short, compactCounts: compact)
            guard let last = labels.last, last.column + TextWidth.width(of: last.label) > columns else { break }
        }
        self.labels = labels
        name = labels.first.map { $0.column > 1 ? appName : "" } ?? ""
    }

    /// The tab whose label is at `column`, if one is.
    public func tab(at column: Int) -> AppModel.Tab? {
        guard let hit = labels.last(where: { column >= $0.column }), column < hit.column + TextWidth.width(of: hit.label) else { return nil }
        return hit.tab
    }

    private static func labels(after name: String, counts: IdeaCounts, text: UIText, short: Bool, compactCounts: Bool) -> [Label] {
        var column = TextWidth.width(of: name)
        let shown = { (count: Int) in compactCounts ? compactCount(count) : String(count) }
        return AppModel.Tab.allCases.map { tab in
            let count: String
            switch tab {
            case .all: count = " (\(shown(counts.all)))"
            case .completed: count = " (\(shown(counts.completed)))"
            case .search: count = ""
            }
            let label = " \(tab.rawValue + 1) \(short ? text.shortTabLabel(tab) : text.tabLabel(tab))\(count) "
            column += name.isEmpty && tab == .all ? 0 : 1
            defer { column += TextWidth.width(of: label) }
            return (tab, column, label)
        }
    }

    /// `12345` as `12k`, `2500000` as `2M`: a count in at most four columns.
    static func compactCount(_ count: Int) -> String {
        switch count {
        case ..<1000: String(count)
        case ..<1_000_000: "\(count / 1000)k"
        default: "\(count / 1_000_000)M"
        }
    }
}
