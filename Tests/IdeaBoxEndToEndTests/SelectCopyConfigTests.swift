import Foundation
import ProcessTestSupport
import Testing

/// Issue 39's selection, copy, links and config file in the real binary in tmux: three
/// ideas done and undone in one `u`, OSC 52 and OSC 8 read from the pane's output, a config
/// file that remaps a key and sets a theme, and a broken one.
@Suite("Select many, copy, links and the config file in tmux", .takesTurns)
struct SelectCopyConfigTests {
    @Test func aSelectionOfThreeIsDoneAndUndoneInOneU() async throws {
        let session = try await TmuxSession(before: [["add", "One"], ["add", "Two"], ["add", "Three"], ["add", "Four"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (4)")
        try await session.press("v")
        try await session.press("j")
        try await session.press("j")
        try await session.waitFor("3 selected")
        try await session.press("x")
        try await session.waitFor("Marked 3 ideas done", "Completed (3)")
        try await session.press("u")
        try await session.waitFor("Undid done on 3 ideas", "Completed (0)")
    }

    @Test func yWritesOSC52AndALinkIsWrittenAsOSC8() async throws {
        let session = try await TmuxSession(environment: ["TERM": "tmux-256color"], before: [["add", "Plan", "-d", "first line"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (1)")
        let output = session.file("pane-output")
        try await session.pipeOutput(to: output)
        try await session.press("y")
        try await session.waitFor("Copied to the clipboard")
        try await Poll.until("the OSC 52 bytes in the pane's output") {
            let written = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            return written.contains("\u{1B}]52;c;" + Data("Plan\n\nfirst line".utf8).base64EncodedString() + "\u{07}")
        }
        _ = try await session.run(["add", "Read", "-d", "at https://example.com/x now"])
        try await session.waitFor("All Ideas (2)")
        try await Poll.until("the OSC 8 link in the pane's output") {
            let written = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            return written.contains("\u{1B}]8;;https://example.com/x\u{1B}\\https://example.com/x\u{1B}]8;;\u{1B}\\")
        }
    }

    @Test func underTERMLinuxTheCopyIsRefusedAndNoLinkIsSent() async throws {
        let session = try await TmuxSession(environment: ["TERM": "linux"], before: [["add", "Plan", "-d", "https://example.com"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (1)")
        let output = session.file("pane-output")
        try await session.pipeOutput(to: output)
        try await session.press("y")
        try await session.waitFor("This terminal refused the copy")
        let written = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(!written.contains("]52;"))
        #expect(!written.contains("]8;"))
    }

    @Test func aConfigFileRemapsAKeyAndSetsATheme() async throws {
        let config = try Self.configHome("""
            theme = "light"
            [keys]
            toggle-done = "t"
            """)
        defer { try? FileManager.default.removeItem(at: config) }
        let session = try await TmuxSession(environment: ["XDG_CONFIG_HOME": config.path], before: [["add", "Remapped"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (1)")
        try await session.press("x")
        try await session.press("t")
        try await session.waitFor("Marked done: “Remapped”", "Completed (1)")
        // The light theme's accent is blue (34), not the default's cyan (36).
        let colored = try await session.captureWithAttributes()
        #expect(colored.contains("34m"), "\(colored.debugDescription)")
        #expect(!colored.contains("36m"))
    }

    /// The form's keys from the file: the form saves with the key bound, and the hints and
    /// help name the keys bound in every context.
    @Test func aConfigFileRemapsTheFormsKeysAndTheHintsAndHelpSaySo() async throws {
        let config = try Self.configHome("""
            [keys]
            new = "a"
            [form-keys]
            save = "ctrl-o"
            """)
        defer { try? FileManager.default.removeItem(at: config) }
        let session = try await TmuxSession(environment: ["XDG_CONFIG_HOME": config.path], before: [["add", "First"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (1)", "a new")
        try await session.press("a")
        try await session.waitFor("Ctrl-O save")
        try await session.type("Second")
        // Ctrl-S is no longer save: the form stays open and takes the next character.
        try await session.press("C-s")
        try await session.type("!")
        try await session.press("C-o")
        try await session.waitFor("Added “Second!”", "All Ideas (2)")
        // At 80x24 help scrolls: its footer says with which keys; the form's part is further down.
        try await session.press("?")
        try await session.waitFor("a               new idea", "scroll · any other key closes")
        try await session.press("End")
        let help = try await session.waitFor("Edit form", "Ctrl-O ")
        #expect(!help.contains("Ctrl-S"), "\(help)")
    }

    @Test func aBrokenConfigFileIsOneSentenceAndTheDefaults() async throws {
        let config = try Self.configHome("""
            theme = "light"
            sort = 
            """)
        defer { try? FileManager.default.removeItem(at: config) }
        let session = try await TmuxSession(columns: 200, environment: ["XDG_CONFIG_HOME": config.path], before: [["add", "Still works"]])
        defer { session.close() }
        try await session.waitFor("line 2: not TOML", "started with the defaults")
        try await session.press("x")
        try await session.waitFor("Completed (1)")
    }

    /// A config home holding `ideabox/config.toml` with `text`.
    private static func configHome(_ text: String) throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("ideabox"), withIntermediateDirectories: true)
        try text.write(to: home.appendingPathComponent("ideabox/config.toml"), atomically: true, encoding: .utf8)
        return home
    }
}
