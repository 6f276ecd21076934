import IdeaStore

extension AppModel {
    /// `u`: takes back the newest delete, done/undone or edit of this run.
    func undo() throws {
        guard let action = history.popUndo() else { return status.show(text.nothingToUndo, now: now) }
        guard try apply(action, backwards: true) else { return }
        history.undone(action)
        status.show(text.undid(action), tone: .success, now: now)
    }

    /// `Ctrl-R`: makes the newest undone action again.
    func redo() throws {
        guard let action = history.popRedo() else { return status.show(text.nothingToRedo, now: now) }
        guard try apply(action, backwards: false) else { return }
        history.redone(action)
        status.show(text.redid(action), tone: .success, now: now)
    }

    /// Takes `action` back (`backwards`) or makes it again, as a new edit against the
    /// present, then refreshes. Only the fields the action changed are put back, and only
    /// where they still hold what it wrote: if another device changed one since, or deleted
    /// the idea, nothing changes and the status bar says why.
    private func apply(_ action: UndoHistory.Action, backwards: Bool) throws -> Bool {
        let reason: HistoryReason = backwards ? .undone : .redone
        let outcome: RevertOutcome
        switch action {
        case .add(let idea):
            outcome = backwards ? try repository.deleteUnlessChanged(idea, reason: reason) : .reverted(try repository.restoreIdea(idea))
        case .delete(let idea):
            if backwards {
                outcome = .reverted(try repository.restoreIdea(idea))
            } else {
                outcome = try repository.deleteUnlessChanged(idea, reason: reason)
            }
        case let .setCompleted(idea, isCompleted):
            var done = idea
            done.isCompleted = isCompleted
            var notDone = idea
            notDone.isCompleted = !isCompleted
            outcome = try repository.revert(
                id: idea.id, fields: [.isCompleted], from: backwards ? done : notDone, to: backwards ? notDone : done,
                reason: reason)
        case let .edit(before, after):
            outcome = try repository.revert(
                id: after.id, fields: after.fieldsDiffering(from: before),
                from: backwards ? after : before, to: backwards ? before : after, reason: reason)
        }
        switch outcome {
        case .reverted:
            localChangeHappened()
            try refresh()
            return true
        case .changedElsewhere:
            status.show(text.changedElsewhere(action, undoing: backwards), tone: .error, now: now)
        case .gone:
            status.show(text.cannotUndo(action), tone: .error, now: now)
        }
        // The action stays where it was, to try again once the other device's change is dealt with.
        if backwards { history.redone(action) } else { history.undone(action) }
        return false
    }
}
