import Foundation
import ProcessTestSupport
import Testing

/// The habits of a good terminal app, in the real binary in tmux: Ctrl-Z and `fg`, the
/// mouse, multi-level undo, an edit that survives a delete on another device, the status
/// bar offline, and a refusal where no terminal can show the app.
@Suite("The app's habits in tmux", .takesTurns)
struct AppHabitsTests {
    @Test func ctrlZSuspendsToTheShellAndFgRedrawsTheApp() async throws {
        let session = try await TmuxSession(before: [["add", "Suspend me"]], jobControl: true)
        defer { session.close() }
        try await session.waitFor("the shell's prompt") { $0.lines.contains { $0.hasPrefix("$") } }
        try await session.type(session.appCommand)
        try await session.press("Enter")
        try await session.waitFor("All Ideas (1)", "Suspend me")
        try await session.press("C-z")
        try await session.waitFor("the shell with the app stopped") { screen in
            screen.contains("Stopped") && !screen.contains("All Ideas (1)")
        }
        try await session.type("fg")
        try await session.press("Enter")
        // The whole frame, down to the hint line: a capture can land while it is being written.
        try await session.waitFor("the app redrawn whole") { screen in
            screen.contains("All Ideas (1)") && screen.line(2).hasPrefix(">[ ] Suspend me") && !screen.contains("Stopped")
                && screen.line(22).contains("? help  q quit")
        }
        try await session.press("j")
        try await session.press("q")
        try await session.waitFor("the shell back after quitting") { $0.lines.last { !$0.isEmpty } == "$" }
    }

