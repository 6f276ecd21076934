import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// `ideabox add` without a title and `ideabox edit ID` without a change, on a terminal: the
/// idea opens in the person's own editor, as `git commit` opens a message, and what they
/// save is added or written. A text the rules refuse is kept in a private file the error
/// names, so nothing typed is lost.
enum EditorCommand {
    /// Whether both standard input and output are a terminal, where an editor can run.
    static var isOnTerminal: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Runs the editor the environment names on `text` and returns what the person saved,
    /// or throws what to say when nothing is to be done (`adding` picks the words).
    static func edit(_ text: IdeaText, adding: Bool, context: CommandContext) throws -> IdeaText {
        let command = context.configuredEditor() ?? ExternalEditor.command(environment: context.environment)
        switch ExternalEditor.runOnTerminal(command: command, text: text.fileText, fileName: "idea.txt") {
        case .changed(let edited): return IdeaText(fileText: edited)
        case .unchanged: throw CommandError.editorLeftUnchanged(adding: adding)
        case .failed(let status): throw CommandError.editorFailed(command: command, status: status)
        case .couldNotRun(let reason): throw CommandError.editorCouldNotRun(command: command, reason: reason)
        }
    }

    /// Runs `save` on the edited text; if the rules refuse it, keeps the text in a private
    /// file and says where, with the rule.
    static func saving<Result>(_ text: IdeaText, _ save: () throws -> Result) throws -> Result {
        do {
            return try save()
        } catch let error as IdeaValidationError {
            switch ExternalEditor.writePrivately(text.fileText, fileName: "idea.txt") {
            case .success(let path): throw CommandError.editedTextRefused(error, keptAt: path)
            case .failure: throw error
            }
        }
    }
}
