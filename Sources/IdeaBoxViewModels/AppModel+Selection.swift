import struct Foundation.UUID
import IdeaModel
import IdeaStore

extension AppModel {
    /// The rows of the open list a selection (`v`) holds: from where it started to the
    /// cursor, either way; nil when none is open.
    public var selectedRows: ClosedRange<Int>? {
        guard let anchor = selectionAnchor, currentList.totalCount > 0 else { return nil }
        let cursor = currentList.selectedIndex
        let last = currentList.totalCount - 1
        return min(min(anchor, cursor), last)...min(max(anchor, cursor), last)
    }

    /// `v`: starts a selection at the cursor, whose moves then extend it; `v` again ends it.
    func toggleSelection() {
        selectionAnchor = selectionAnchor == nil && currentList.totalCount > 0 ? currentList.selectedIndex : nil
    }

    /// The ideas of the selection, in list order (read in one query, however many).
    private func selectedIdeas() throws -> [Idea]? {
        guard let rows = selectedRows else { return nil }
        let list = currentList
        return try repository.ideas(list.filter, offset: rows.lowerBound, limit: rows.count, total: list.totalCount)
    }

    /// `x`: the selected idea done or not done; with a selection, every selected idea done if
    /// any is not, else every one not done, as one action that one `u` takes back.
    func toggleDone() throws {
        if let ideas = try selectedIdeas() {
            selectionAnchor = nil
            let done = ideas.contains { !$0.isCompleted }
            let changed = try repository.setCompleted(done, ids: ideas.map(\.id))
            history.record(.batch(changed.map { .setCompleted($0.previous, isCompleted: done) }))
            localChangeHappened()
            try refresh()
            status.show(text.markedDone(done, count: ideas.count), tone: .success, now: now)
            return
        }
        guard let idea = currentList.selectedIdea else { return }
        let updated = try repository.toggleCompleted(id: idea.id)
        history.record(.setCompleted(idea, isCompleted: updated.isCompleted))
        localChangeHappened()
        try refresh()
        status.show(text.markedDone(updated.isCompleted, updated.title), tone: .success, now: now)
    }

    /// `d`: asks y/n before deleting the selected idea, or every idea of a selection at once.
    func askToDelete() throws {
        if let ideas = try selectedIdeas() {
            deleteQuestion = .ideas(ideas)
        } else {
            deleteQuestion = currentList.selectedIdea.map(DeleteQuestion.idea)
        }
    }

    /// Deletes a selection's ideas in one transaction, as one action for `u`.
    func delete(_ ideas: [Idea]) throws {
        selectionAnchor = nil
        let deleted = try repository.deleteIdeas(ids: ideas.map(\.id))
        history.record(.batch(deleted.map { .delete($0) }))
        localChangeHappened()
        try refresh()
        status.show(text.deleted(count: deleted.count), now: now)
    }

    /// `y`: asks the terminal to put the selected idea (its title, a blank line, its
    /// description) on the clipboard; the terminal layer answers with `clipboardCopied(_:)`.
    func copySelectedIdea() {
        guard let idea = currentList.selectedIdea else { return }
        clipboardRequest = idea.description.isEmpty ? idea.title : idea.title + "\n\n" + idea.description
    }

    /// The text `y` asked to copy, taken: the terminal layer sends it once.
    public func takeClipboardRequest() -> String? {
        defer { clipboardRequest = nil }
        return clipboardRequest
    }

    /// The terminal layer sent the copy (`accepted`), or knows the terminal cannot take it.
    /// A terminal never confirms OSC 52, so "copied" means "sent".
    public func clipboardCopied(_ accepted: Bool) {
        status.show(accepted ? text.copied : text.copyRefused, tone: accepted ? .success : .error, now: now)
    }

    /// `g x`: opens the selected idea's first link with the system's opener.
    func openFirstLink() {
        guard let idea = currentList.selectedIdea, let link = Links.first(in: idea.description) else {
            return status.show(text.noLink, now: now)
        }
        if openLink(link) {
            status.show(text.openingLink(link), now: now)
        } else {
            status.show(text.noLinkOpener, tone: .error, now: now)
        }
    }
}