    /// Under tmux's own TERM and under xterm-256color, whose terminfo names the SGR mouse
    /// prefix `\E[<` as a key of its own.
    @Test(arguments: ["tmux-256color", "xterm-256color"])
    func aClickSelectsARowAndADoubleClickEditsIt(term: String) async throws {
        let session = try await TmuxSession(
            environment: ["TERM": term], before: [["add", "First"], ["add", "Second"], ["add", "Third"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (3)")
        // A press of the left button at column 10 of the fifth row (1-based), SGR encoded.
        let press = Array("\u{1B}[<0;10;5M".utf8)
        try await session.send(bytes: press)
        try await session.waitFor("the clicked row selected") { $0.line(4).hasPrefix(">[ ] First") }
        try await session.send(bytes: press + press)
        try await session.waitFor("Edit idea", "First")
        try await session.press("Escape")
        let tab = Array("\u{1B}[<0;35;1M".utf8)
        try await session.send(bytes: tab)
        try await session.waitFor("the Completed tab") { $0.contains("Nothing completed yet.") }
    }

    /// `g` goes to the top at once and the hint line says it waits; a second later the hint
    /// is gone and `x` is itself: the top idea is marked done, no link is looked for. The hint
    /// shows for that second only, which a look at the pane on a busy machine can miss: the
    /// hint itself is `KeySequenceScreenTests`' (with the clock in hand), here it may be over.
    @Test func gGoesToTheTopSaysItWaitsAndAKeyAfterTheWaitIsItself() async throws {
        let session = try await TmuxSession(before: [["add", "One"], ["add", "Two", "-d", "https://example.com/two"], ["add", "Three"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (3)")
        try await session.press("j", "j")
        try await session.waitFor("the cursor on the last idea") { $0.line(4).hasPrefix(">[ ] One") }
        try await session.press("g")
        // The cursor's move and the hint come in one frame.
        try await session.waitFor("the cursor on top, g waiting on the hint line or its wait over") { screen in
            screen.line(2).hasPrefix(">[ ] Three")
                && (screen.line(22).contains("g… then  x open the first link") || screen.line(22).contains("? help  q quit"))
        }
        try await session.waitFor("the wait over") { $0.line(22).contains("? help  q quit") }
        try await session.press("x")
        try await session.waitFor("Marked done: “Three”")
    }

    @Test func twoDeletesAreUndoneOneByOneAndRedone() async throws {
        let session = try await TmuxSession(before: [["add", "One"], ["add", "Two"], ["add", "Three"]])
        defer { session.close() }
        try await session.waitFor("All Ideas (3)")
        try await session.press("d", "y")
        try await session.waitFor("All Ideas (2)")
        try await session.press("d", "y")
        try await session.waitFor("All Ideas (1)")
        try await session.press("u")
        try await session.waitFor("All Ideas (2)", "Undid delete of “Two”")
        try await session.press("u")
        try await session.waitFor("All Ideas (3)", "Undid delete of “Three”")
        try await session.press("C-r")
        try await session.waitFor("All Ideas (2)", "Redid delete of “Three”")
    }

    @Test func anEditOfAnIdeaDeletedOnAnotherDeviceIsSavedAsANewIdea() async throws {
        let session = try await TmuxSession(before: [["add", "Shared idea"]])
        defer { session.close() }
        try await session.waitFor("Shared idea")
        let id = try await session.run(["list", "--json"]).split(separator: "\"").drop { $0 != "id" }.dropFirst(2).first.map(String.init)
        try await session.press("e")
        try await session.waitFor("Edit idea")
        try await session.press("End")
        try await session.type(" with my words")
        try await session.waitFor("Shared idea with my words")
        try await session.run(["rm", try #require(id)])
        try await session.press("C-s")
        // Deleted by another command of this profile: this device, meanwhile.
        try await session.waitFor("Deleted meanwhile on this device. Save your text as a new idea? y/n")
        try await session.press("y")
        try await session.waitFor("the text saved as a new idea") { screen in
            screen.contains("Saved as a new idea") && screen.line(2).hasPrefix(">[ ] Shared idea with my words")
                && screen.contains("All Ideas (1)")
        }
    }

    @Test func offlineTheStatusBarAndSSayWhyNothingIsSent() async throws {
        let session = try await TmuxSession(before: [["add", "Stays here"]])
        defer { session.close() }
        try await session.waitFor("Stays here")
        try await session.waitFor("a first sync") { $0.line(23).contains("Synced") }
        try await session.press("o")
        try await session.waitFor("the status bar offline") { $0.line(23).contains("Offline") }
        try await session.press("s")
        try await session.waitFor("Nothing sent: offline. Press o to go online.")
        try await session.press("x")
        try await session.waitFor("the change waiting") { $0.line(23).contains("Offline: 1 pending") }
        try await session.press("o")
        try await session.waitFor("the change sent once the network is back") { $0.line(23).contains("Synced") }
    }

    @Test func aTerminalThatCannotMoveTheCursorIsRefusedWithOneLine() async throws {
        let session = try await TmuxSession(environment: ["TERM": "dumb"])
        defer { session.close() }
        let screen = try await session.waitFor("the refusal") { $0.contains(TmuxSession.exitMarker) }
        #expect(screen.contains("TERM=dumb cannot show the full-screen app"), "\(screen)")
        #expect(!screen.contains("\(TmuxSession.exitMarker) 0"), "\(screen)")
    }

    /// A type terminfo has no entry for is called unknown, not unable to move the cursor, in a
    /// window wide enough to hold the whole line on one row.
    @Test(arguments: [
        ("C.UTF-8", "ideabox: The terminal type TERM=nosuchterm is unknown to this system's terminfo"),
        ("zh_TW.UTF-8", "ideabox: 這台系統的 terminfo 不認得終端機類型 TERM=nosuchterm"),
    ])
    func anUnknownTerminalTypeIsCalledUnknown(language: String, refusal: String) async throws {
        let session = try await TmuxSession(columns: 400, environment: ["TERM": "nosuchterm", "LANG": language])
        defer { session.close() }
        let screen = try await session.waitFor("the refusal") { $0.contains(TmuxSession.exitMarker) }
        #expect(screen.line(0).hasPrefix(refusal), "\(screen)")
        #expect(screen.line(0).contains("TERM=xterm-256color ideabox"), "\(screen)")
        #expect(!screen.contains("cursor") && !screen.contains("游標"), "\(screen)")
        #expect(!screen.contains("\(TmuxSession.exitMarker) 0"), "\(screen)")
    }

    @Test(arguments: [
        ("C.UTF-8", "ideabox: TERM is not set, so the full-screen app does not know what terminal it draws on; "),
        ("zh_TW.UTF-8", "ideabox: 沒有設定 TERM，全螢幕介面不知道要在哪種終端機上顯示；"),
    ])
    func anUnsetTermIsSaidToBeNotSet(language: String, refusal: String) async throws {
        let session = try await TmuxSession(columns: 400, environment: ["TERM": nil, "LANG": language])
        defer { session.close() }
        let screen = try await session.waitFor("the refusal") { $0.contains(TmuxSession.exitMarker) }
        #expect(screen.line(0).hasPrefix(refusal), "\(screen)")
        #expect(screen.line(0).contains("TERM=xterm-256color ideabox"), "\(screen)")
        #expect(!screen.contains("TERM=unset"), "\(screen)")
        #expect(!screen.contains("\(TmuxSession.exitMarker) 0"), "\(screen)")
    }
}
