import Foundation
import ProcessTestSupport
import Testing

/// `E` in the real binary in tmux: the app leaves the screen to `$EDITOR` (here a script
/// standing in for a person), comes back, redraws and saves, or says why nothing changed.
@Suite("Your own editor in tmux", .takesTurns)
struct OwnEditorTests {
    /// A private folder holding an editor script with `body` (the file is `$1`), and the
    /// command that runs it: `/bin/sh FILE`, so that the script is read, not executed (a script
    /// just written cannot be executed while a program another suite is starting still holds a
    /// copy of this process's descriptor of it: "Text file busy").
    private func editorScript(_ body: String) throws -> (folder: URL, script: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-editor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("editor.sh")
        try Data("\(body)\n".utf8).write(to: script)
        return (folder, "/bin/sh " + script.path)
    }

    @Test func eOpensTheIdeaInTheEditorAndSavesWhatItWrote() async throws {
        let editor = try editorScript("""
            cp "$1" "$(dirname "$0")/seen.txt"
            printf 'Written in the editor\\n\\nwith a description\\n' > "$1"
            """)
        defer { try? FileManager.default.removeItem(at: editor.folder) }
        let session = try await TmuxSession(environment: ["EDITOR": editor.script, "VISUAL": nil], before: [["add", "Old", "-d", "words"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (1)", "Old")
        try await session.press("E")
        try await session.waitFor("the app back with the edit saved") { screen in
            screen.contains("All Ideas (1)") && screen.line(2).hasPrefix(">[ ] Written in the editor")
                && screen.contains("with a description")
        }
        #expect(try String(contentsOf: editor.folder.appendingPathComponent("seen.txt"), encoding: .utf8) == "Old\n\nwords\n")
        try await session.press("u")
        try await session.waitFor("the edit undone") { $0.line(2).hasPrefix(">[ ] Old") }
    }

    @Test func anEditorThatExitsNonZeroChangesNothingAndSaysSo() async throws {
        let editor = try editorScript("printf 'Lost\\n' > \"$1\"; exit 1")
        defer { try? FileManager.default.removeItem(at: editor.folder) }
        let session = try await TmuxSession(environment: ["EDITOR": editor.script, "VISUAL": nil], before: [["add", "Kept"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (1)", "Kept")
        try await session.press("E")
        try await session.waitFor("Nothing changed: the editor exited with status 1.")
        #expect(try await session.capture().line(2).hasPrefix(">[ ] Kept"))
    }
}
