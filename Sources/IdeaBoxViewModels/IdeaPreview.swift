import IdeaBoxFoundation
import IdeaModel

/// The selected idea whole, to read without editing: its title and description wrapped to
/// a width (wide characters count two cells), then whether it is done, when it was created
/// and last changed, and on which device.
public struct IdeaPreview: Sendable, Equatable {
    /// One line of the preview and how it is drawn.
    public struct Line: Sendable, Equatable {
        /// What kind of text the line holds.
        public enum Kind: Sendable, Equatable { case title, body, detail }
        /// The text, at most the preview's width.
        public var text: String
        /// How it is drawn.
        public var kind: Kind
    }

    /// The lines, top to bottom.
    public let lines: [Line]

    /// `idea` wrapped to `width` cells, in `text`'s words, the device that last wrote it
    /// called by `names`.
    public init(_ idea: Idea, width: Int, text: UIText, names: DeviceNames, now: Timestamp) {
        let width = max(1, width)
        var lines = TextWidth.wrap(idea.title, toWidth: width).map { Line(text: $0.text, kind: .title) }
        if !idea.description.isEmpty {
            lines.append(Line(text: "", kind: .body))
            lines += TextWidth.wrap(idea.description, toWidth: width).map { Line(text: $0.text, kind: .body) }
        }
        lines.append(Line(text: "", kind: .body))
        let device = names.name(of: idea.deviceId, in: text.language)
        for detail in text.previewDetails(
            isCompleted: idea.isCompleted, created: idea.createdAt, updated: idea.updatedAt, device: device, now: now) {
            lines += TextWidth.wrap(detail, toWidth: width).map { Line(text: $0.text, kind: .detail) }
        }
        self.lines = lines
    }
}

extension AppModel {
    /// The narrowest screen that shows the preview pane beside the list.
    public static let previewPaneMinimumColumns = 120

    /// Whether the preview pane shows beside the list: on a wide enough screen, unless `p`
    /// hid it.
    public var showsPreviewPane: Bool {
        isPreviewPaneWanted && size.columns >= Self.previewPaneMinimumColumns && !isTooSmall
    }

    /// The columns the list takes: all of them, or what the preview pane leaves.
    public var listWidth: Int { showsPreviewPane ? size.columns - previewPaneWidth : size.columns }

    /// The preview pane's columns, its left edge included: two fifths of the screen.
    public var previewPaneWidth: Int { size.columns * 2 / 5 }

    /// The preview of the selected idea, `width` cells wide; nil on an empty list.
    public func preview(width: Int) -> IdeaPreview? {
        guard let idea = currentList.selectedIdea else { return nil }
        return IdeaPreview(idea, width: width, text: text, names: deviceNames, now: now)
    }

    /// The text rows of the full-screen preview: the overlay's.
    public var previewVisibleRows: Int { layout.overlayTextRows }

    /// `p`: hides or shows the pane on a wide screen; on a narrower one opens the preview
    /// full screen.
    func togglePreview() {
        if size.columns >= Self.previewPaneMinimumColumns {
            isPreviewPaneWanted.toggle()
        } else if currentList.selectedIdea != nil {
            fullPreview = FullPreview()
        }
    }

    /// A key while the full-screen preview is open: scrolling keys scroll, `Esc` (or `p`,
    /// `q`, Enter) goes back to the list.
    func handleFullPreview(_ key: Key) {
        guard var shown = fullPreview else { return }
        let lines = preview(width: layout.overlayTextWidth)?.lines.count ?? 0
        switch shown.handle(key, lineCount: lines, visibleRows: previewVisibleRows, scrollKeys: ScrollKeys(bindings)) {
        case .none: fullPreview = shown
        case .close: fullPreview = nil
        case .quit:
            fullPreview = nil
            wantsToQuit = true
        }
    }
}
