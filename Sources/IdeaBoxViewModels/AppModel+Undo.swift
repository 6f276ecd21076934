import IdeaBoxCore
import IdeaStore

extension AppModel {
    /// `u`: takes back the newest delete, done/undone or edit of this run.
    func undo() throws {
        guard let action = history.popUndo() else { return status.show(text.nothingToUndo, now: now) }
        do {
            switch action {
            case .delete(let idea):
                _ = try repository.restoreIdea(idea)
            case let .setCompleted(idea, isCompleted):
                _ = try repository.setCompleted(!isCompleted, id: idea.id)
            case let .edit(before, _):
                _ = try repository.editIdea(
                    id: before.id,
                    IdeaChanges(title: before.title, description: before.description, isCompleted: before.isCompleted))
            }
        } catch IdeaStoreError.unknownId {
            return status.show(text.cannotUndo(action), tone: .error, now: now)
        }
        history.undone(action)
        localChangeHappened()
        try refresh()
        status.show(text.undid(action), tone: .success, now: now)
    }

    /// `Ctrl-R`: makes the newest undone action again.
    func redo() throws {
        guard let action = history.popRedo() else { return status.show(text.nothingToRedo, now: now) }
        do {
            switch action {
            case .delete(let idea):
                _ = try repository.deleteIdea(id: idea.id)
            case let .setCompleted(idea, isCompleted):
                _ = try repository.setCompleted(isCompleted, id: idea.id)
            case let .edit(_, after):
                _ = try repository.editIdea(
                    id: after.id,
                    IdeaChanges(title: after.title, description: after.description, isCompleted: after.isCompleted))
            }
        } catch IdeaStoreError.unknownId {
            return status.show(text.cannotUndo(action), tone: .error, now: now)
        }
        history.redone(action)
        localChangeHappened()
        try refresh()
        status.show(text.redid(action), tone: .success, now: now)
    }
}
