import Foundation
import ProcessTestSupport
import Testing

/// Two apps side by side in tmux, on two profiles of one data root (two devices of one
/// account through the embedded remote), or an app and the command line signed in to one
/// `ideabox serve`: the form notices the other device's change and asks about a field both
/// changed; undo refuses to wipe the other device's newer edit; `h` shows a lost value and
/// `r` restores it; undo and redo of an add.
@Suite("Two apps side by side", .takesTurns)
struct TwoAppsTests {
    @Test func theFormNoticesAnotherDevicesChangeAndAsksAboutAFieldBothChanged() async throws {
        let a = try await TmuxSession(columns: 100, rows: 24, environment: ["IDEABOX_PROFILE": "a"], before: [["add", "Shared plan", "--profile", "a"]])
        defer { a.close() }
        let b = try await TmuxSession(
            columns: 100, rows: 24, environment: ["IDEABOX_PROFILE": "b"], before: [["device", "name", "phone", "--profile", "b"]],
            sharingDataWith: a)
        defer { b.close() }
        try await b.waitFor("A's idea in B") { $0.contains("All Ideas (1)") && $0.line(2).contains("Shared plan") }
        try await a.waitFor("A synced") { $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending") }

        // A opens the form and types; B renames the idea and gives it a description.
        try await a.press("e")
        try await a.waitFor("Edit idea")
        try await a.type(" (A)")
        try await a.waitFor("Shared plan (A)")
        try await b.press("e")
        try await b.waitFor("Edit idea")
        try await b.press("C-u")
        try await b.type("Shared plan (B)")
        try await b.press("Tab")
        try await b.type("B's notes")
        try await b.press("C-s")
        try await b.waitFor("B saved") { $0.line(2).contains("Shared plan (B)") }

        try await a.waitFor("A's form notices B's change") { screen in
            screen.contains("Changed on phone: title, description") && screen.contains("Shared plan (A)")
        }
        try await a.press("C-s")
        try await a.waitFor("Title changed here and on phone: m keep mine, t keep theirs")
        try await a.press("m")
        // A's title wins, B's description stays: the save wrote only what A changed.
        try await a.waitFor("A's title with B's notes") { $0.line(2).contains("Shared plan (A)  B's notes") }
        try await b.waitFor("the merge in B") { $0.line(2).contains("Shared plan (A)  B's notes") }

        // B's title lost: it is in B's history, and `r` makes it current again.
        try await b.press("h")
        try await b.waitFor("B's history with its lost title") { screen in
            screen.contains("History of “Shared plan (A)”") && screen.contains("“Shared plan (B)”")
        }
        // B's history names A by its default name (the host's, with its profile) and itself
        // as this device, never by an id.
        let history = try await b.capture()
        #expect(history.contains("on this device  "), "\(history.lines.joined(separator: "\n"))")
        #expect(history.contains(" (a)  "), "A's default name: \(history.lines.joined(separator: "\n"))")
        let screen = try await b.capture()
        let versionRow = screen.lines.firstIndex { $0.contains("“Shared plan (B)”") }! - 1
        let currentRow = screen.lines.firstIndex { $0.contains("> current") }!
        for _ in 0..<((versionRow - currentRow) / 3) { try await b.press("j") }
        try await b.waitFor("the lost version under the cursor") { $0.line(versionRow).contains("> version") }
        try await b.press("r")
        try await b.waitFor("B's title restored") { $0.contains("Restored version") }
        try await b.press("Escape")
        try await a.waitFor("the restore in A") { $0.line(2).contains("Shared plan (B)  B's notes") }
    }

    @Test func undoRefusesToWipeAnotherDevicesNewerEdit() async throws {
        let a = try await TmuxSession(columns: 120, environment: ["IDEABOX_PROFILE": "a"], before: [["add", "draft", "--profile", "a"]])
        defer { a.close() }
        try await a.waitFor("A synced") { $0.contains("All Ideas (1)") && $0.statusBar.contains("Synced") }
        try await a.press("e")
        try await a.waitFor("Edit idea")
        try await a.press("C-u")
        try await a.type("v1")
        try await a.press("C-s")
        try await a.waitFor("A's edit") { $0.line(2).contains("[ ] v1") && $0.statusBar.contains("0 pending") }

        // Another device (the command line on profile b) edits after seeing v1.
        try await a.run(["sync", "--profile", "b"])
        let id = try await a.run(["list", "--profile", "b"]).prefix(8)
        try await a.run(["edit", String(id), "--title", "v1 v2", "--profile", "b"])
        try await a.run(["sync", "--profile", "b"])
        try await a.waitFor("B's edit in A") { $0.line(2).contains("[ ] v1 v2") }

        try await a.press("u")
        try await a.waitFor("undo refused") { screen in
            screen.messages.contains("Changed on another device since; nothing undone")
        }
        try await a.keeps("B's words kept", for: .seconds(1)) { $0.line(2).contains("[ ] v1 v2") }
        #expect(try await a.run(["show", String(id), "--profile", "b"]).contains("title: v1 v2"))
    }

    @Test func undoAndRedoOfAnAdd() async throws {
        let a = try await TmuxSession(environment: ["IDEABOX_PROFILE": "a"])
        defer { a.close() }
        let b = try await TmuxSession(environment: ["IDEABOX_PROFILE": "b"], sharingDataWith: a)
        defer { b.close() }
        try await a.waitFor("All Ideas (0)")
        try await a.press("n")
        try await a.waitFor("New idea")
        try await a.type("Added by mistake")
        try await a.press("C-s")
        try await b.waitFor("the add in B") { $0.contains("All Ideas (1)") && $0.contains("Added by mistake") }
        try await a.press("u")
        try await a.waitFor("the add undone") { $0.contains("All Ideas (0)") && $0.messages.contains("Undid add of “Added by mistake”") }
        try await b.waitFor("the undo in B") { $0.contains("All Ideas (0)") }
        try await a.press("C-r")
        try await a.waitFor("the add redone") { $0.contains("All Ideas (1)") && $0.messages.contains("Redid add of “Added by mistake”") }
        try await b.waitFor("the redo in B") { $0.contains("All Ideas (1)") && $0.contains("Added by mistake") }
    }

    /// The same through `ideabox serve`: an app on one machine, the command line on another.
    @Test func throughServeTheFormNoticesAndUndoRefuses() async throws {
        let server = try ServeProcess()
        defer { server.close() }
        let token = try await server.addAccount("alice")
        try await server.start()
        let signIn = ["account", "sign-in", "alice", "--server", try server.url, "--token", token]
        let a = try await TmuxSession(columns: 120, before: [signIn, ["add", "draft"]])
        defer { a.close() }
        let b = try DeviceProcess()
        try await b.run(signIn)
        try await b.run(["device", "name", "phone"])
        try await a.waitFor("A synced") { $0.contains("All Ideas (1)") && $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending") }
        try await b.run(["sync"])
        let id = await String(try b.run(["list"]).prefix(8))

        // The form: B gives the idea a description while A types a title.
        try await a.press("e")
        try await a.waitFor("Edit idea")
        try await a.type(" v1")
        try await b.run(["edit", id, "--description", "B's notes"])
        try await b.run(["sync"])
        try await a.waitFor("A's form notices B's change") { $0.contains("Changed on phone: description") }
        try await a.press("C-s")
        try await a.waitFor("both kept") { $0.line(2).contains("[ ] draft v1  B's notes") && $0.statusBar.contains("0 pending") }

        // Undo: B renames after seeing A's edit; A's undo would wipe B's words.
        try await b.run(["sync"])
        try await b.run(["edit", id, "--title", "draft v1 v2"])
        try await b.run(["sync"])
        try await a.waitFor("B's rename in A") { $0.line(2).contains("[ ] draft v1 v2  B's notes") }
        try await a.press("u")
        try await a.waitFor("undo refused") { $0.messages.contains("Changed on another device since; nothing undone") }
        try await b.run(["sync"])
        #expect(try await b.run(["show", id]).contains("title: draft v1 v2"))
    }
}

