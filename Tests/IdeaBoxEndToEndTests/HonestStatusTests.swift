import Foundation
import ProcessTestSupport
import Testing

/// The app and the command line claim only what is so, and heal without a restart: no
/// `live` while offline, a checked sign-in, a revoked token and a new sign-in followed by a
/// running app, a stopped server named at once.
@Suite("Honest status", .serialized, .takesTurns) struct HonestStatusTests {
    /// Airplane mode: the bar says offline and how to go online, and nothing about `live`;
    /// `status` agrees.
    @Test func offlineIsNeverLive() async throws {
        let session = try await TmuxSession(before: [["add", "離線時的靈感"]])
        defer { session.close() }
        try await session.waitFor("live") { $0.statusBar.contains("Synced") && $0.statusBar.contains("live") }
        try await session.press("o")
        let screen = try await session.waitFor("offline") { $0.statusBar.contains("Offline: 0 pending · o to go online") }
        #expect(!screen.statusBar.contains("live") && !screen.statusBar.contains("polling"), "\(screen.statusBar)")
        let status = try await session.run(["status"])
        #expect(status.contains("network: offline"), "\(status)")
        #expect(status.contains("changes arrive: not while offline"), "\(status)")
        try await session.press("o")
        try await session.waitFor("live again") { $0.statusBar.contains("Synced") && $0.statusBar.contains("live") }
    }

