import IdeaBoxCore
import IdeaStore

extension AppModel {
    /// A key while the edit form is open: edits, then saves or closes it. Saving an edit of
    /// an idea another device deleted meanwhile keeps the form and everything typed in it,
    /// and offers to save it as a new idea.
    func handleForm(_ key: Key) throws {
        guard var form else { return }
        let outcome = form.handle(key)
        self.form = form
        switch outcome {
        case .editing:
            break
        case .cancel:
            self.form = nil
        case let .save(title, description, isCompleted):
            switch form.mode {
            case .new:
                try addIdea(title: title, description: description, isCompleted: isCompleted, message: text.added)
            case .edit(let original):
                let changes = IdeaChanges(title: title, description: description, isCompleted: isCompleted)
                let idea: Idea
                do {
                    idea = try repository.editIdea(id: original.id, changes)
                } catch IdeaStoreError.unknownId {
                    form.ideaWasDeletedElsewhere()
                    self.form = form
                    return
                }
                if idea != original { history.record(.edit(before: original, after: idea)) }
                localChangeHappened()
                self.form = nil
                try refresh()
                status.show(text.saved(idea.title), tone: .success, now: now)
            }
        case let .saveAsNew(title, description, isCompleted):
            try addIdea(title: title, description: description, isCompleted: isCompleted, message: text.savedAsNew)
        }
    }

    private func addIdea(title: String, description: String, isCompleted: Bool, message: (String) -> String) throws {
        let idea = try repository.addIdea(title: title, description: description, isCompleted: isCompleted)
        history.record(.add(idea))
        localChangeHappened()
        form = nil
        tab = .all
        try refresh()
        allIdeas.select(0)
        status.show(message(idea.title), tone: .success, now: now)
    }
}
