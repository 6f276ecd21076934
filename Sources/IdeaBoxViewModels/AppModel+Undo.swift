import IdeaBoxCore
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

    /// Takes `action` back (`backwards`) or makes it again, then refreshes; says whether it
    /// could, or says why not in the status bar when another device deleted the idea.
    private func apply(_ action: UndoHistory.Action, backwards: Bool) throws -> Bool {
        do {
            switch action {
            case .delete(let idea):
                _ = try backwards ? repository.restoreIdea(idea) : repository.deleteIdea(id: idea.id)
            case let .setCompleted(idea, isCompleted):
                _ = try repository.setCompleted(backwards ? !isCompleted : isCompleted, id: idea.id)
            case let .edit(before, after):
                let target = backwards ? before : after
                _ = try repository.editIdea(
                    id: target.id,
                    IdeaChanges(title: target.title, description: target.description, isCompleted: target.isCompleted))
            }
        } catch IdeaStoreError.unknownId {
            status.show(text.cannotUndo(action), tone: .error, now: now)
            return false
        }
        localChangeHappened()
        try refresh()
        return true
    }
}
