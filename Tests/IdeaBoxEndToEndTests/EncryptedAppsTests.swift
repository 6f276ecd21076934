import ChildProcess
import Foundation
import ProcessTestSupport
import Testing

/// Two apps through `ideabox serve` with the account encrypted: a change crosses live from
/// one to the other, both say they are synced; a third device signed in but locked says
/// `Encrypted — run ideabox account unlock` and keeps working locally, then, unlocked with
/// `account unlock`, shows the ideas. The server keeps none of the titles.
@Suite("Encrypted apps through serve", .takesTurns)
struct EncryptedAppsTests {
    private static let passphrase = "correct horse battery 電池"

    @Test func aChangeCrossesLiveAndALockedDeviceShowsTheIdeasOnceUnlocked() async throws {
        let (server, token, url) = try await ServeProcess.running(withAccount: "alice")
        defer { server.close() }
        let signIn = [["account", "sign-in", "alice", "--server", url, "--token", token]]

        let a = try await TmuxSession(columns: 100, rows: 24, before: signIn)
        defer { a.close() }
        try await a.waitFor("A synced") { $0.statusBar.contains("Synced") }
        let enabled = try await Self.ideabox(["account", "encryption", "enable"], in: a, input: "\(Self.passphrase)\n\(Self.passphrase)\n")
        #expect(enabled.hasPrefix("Encryption is on for account alice"), "\(enabled)")

        let first = "秘密計畫 sealed over HTTP"
        try await a.press("n")
        try await a.waitFor("New idea")
        try await a.type(first)
        try await a.waitFor(first)
        try await a.press("C-s")
        try await a.waitFor("A sent it") { $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending") }

        // B signs in: locked, it says so, until unlocked; then it shows A's idea.
        let b = try await TmuxSession(columns: 100, rows: 24, before: signIn)
        defer { b.close() }
        try await b.waitFor("B locked") { $0.statusBar.contains("Encrypted — run ideabox account unlock") }
        #expect(!b.lastScreen.contains(first))
        try await Self.ideabox(["account", "unlock"], in: b, input: "\(Self.passphrase)\n")
        try await b.press("s")
        try await b.waitFor("A's idea in B once unlocked") { $0.contains("All Ideas (1)") && $0.line(2).contains(first) }
        try await b.waitFor("B live") { $0.statusBar.contains("Synced") && $0.statusBar.contains("· live") }

        // A change crosses live, sealed, both ways.
        let second = "牛奶糖 Zanzibar"
        try await a.press("n")
        try await a.waitFor("New idea")
        try await a.type(second)
        try await a.waitFor(second)
        try await a.press("C-s")
        try await b.waitFor("A's second idea in B, live") { $0.contains("All Ideas (2)") && $0.contains(second) }
        try await b.press("x")
        try await a.waitFor("B's completion in A") { $0.contains("Completed (1)") }

        // C: signed in but locked; everything local works meanwhile.
        let c = try await TmuxSession(columns: 100, rows: 24, before: signIn)
        defer { c.close() }
        try await c.waitFor("C locked") { screen in
            screen.statusBar.contains("Encrypted — run ideabox account unlock") && screen.contains("All Ideas (0)")
        }
        let local = "Made while locked"
        try await c.press("n")
        try await c.waitFor("New idea")
        try await c.type(local)
        try await c.waitFor(local)
        try await c.press("C-s")
        try await c.waitFor("C's local idea") { $0.contains("All Ideas (1)") && $0.line(2).contains(local) }
        // The save starts a sync ("Syncing 0…" a moment, longer on a busy machine), which finds
        // the account locked again: the bar may show either, and nothing of A's arrives.
        try await c.keeps("C still locked, nothing received", for: .seconds(1)) { screen in
            let bar = screen.statusBar
            return (bar.contains("Encrypted — run ideabox account unlock") || bar.contains("Syncing")) && !screen.contains(first)
        }
        try await c.waitFor("C says it is locked") { $0.statusBar.contains("Encrypted — run ideabox account unlock") }
        try await Self.ideabox(["account", "unlock"], in: c, input: "\(Self.passphrase)\n")
        try await c.press("s")
        try await c.waitFor("C unlocked, with every idea") { screen in
            screen.contains("All Ideas (3)") && screen.contains(first) && screen.contains(second) && screen.contains(local)
        }
        try await a.waitFor("C's idea in A") { $0.contains("All Ideas (3)") && $0.contains(local) }
        try await c.waitFor("C synced") { $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending") }

        let kept = try NothingInClearTests.bytes(under: server.directory)
        for word in ["秘密計畫", "牛奶糖", "Zanzibar", local, Self.passphrase] {
            #expect(!NothingInClearTests.contains(kept, word), "found \(word) on the server")
        }
    }

    /// Runs `ideabox arguments…` on `session`'s data root with `input` on standard input and
    /// fast scrypt; it must succeed. Returns what it printed.
    @discardableResult
    static func ideabox(_ arguments: [String], in session: TmuxSession, input: String) async throws -> String {
        let stem = session.directory.appendingPathComponent("command-\(UUID().uuidString)")
        let (inputFile, output, error) = (stem.appendingPathExtension("in"), stem.appendingPathExtension("out"), stem.appendingPathExtension("err"))
        try Data(input.utf8).write(to: inputFile)
        let status = try await ChildProcess.run(
            try IdeaBoxBinary.url().path, arguments,
            environment: [
                "HOME": session.directory.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                "IDEABOX_HOME": session.dataRoot.path, "IDEABOX_NO_SAMPLES": "1", "IDEABOX_TEST_SCRYPT": "fast",
            ],
            input: inputFile.path, output: output.path, error: error.path)
        let printed = try String(contentsOf: output, encoding: .utf8)
        guard status == 0 else {
            throw EndToEndError(description: "ideabox \(arguments.joined(separator: " ")) exited \(status): \(try String(contentsOf: error, encoding: .utf8))")
        }
        return printed
    }
}
