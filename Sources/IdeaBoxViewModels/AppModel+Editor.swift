import IdeaBoxFoundation
import IdeaModel

/// What the person's own editor is asked to edit, and where the result goes.
public struct EditorRequest: Equatable, Sendable {
    /// Where the text came from.
    public enum Source: Equatable, Sendable {
        /// The idea selected in the list (`E`): saved on return.
        case idea(Idea)
        /// The open form (Ctrl-X Ctrl-E): its fields take the text, then it saves.
        case form
    }

    /// Where the text came from.
    public let source: Source
    /// The text the editor opens.
    public let text: IdeaText
}

extension AppModel {
    /// The name of the file the editor opens: what an editor shows in its title, and what
    /// picks its syntax (plain text).
    public static let editorFileName = "idea.txt"

    /// `E`: asks for the selected idea in the person's own editor.
    func openSelectedIdeaInEditor() {
        guard let idea = currentList.selectedIdea else { return }
        editorRequest = EditorRequest(source: .idea(idea), text: IdeaText(title: idea.title, description: idea.description))
    }

    /// Asks for the open form's text in the person's own editor (Ctrl-X Ctrl-E, as in bash).
    func openFormInEditor() {
        guard let form else { return }
        editorRequest = EditorRequest(source: .form, text: IdeaText(title: form.title.text, description: form.description.text))
    }

    /// The editor closed: a changed text goes through the form, which checks it as it checks
    /// typing and saves it as one undoable edit, or stays open showing what is wrong, with
    /// the text in it. An editor that failed, or a text left as it was, changes nothing.
    public func finishEditing(_ outcome: EditorOutcome) {
        guard let request = editorRequest else { return }
        editorRequest = nil
        switch outcome {
        case .changed(let fileText):
            let edited = IdeaText(fileText: fileText)
            if case .idea(let idea) = request.source {
                openForm(.edit(idea))
                // The form learns of changes made elsewhere since `E`, to ask mine or theirs.
                do { try refresh() } catch { report(error) }
            }
            guard var form else { return }
            form.replaceText(title: edited.title, description: edited.description)
            self.form = form
            do { try applyToForm(.ctrl("s"), as: .save) } catch { report(error) }
        case .unchanged:
            status.show(text.editorLeftUnchanged, now: now)
        case .failed(let exitStatus):
            status.show(text.editorFailed(status: exitStatus), tone: .error, now: now)
        case .couldNotRun(let reason):
            status.show(text.editorCouldNotRun(reason), tone: .error, now: now)
        }
    }
}
