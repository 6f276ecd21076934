/// Where each part of the screen is, from its size and the tab: what the drawing puts where
/// and what a click, the list's page and the overlays' scrolling read, in one place.
///
/// ```
/// row 0            tab bar
/// row 1            rule
/// rows 2, 3        the search field and its rule (Search tab only)
/// listTop…         the list, listHeight rows
/// hintsRow         the keys
/// statusRow        the status bar
/// ```
/// The sync log and history overlays cover the rows from 2 to the hints, framed: their
/// text rows are the box less its edges and the footer line above its bottom edge.
public struct ScreenLayout: Sendable, Equatable {
    /// The screen's rows.
    public let rows: Int
    /// The screen's columns.
    public let columns: Int
    /// Whether the Search tab's field is shown.
    public let hasSearchField: Bool

    /// The layout of a `rows` x `columns` screen on `tab`.
    public init(rows: Int, columns: Int, tab: AppModel.Tab) {
        self.rows = rows
        self.columns = columns
        hasSearchField = tab == .search
    }

    /// The tab bar's row.
    public let tabBarRow = 0
    /// The rule under the tab bar.
    public let tabRuleRow = 1
    /// The search field's row, on the Search tab.
    public var searchFieldRow: Int? { hasSearchField ? 2 : nil }
    /// The rule under the search field (with the match count), on the Search tab.
    public var searchRuleRow: Int? { hasSearchField ? 3 : nil }
    /// The first row of the list.
    public var listTop: Int { hasSearchField ? 4 : 2 }
    /// The rows of the list: all but the header, the keys and the status bar.
    public var listHeight: Int { max(1, rows - listTop - 2) }
    /// The row of the keys.
    public var hintsRow: Int { rows - 2 }
    /// The row of the status bar.
    public var statusRow: Int { rows - 1 }

    /// The sync log's and the history's box: from below the tab bar's rule to above the keys.
    public var overlayTop: Int { 2 }
    /// The overlay box's height.
    public var overlayHeight: Int { rows - 4 }
    /// The overlay's text rows: its box less the top and bottom edges, the footer and the
    /// blank line above it.
    public var overlayTextRows: Int { max(1, overlayHeight - 4) }
    /// The columns overlay text may take: the box's less its edges and margins.
    public var overlayTextWidth: Int { max(8, columns - 4) }
}
