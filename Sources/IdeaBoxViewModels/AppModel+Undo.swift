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
    /// the idea, nothing changes, the status bar says why, and the action is dropped, so that
    /// the next `u` (or `Ctrl-R`) goes on to the one before it instead of repeating the refusal.
    private func apply(_ action: UndoHistory.Action, backwards: Bool) throws -> Bool {
        let reason: HistoryReason = backwards ? .undone : .redone
        let outcome: RevertOutcome
        let steps = steps(of: action, backwards: backwards)
        if case .batch = action {
            outcome = try repository.revertAll(steps, reason: reason)
        } else {
            outcome = try revert(steps[0], reason: reason)
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
        return false
    }

    /// What the store does to take `action` back (`backwards`) or make it again: one step,
    /// or one per idea of a batch.
    private func steps(of action: UndoHistory.Action, backwards: Bool) -> [RevertStep] {
        switch action {
        case .add(let idea):
            return [backwards ? .delete(idea) : .restore(idea)]
        case .delete(let idea):
            return [backwards ? .restore(idea) : .delete(idea)]
        case let .setCompleted(idea, isCompleted):
            var done = idea
            done.isCompleted = isCompleted
            var notDone = idea
            notDone.isCompleted = !isCompleted
            return [.edit(id: idea.id, fields: [.isCompleted], from: backwards ? done : notDone, to: backwards ? notDone : done)]
        case let .edit(before, after):
            return [.edit(
                id: after.id, fields: after.fieldsDiffering(from: before), from: backwards ? after : before, to: backwards ? before : after)]
        case .batch(let actions):
            return actions.flatMap { steps(of: $0, backwards: backwards) }
        }
    }

    /// One step in its own transaction, as the single-idea calls of the store make it.
    private func revert(_ step: RevertStep, reason: HistoryReason) throws -> RevertOutcome {
        switch step {
        case .restore(let idea): .reverted(try repository.restoreIdea(idea))
        case .delete(let idea): try repository.deleteUnlessChanged(idea, reason: reason)
        case let .edit(id, fields, expected, target):
            try repository.revert(id: id, fields: fields, from: expected, to: target, reason: reason)
        }
    }
}
