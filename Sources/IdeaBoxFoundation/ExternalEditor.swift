import ChildProcess
import Foundation

/// What came back from the person's own editor.
public enum EditorOutcome: Equatable, Sendable {
    /// The file was saved with this text, different from what it started with.
    case changed(String)
    /// The editor exited well but the file holds what it started with.
    case unchanged
    /// The editor exited with this status (128 + the signal that ended it): nothing is used.
    case failed(status: Int32)
    /// The editor could not be started, or its file not written or read back.
    case couldNotRun(String)
}

/// The person's own editor, run on the real terminal as `git commit` runs it: `$VISUAL`,
/// else `$EDITOR`, else `vi`, through `sh -c` so a command with arguments works
/// (`EDITOR="code --wait"`). The text goes in a file readable by its owner only (0600), in a
/// private folder (0700) made for this one edit and removed afterwards.
public struct ExternalEditor: Sendable {
    /// The command line the shell runs, the file's path following it as `"$1"`.
    public let command: String
    /// Runs the editor on a text and says what came back; replaced in tests.
    public let edit: @Sendable (_ text: String, _ fileName: String) -> EditorOutcome

    /// An editor that runs `edit` (tests pass a fake).
    public init(command: String, edit: @escaping @Sendable (_ text: String, _ fileName: String) -> EditorOutcome) {
        self.command = command
        self.edit = edit
    }

    /// The editor `environment` names: `VISUAL`, else `EDITOR`, else `vi` (empty values
    /// skipped, as git does).
    public static func command(environment: [String: String]) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty { return value }
        }
        return "vi"
    }

    /// The editor `command` (a shell command line), run for real on this process's terminal.
    public static func system(command: String) -> ExternalEditor {
        ExternalEditor(command: command) { text, fileName in
            runOnTerminal(command: command, text: text, fileName: fileName)
        }
    }

    /// Writes `text` to a private file named `fileName`, runs `command` on it with this
    /// process's standard input, output and error, waits, reads it back and removes it.
    /// While the editor runs, this process ignores SIGINT and SIGQUIT (a Ctrl-C meant for
    /// the editor reaches the whole foreground group); the editor gets the default handlers.
    public static func runOnTerminal(command: String, text: String, fileName: String) -> EditorOutcome {
        let path: String
        switch writePrivately(text, fileName: fileName) {
        case .success(let written): path = written
        case .failure(let reason): return .couldNotRun(reason)
        }
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let status: Int32
        switch spawnAndWait(["/bin/sh", "-c", "\(command) \"$1\"", "sh", path]) {
        case .success(let exit): status = exit
        case .failure(let reason): return .couldNotRun(reason)
        }
        guard status == 0 else { return .failed(status: status) }
        // An editor may save by writing a new file in the old one's place: read it by path.
        guard let data = FileManager.default.contents(atPath: path) else { return .couldNotRun("can't read \(path) back") }
        let edited = String(decoding: data, as: UTF8.self)
        return edited == text ? .unchanged : .changed(edited)
    }

    /// Whether writing a private file worked: its path, or why not.
    public enum WriteResult: Equatable, Sendable { case success(String), failure(String) }

    /// Writes `text` to a file named `fileName` (0600) in a new folder of its own (0700)
    /// under the temporary directory; the caller removes the folder.
    public static func writePrivately(_ text: String, fileName: String) -> WriteResult {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        var template = Array(temporary.appendingPathComponent("ideabox-edit-XXXXXX").path.utf8CString)
        guard let folderPointer = mkdtemp(&template) else {
            return .failure("can't make a private folder in \(temporary.path): \(String(cString: strerror(errno)))")
        }
        let path = String(cString: folderPointer) + "/" + fileName
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, OwnerOnly.fileMode)
        guard descriptor >= 0 else { return .failure("can't write \(path): \(String(cString: strerror(errno)))") }
        let written = Array(text.utf8).withUnsafeBytes { Descriptor.writeAll($0, to: descriptor) }
        close(descriptor)
        return written ? .success(path) : .failure("can't write \(path)")
    }

    private enum SpawnResult { case success(Int32), failure(String) }

    /// The editor, run in this terminal (`ChildProcess.runInTerminal`).
    private static func spawnAndWait(_ arguments: [String]) -> SpawnResult {
        do {
            return .success(try ChildProcess.runInTerminal(arguments))
        } catch let error as ChildProcessError {
            return .failure(error.description)
        } catch {
            return .failure("\(error)")
        }
    }
}
