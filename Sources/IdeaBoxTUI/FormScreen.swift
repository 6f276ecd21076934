import Foundation
import IdeaBoxCore
import IdeaBoxViewModels

/// Draws the edit form over the list: title, description, completed toggle, live
/// counters, the error in place, and the discard question.
enum FormScreen {
    /// Draws `form` and returns where the text cursor goes.
    static func draw(_ form: IdeaForm, app: AppModel, into grid: inout CellGrid) -> CursorPosition? {
        let text = app.text
        let width = min(grid.columns, 100)
        let box = Box(top: 2, left: (grid.columns - width) / 2, height: grid.rows - 4, width: width)
        Box.clear(box, in: &grid)
        let heading: String
        switch form.mode {
        case .new: heading = text.newIdea
        case .edit: heading = text.editIdea
        }
        grid.drawBox(top: box.top, left: box.left, height: box.height, width: box.width, title: heading, style: AppScreen.accent)
        let left = box.left + 2
        let fieldWidth = AppModel.formTextWidth(columns: grid.columns)
        var cursor: CursorPosition?

        // Title: label with counter, then one line that scrolls sideways.
        var row = box.top + 1
        label(text.titleField, isFocused: form.focus == .title, row: row, left: left, into: &grid)
        // The title is stored trimmed, so the counter counts what the limit applies to.
        let storedTitleLength = form.title.text.trimmingCharacters(in: .whitespaces).count
        counter(storedTitleLength, limit: IdeaLimits.titleLength, row: row, right: box.left + box.width - 2, into: &grid)
        row += 1
        let title = TextField.visibleSlice(of: form.title, width: fieldWidth)
        grid.put(title.text, row: row, column: left, maxWidth: fieldWidth)
        if form.focus == .title { cursor = CursorPosition(row: row, column: left + title.cursorColumn) }

        // Description: label with counter, then the text wrapped by display width,
        // scrolled so the cursor's line shows.
        row += 2
        label(text.descriptionField, isFocused: form.focus == .description, row: row, left: left, into: &grid)
        counter(form.description.count, limit: IdeaLimits.descriptionLength, row: row, right: box.left + box.width - 2, into: &grid)
        row += 1
        let bottomRows = 3
        let descriptionHeight = max(1, box.top + box.height - 1 - bottomRows - row)
        let lines = TextWidth.wrap(form.description.text, toWidth: fieldWidth)
        let location = TextWidth.locate(offset: form.description.cursor, in: lines)
        let firstLine = max(0, location.line - descriptionHeight + 1)
        for (offset, line) in lines.dropFirst(firstLine).prefix(descriptionHeight).enumerated() {
            grid.put(line.text.replacingTabs(), row: row + offset, column: left, maxWidth: fieldWidth)
        }
        if form.focus == .description {
            cursor = CursorPosition(row: row + location.line - firstLine, column: left + location.column)
        }

        // Completed toggle, then the error or the discard question.
        row = box.top + box.height - 1 - bottomRows + 1
        let toggle = "\(form.isCompleted ? "[x]" : "[ ]") \(text.completedField)"
        if form.focus == .completed {
            grid.put("> " + toggle, row: row, column: left - 1, style: CellStyle(bold: true, reverse: true, color: .accent))
        } else {
            grid.put(toggle, row: row, column: left)
        }
        row += 1
        if form.isConfirmingDiscard {
            grid.put(text.discardQuestion, row: row, column: left, maxWidth: fieldWidth, style: CellStyle(bold: true, color: .highlight))
            cursor = nil
        } else if let error = form.visibleError {
            grid.put("! " + error.message(in: text.language), row: row, column: left, maxWidth: fieldWidth,
                     style: CellStyle(bold: true, color: .error))
        }
        return cursor
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