    /// Airplane mode on from before is named at launch; quitting with changes not yet sent
    /// says how many wait and when they go out.
    @Test func airplaneModeAtLaunchAndChangesWaitingAtQuit() async throws {
        let session = try await TmuxSession(before: [["remote", "offline", "on"], ["add", "一"], ["add", "二"]])
        defer { session.close() }
        try await session.waitFor("airplane mode named") {
            $0.contains("Airplane mode is still on: nothing syncs. Press o to go online.") && $0.statusBar.contains("Offline: 2 pending")
        }
        try await session.press("q")
        let screen = try await session.waitFor("the app to quit") { $0.contains(TmuxSession.exitMarker) }
        // The shell wraps the line at 80 columns.
        #expect(screen.lines.joined().contains("2 changes wait to be sent; kept on this device, they go out at the next start or ideabox sync."),
                "\(screen)")
    }

    /// On the embedded remote: a sign-out and a sign-in made by other commands reach the
    /// running app, which says it is local only meanwhile (and nothing about `live`).
    @Test func aSignOutAndASignInFromTheCommandLineReachTheRunningApp() async throws {
        let session = try await TmuxSession()
        defer { session.close() }
        try await session.waitFor("live") { $0.statusBar.contains("Synced") && $0.statusBar.contains("live") }
        try await session.run(["account", "sign-out"])
        try await session.run(["add", "寫在登出時"])
        let signedOut = try await session.waitFor("signed out") {
            $0.statusBar.contains("Not signed in — local only · 1 pending · sign in: ideabox account sign-in")
        }
        #expect(!signedOut.statusBar.contains("live") && !signedOut.statusBar.contains("polling"))
        try await session.run(["account", "sign-in", "default"])
        try await session.waitFor("synced again") { $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending") }
    }

    /// `sync --watch` says a change of state once, not once per try: a revoked token is one
    /// line however long it lasts, and a new sign-in made by another command is noticed.
    @Test func syncWatchPrintsOneLinePerChangeOfState() async throws {
        let (server, first, url) = try await ServeProcess.running(withAccount: "alice")
        defer { server.close() }
        let device = try DeviceProcess()
        try await device.run(["account", "sign-in", "alice", "--server", url, "--token", first])
        let (watch, output) = try device.startReadingOutput(["sync", "--watch"])
        defer { watch.stopInBackground() }
        try await output.waitFor("the first sync") { $0.contains { $0.contains("Synced:") } }
        try await server.command(["account", "token", "revoke", "alice", "first"])
        try await device.run(["add", "after the revoke"])
        try await output.waitFor("signed out") { $0.contains { $0.contains("Signed out by the server") } }
        // Local mode looks every 2 s without a word (SyncEngineTests counts the looks with a
        // stepped clock); here, the whole time signed out is one line.
        let second = try await server.command(["account", "token", "add", "alice", "--label", "laptop"])
        try await device.run(["account", "sign-in", "alice", "--server", url, "--token", second])
        try await output.waitFor("synced after the new sign-in") { $0.contains { $0.contains("Synced: 1 sent") } }
        #expect(output.lines.filter { $0.contains("Signed out by the server") }.count == 1, "\(output.lines)")
    }

    /// A wrong token is refused before it is kept: one sentence, a non-zero exit, and the
    /// sign-in that worked still syncs.
    @Test func aSignInIsCheckedBeforeItIsKept() async throws {
        let (server, token, url) = try await ServeProcess.running(withAccount: "alice")
        defer { server.close() }
        let device = try DeviceProcess()
        #expect(try await device.run(["account", "sign-in", "alice", "--server", url, "--token", token]).hasPrefix("Signed in as alice"))
        let wrong = try await device.execute(["account", "sign-in", "alice", "--server", url, "--token", "ibx_WRONG"])
        #expect(wrong.status != 0)
        #expect(wrong.error == "ideabox: Not signed in as alice: \(url) refused the token (mistyped, revoked, or for another container); "
            + "make one with ideabox serve account token add; the sign-in before is kept.\n", "\(wrong.error)")
        try await device.run(["add", "kept"])
        #expect(try await device.run(["sync"]).contains("1 sent"), "the sign-in before still works")
        #expect(try await device.run(["status"]).contains("last error: none"))
    }

    /// A server that stops is named at once: `sync` fails within 2 s naming the host and
    /// that nothing listens, and the running app's bar says so within 2 s.
    @Test func aStoppedServerIsNamedAtOnce() async throws {
        let (server, token, url) = try await ServeProcess.running(withAccount: "alice")
        defer { server.close() }
        let host = url.replacingOccurrences(of: "http://", with: "")
        let signIn = ["account", "sign-in", "alice", "--server", url, "--token", token]
        let session = try await TmuxSession(columns: 120, before: [signIn])
        defer { session.close() }
        try await session.waitFor("live") { $0.statusBar.contains("Synced") && $0.statusBar.contains("live") }
        let device = try DeviceProcess()
        try await device.run(signIn)

        try await server.stop(SIGKILL)
        let refused = try await device.timedExecute(["sync"])
        #expect(refused.status != 0)
        #expect(refused.error == "ideabox: The remote failed: nothing listens at \(host) (connection refused).\n", "\(refused.error)")
        #expect(refused.took < .seconds(2), "sync took \(refused.took) to fail")
        let screen = try await session.waitFor("the stopped server named in the bar", timeout: .seconds(2) - refused.took) {
            $0.statusBar.contains("nothing listens at \(host)")
        }
        #expect(!screen.statusBar.contains("live"), "\(screen.statusBar)")
        try await server.start()
        try await session.press("s")
        try await session.waitFor("synced again") { $0.statusBar.contains("Synced") }
    }

    /// A token revoked with `serve account token revoke` shows as signed out by the server;
    /// a new sign-in from another command reaches the running app without a restart.
    @Test func aRevokedTokenAndANewSignInReachTheRunningApp() async throws {
        let (server, first, url) = try await ServeProcess.running(withAccount: "alice")
        defer { server.close() }
        let session = try await TmuxSession(before: [["account", "sign-in", "alice", "--server", url, "--token", first]])
        defer { session.close() }
        try await session.waitFor("live") { $0.statusBar.contains("Synced") && $0.statusBar.contains("live") }

        try await server.command(["account", "token", "revoke", "alice", "first"])
        try await session.press("s")
        let signedOut = try await session.waitFor("signed out by the server") {
            $0.statusBar.contains("Signed out by the server · 0 pending · sign in again: ideabox account sign-in")
        }
        #expect(!signedOut.statusBar.contains("live"))
        try await session.type("n")
        try await session.waitFor("New idea")
        try await session.type("寫在被登出時")
        try await session.press("C-s")
        try await session.waitFor("kept locally") { $0.contains("寫在被登出時") && $0.statusBar.contains("1 pending") }

        let second = try await server.command(["account", "token", "add", "alice", "--label", "laptop"])
        try await session.run(["account", "sign-in", "alice", "--server", url, "--token", second])
        try await session.waitFor("synced with the new sign-in", timeout: .seconds(10)) {
            $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending")
        }
        let other = try DeviceProcess()
        try await other.run(["account", "sign-in", "alice", "--server", url, "--token", second])
        try await other.run(["sync"])
        #expect(try await other.run(["list"]).contains("寫在被登出時"))
    }
}
