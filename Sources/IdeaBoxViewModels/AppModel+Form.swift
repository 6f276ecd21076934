import IdeaModel
import IdeaStore

extension AppModel {
    /// A key while the edit form is open: edits, then saves or closes it. Saving an edit of
    /// an idea another device deleted meanwhile keeps the form and everything typed in it,
    /// and offers to save it as a new idea.
    func handleForm(_ key: Key) throws {
        guard var form else { return }
        let previous = form.pendingPrefix
        form.pendingPrefix = nil
        self.form = form
        var action: FormAction?
        if form.isAsking {
            action = keys.form.action(for: key, after: nil)
        } else {
            switch keys.form.press(key, after: previous) {
            case .waiting:
                self.form?.pendingPrefix = key
                return
            case .action(.openInEditor):
                return openFormInEditor()
            case .action(let bound): action = bound
            case .other: action = nil
            }
        }
        try applyToForm(key, as: action)
    }

    /// Applies `key`, read as `action`, to the open form, and saves or closes it as it says.
    func applyToForm(_ key: Key, as action: FormAction?) throws {
        guard var form else { return }
        let outcome = form.handle(key, as: action)
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
                // Only the fields the person changed: what another device changed meanwhile
                // in the others stays. Where both changed one and the person kept theirs,
                // the typed value goes to the history.
                let fields = form.fieldsToSave
                let changes = IdeaChanges(
                    title: fields.contains(.title) ? title : nil,
                    description: fields.contains(.description) ? description : nil,
                    isCompleted: fields.contains(.isCompleted) ? isCompleted : nil)
                let before: Idea
                let idea: Idea
                do {
                    (before, idea) = try repository.editIdeaKeepingPrevious(id: original.id, changes)
                    if form.keepsTheirs, let typed = form.values {
                        // No merge lost it: the person chose theirs, and says so.
                        try repository.keepInHistory(typed, fields: form.changedOnBothSides, reason: .setAside)
                    }
                } catch IdeaStoreError.unknownId {
                    let delete = try repository.history(of: original.id).first { $0.isDeleted }
                    deviceNames = try repository.deviceNames()
                    form.ideaWasDeletedElsewhere(by: delete?.writtenBy)
                    self.form = form
                    return
                }
                if idea != before { history.record(.edit(before: before, after: idea)) }
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
