import Foundation
import IdeaBoxViewModels
import IdeaModel

/// Draws the edit form over the list: title, description, completed toggle, live
/// counters, the error in place, and the discard question.
enum FormScreen {
    /// Draws `form` in `text`'s words, the devices it names called by `deviceNames`, and
    /// returns where the text cursor goes.
    static func draw(_ form: IdeaForm, text: UIText, deviceNames: DeviceNames, into grid: inout CellGrid) -> CursorPosition? {
        let width = min(grid.columns, 100)
        let layout = Layout(screenRows: grid.rows)
        let box = Box(top: layout.top, left: (grid.columns - width) / 2, height: layout.bottom - layout.top + 1, width: width)
        Box.clear(box, in: &grid)
        let heading: String
        switch form.mode {
        case .new: heading = text.newIdea
        case .edit: heading = text.editIdea
        }
        grid.drawBox(top: box.top, left: box.left, height: box.height, width: box.width, title: heading, style: AppScreen.accent)
        let left = box.left + 2
        let right = box.left + box.width - 2
        let fieldWidth = AppModel.formTextWidth(columns: grid.columns)
        var cursor: CursorPosition?

        // Title: label with counter, then one line that scrolls sideways.
        var row = box.top + 1
        label(text.titleField, isFocused: form.focus == .title, row: row, left: left, into: &grid)
        // The title is stored trimmed, so the counter counts what the limit applies to.
        let storedTitleLength = form.title.text.trimmingCharacters(in: .whitespaces).count
        counter(storedTitleLength, limit: IdeaLimits.titleLength, row: row, right: right, into: &grid)
        row += 1
        let title = TextField.visibleSlice(of: form.title, width: fieldWidth)
        grid.put(title.text, row: row, column: left, maxWidth: fieldWidth)
        if form.focus == .title { cursor = CursorPosition(row: row, column: left + title.cursorColumn) }

        // Description: label with counter, then the text wrapped by display width,
        // scrolled so the cursor's line shows.
        row += layout.gapAfterTitle ? 2 : 1
        label(text.descriptionField, isFocused: form.focus == .description, row: row, left: left, into: &grid)
        counter(form.description.count, limit: IdeaLimits.descriptionLength, row: row, right: right, into: &grid)
        row += 1
        let lines = TextWidth.wrap(form.description.text, toWidth: fieldWidth)
        let location = TextWidth.locate(offset: form.description.cursor, in: lines)
        let firstLine = max(0, location.line - layout.descriptionLines + 1)
        for (offset, line) in lines.dropFirst(firstLine).prefix(layout.descriptionLines).enumerated() {
            grid.put(line.text.replacingTabs(), row: row + offset, column: left, maxWidth: fieldWidth)
        }
        if form.focus == .description {
            cursor = CursorPosition(row: row + location.line - firstLine, column: left + location.column)
        }

        // Completed toggle, then the error or a question, on the last two rows inside.
        row = layout.bottom - 2
        let toggle = "\(form.isCompleted ? "[x]" : "[ ]") \(text.completedField)"
        if form.focus == .completed {
            grid.put("> " + toggle, row: row, column: left - 1, maxWidth: right - left + 1,
                     style: CellStyle(bold: true, reverse: true, color: .accent))
        } else {
            grid.put(toggle, row: row, column: left, maxWidth: right - left)
        }
        row += 1
        let messageWidth = right - left
        if form.isOfferingToSaveAsNew {
            let whole = form.deletedBy.map { text.deletedQuestion(by: $0, names: deviceNames) } ?? text.deletedElsewhereQuestion
            let question = TextWidth.width(of: whole) <= messageWidth ? whole : text.deletedElsewhereShortQuestion
            grid.put(question, row: row, column: left, maxWidth: messageWidth, style: CellStyle(bold: true, color: .highlight))
            cursor = nil
        } else if form.isConfirmingDiscard {
            grid.put(text.discardQuestion, row: row, column: left, maxWidth: messageWidth, style: CellStyle(bold: true, color: .highlight))
            cursor = nil
        } else if form.isAskingMineOrTheirs {
            let question = TextWidth.truncate(text.mineOrTheirsQuestion(
                form.changedOnBothSides, by: form.theirs?.deviceId ?? "", names: deviceNames), toWidth: messageWidth, ellipsis: true)
            grid.put(question, row: row, column: left, maxWidth: messageWidth, style: CellStyle(bold: true, color: .highlight))
            cursor = nil
        } else if let error = form.visibleError {
            let message = TextWidth.truncate("! " + error.message(in: text.language), toWidth: messageWidth, ellipsis: true)
            grid.put(message, row: row, column: left, maxWidth: messageWidth, style: CellStyle(bold: true, color: .error))
        } else if !form.changedElsewhere.isEmpty {
            let notice = TextWidth.truncate(text.changedElsewhereNotice(
                form.changedElsewhere, by: form.theirs?.deviceId ?? "", names: deviceNames), toWidth: messageWidth, ellipsis: true)
            grid.put(notice, row: row, column: left, maxWidth: messageWidth, style: CellStyle(bold: true, color: .highlight))
        }
        return cursor
    }

    /// The form's rows on a screen of a given height. It sits below the tab bar, above the
    /// hint line and the status bar; on a short screen the description gives up lines
    /// first (down to one), then the blank rows between fields go, and last the form rises
    /// over the tab bar, so every field keeps a row of its own, in Tab order.
    struct Layout: Equatable {
        /// The row of the box's top edge.
        var top: Int
        /// The row of the box's bottom edge.
        var bottom: Int
        /// Whether a blank row separates the title from the description's label.
        var gapAfterTitle: Bool
        /// Whether a blank row separates the description from the completed toggle.
        var gapAfterDescription: Bool
        /// The description's visible lines.
        var descriptionLines: Int

        /// Rows inside the box besides the description's: two for the title, the
        /// description's label, the toggle and the message line.
        static let fixedRows = 5

        init(screenRows: Int) {
            bottom = screenRows - 3
            top = 2
            gapAfterTitle = true
            gapAfterDescription = true
            descriptionLines = 0
            while true {
                let inside = bottom - top - 1
                descriptionLines = inside - Self.fixedRows - (gapAfterTitle ? 1 : 0) - (gapAfterDescription ? 1 : 0)
                if descriptionLines >= 1 || top == 0 { break }
                if gapAfterDescription {
                    gapAfterDescription = false
                } else if gapAfterTitle {
                    gapAfterTitle = false
                } else {
                    top -= 1
                }
            }
            descriptionLines = max(1, descriptionLines)
        }
    }

    /// A field label; the focused one is marked with `>` so it shows in plain text too.
    private static func label(_ name: String, isFocused: Bool, row: Int, left: Int, into grid: inout CellGrid) {
        if isFocused {
            grid.put("> " + name, row: row, column: left - 1, style: AppScreen.accent)
        } else {
            grid.put(name, row: row, column: left, style: AppScreen.muted)
        }
    }

    /// `n/limit`, right-aligned at `right`, in the error color past the limit.
    private static func counter(_ count: Int, limit: Int, row: Int, right: Int, into grid: inout CellGrid) {
        let text = "\(count)/\(limit)"
        let style = count > limit ? CellStyle(bold: true, color: .error) : AppScreen.muted
        grid.put(text, row: row, column: right - TextWidth.width(of: text), style: style)
    }
}

private extension String {
    /// Tabs drawn as single spaces, so a line's width on screen is what wrapping measured.
    func replacingTabs() -> String {
        contains("\t") ? String(map { $0 == "\t" ? " " : $0 }) : self
    }
}
