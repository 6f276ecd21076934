import IdeaModel
import IdeaStore

/// One list of ideas (All Ideas, Completed or search results) as the screen scrolls
/// through it: a selection, a scroll position, and only a window of rows in memory.
public final class IdeaListModel {
    /// How many ideas one read loads around the part on screen, at least.
    static let minimumWindowSize = 40

    /// How many ideas one read loads: two screenfuls or more, so the screen and the
    /// selection always come from one read however tall the terminal is.
    private var windowSize: Int { max(Self.minimumWindowSize, viewportHeight * 2) }

    /// Which ideas the list shows.
    public private(set) var filter: IdeaFilter
    /// The order of All Ideas and Completed (search results are newest first).
    public private(set) var order = IdeaOrder.newestFirst
    /// How many ideas the list holds.
    public private(set) var totalCount = 0
    /// The selected row, or 0 when the list is empty.
    public private(set) var selectedIndex = 0
    /// The first row on screen.
    public private(set) var scrollTop = 0
    /// How many rows fit on screen.
    public private(set) var viewportHeight = 10

    private let repository: IdeaRepository
    private var windowStart = 0
    private var window: [Idea] = []

    /// A list over `repository`; call `reload()` to read it.
    public init(repository: IdeaRepository, filter: IdeaFilter) {
        self.repository = repository
        self.filter = filter
    }

    /// The selected idea, if the list isn't empty.
    public var selectedIdea: Idea? {
        totalCount == 0 ? nil : idea(at: selectedIndex)
    }

    /// The rows on screen, with their positions in the list.
    public var visibleRows: [(index: Int, idea: Idea)] {
        let end = min(totalCount, scrollTop + viewportHeight)
        guard scrollTop < end else { return [] }
        return (scrollTop..<end).compactMap { index in idea(at: index).map { (index, $0) } }
    }

    /// Changes what the list shows, back at its top.
    public func setFilter(_ filter: IdeaFilter, count: Int? = nil) throws {
        self.filter = filter
        selectedIndex = 0
        scrollTop = 0
        // The old list's selection means nothing in the new one: don't look for it there.
        window = []
        try reload(count: count)
    }

    /// Shows the list in `order`, the selection back at its top.
    public func setOrder(_ order: IdeaOrder) throws {
        self.order = order
        selectedIndex = 0
        scrollTop = 0
        window = []
        try reload(count: totalCount)
    }

    /// Re-reads the list after a change (here or in another process), keeping the selected
    /// idea selected when it is still near where it was.
    public func reload(count: Int? = nil) throws {
        let selectedId = window.isEmpty ? nil : selectedIdea?.id
        totalCount = try count ?? repository.count(filter)
        window = []
        clampSelection()
        try loadWindow(around: selectedIndex)
        if let selectedId, selectedIdea?.id != selectedId,
           let found = window.firstIndex(where: { $0.id == selectedId }) {
            selectedIndex = windowStart + found
        }
        keepSelectionVisible()
    }

    /// Sets how many rows fit on screen.
    public func setViewportHeight(_ height: Int) {
        viewportHeight = max(1, height)
        keepSelectionVisible()
    }

    /// Moves the selection by `delta` rows (negative is up), stopping at the ends.
    public func moveSelection(by delta: Int) {
        select(selectedIndex + delta)
    }

    /// Moves the selection a screenful up (negative) or down.
    public func page(_ direction: Int) {
        let step = max(1, viewportHeight - 1) * direction
        scrollTop = max(0, min(max(0, totalCount - viewportHeight), scrollTop + step))
        select(selectedIndex + step)
    }

    /// Selects the row at `index`, clamped to the list.
    public func select(_ index: Int) {
        selectedIndex = index
        clampSelection()
        keepSelectionVisible()
    }

    /// The idea at `index`, reading its window if needed; nil outside the list or if the
    /// read fails (the next reload tries again).
    public func idea(at index: Int) -> Idea? {
        guard index >= 0, index < totalCount else { return nil }
        if !(windowStart..<windowStart + window.count).contains(index) {
            try? loadWindow(around: index)
        }
        let offset = index - windowStart
        return window.indices.contains(offset) ? window[offset] : nil
    }

    private func loadWindow(around index: Int) throws {
        let start = max(0, index - windowSize / 2)
        window = try repository.ideas(filter, offset: start, limit: windowSize, total: totalCount, order: order)
        windowStart = start
    }

    private func clampSelection() {
        selectedIndex = max(0, min(selectedIndex, totalCount - 1))
    }

    private func keepSelectionVisible() {
        if selectedIndex < scrollTop {
            scrollTop = selectedIndex
        } else if selectedIndex >= scrollTop + viewportHeight {
            scrollTop = selectedIndex - viewportHeight + 1
        }
        scrollTop = max(0, min(scrollTop, max(0, totalCount - viewportHeight)))
    }
}
