import Foundation
import ProcessTestSupport
import Testing

/// Two terminals, two profiles, one data root: what one does shows in the other with no
/// key pressed there (issue 4, section 8), pushed: the remote's file is watched (inotify),
/// so the other terminal syncs and draws within moments, where the engine's fallback, a
/// look every second, would take most of a second for each change.
@Suite("Live sync across terminals", .takesTurns)
struct LiveSyncTests {
    /// The bound on the median time from a key pressed in one terminal to its change drawn
    /// in the other. Pushed, each change took 17–65 ms (medians 34–45 ms over six runs on the
    /// 2-core machine, debug build, load average 4–8 from other builds). Without the watch the
    /// engine looks every second (`SyncEngine.periodicMilliseconds`), and as each change here
    /// is made as soon as the last one showed, just after a look, it waits nearly that second:
    /// with the watch made to fail, the medians were 992 and 1005 ms, and this test failed.
    /// 500 ms leaves a loaded CI machine ten times the pushed figure, and the median lets a
    /// few of the ten be slow.
    static let pushBound: Duration = .milliseconds(500)

    /// Add in A, done and undone in A six times, complete in B, delete in A, then an add made
    /// in airplane mode that waits until A's network is back; each change appears in the other
    /// terminal untouched, and the median of the times is under `pushBound`.
    @Test func changesReachTheOtherTerminalWithoutAKeyPress() async throws {
        let a = try await TmuxSession(environment: ["IDEABOX_PROFILE": "a"])
        defer { a.close() }
        let b = try await TmuxSession(environment: ["IDEABOX_PROFILE": "b"], sharingDataWith: a)
        defer { b.close() }
        for session in [a, b] {
            try await session.waitFor("an empty, synced app") { screen in
                screen.contains("All Ideas (0)") && screen.statusBar.contains("Synced")
            }
        }
        var delays: [(String, Duration)] = []

        let title = "從終端機 A 新增"
        try await a.press("n")
        try await a.waitFor("New idea")
        try await a.type(title)
        try await a.waitFor(title)
        delays.append(("added in A, shown in B", try await b.arrival("A's new idea in B", after: press("C-s", in: a)) { screen in
            screen.contains("All Ideas (1)") && screen.line(2).contains("[ ] \(title)")
        }))

        // Each change is made as soon as the last one showed: a look every second would have
        // just looked, and would take nearly a second to see it.
        for round in 1...6 {
            let mark = round.isMultiple(of: 2) ? "[ ]" : "[x]"
            delays.append(("done \(round) in A, shown in B", try await b.arrival("A's \(mark) \(round) in B", after: press("x", in: a)) { screen in
                screen.line(2).contains("\(mark) \(title)")
            }))
        }

        delays.append(("completed in B, shown in A", try await a.arrival("B's completion in A", after: press("x", in: b)) { screen in
            screen.line(2).hasPrefix(">[x] \(title)") && screen.contains("Completed (1)")
        }))

        try await a.press("d")
        try await a.waitFor("Delete “\(title)”? y/n")
        delays.append(("deleted in A, gone from B", try await b.arrival("A's delete in B", after: press("y", in: a)) { screen in
            // Not anywhere on the screen: B's own message about the idea it completed shows
            // its title for 4 s.
            screen.contains("All Ideas (0)") && !screen.line(2).contains(title)
        }))

        let offlineTitle = "飛航模式下新增 offline"
        try await a.press("o")
        try await a.waitFor("airplane mode in A") { $0.statusBar.contains("Offline") }
        try await a.press("n")
        try await a.waitFor("New idea")
        try await a.type(offlineTitle)
        try await a.waitFor(offlineTitle)
        try await a.press("C-s")
        try await a.waitFor("the offline idea pending in A") { screen in
            screen.line(2).hasPrefix(">[ ] \(offlineTitle)") && screen.statusBar.contains("Offline: 1 pending")
        }
        try await b.keeps("B without A's offline idea", for: .seconds(2)) { screen in
            !screen.contains(offlineTitle) && screen.contains("All Ideas (0)")
        }
        delays.append(("network back in A, offline idea shown in B", try await b.arrival(
            "A's offline idea in B once A is back online", after: press("o", in: a)
        ) { screen in
            screen.contains("All Ideas (1)") && screen.line(2).contains("[ ] \(offlineTitle)")
        }))
        try await a.waitFor("A synced again") { $0.statusBar.contains("Synced") && $0.statusBar.contains("0 pending") }

        for (what, delay) in delays { print("LiveSyncTests: \(what) after \(milliseconds(delay))") }
        let median = delays.map(\.1).sorted()[delays.count / 2]
        print("LiveSyncTests: median \(milliseconds(median)) of \(delays.count)")
        #expect(median < Self.pushBound, "median \(milliseconds(median)): \(delays.map { milliseconds($0.1) })")
    }

    /// A change for `arrival`: `key` pressed in `session`, counted from just before.
    private func press(_ key: String, in session: TmuxSession) -> () throws -> ContinuousClock.Instant {
        nonisolated(unsafe) let session = session
        return {
            let start = ContinuousClock.now
            try session.pressOnThisThread(key)
            return start
        }
    }

    /// `duration` in whole milliseconds, e.g. "1164 ms".
    private func milliseconds(_ duration: Duration) -> String {
        "\(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000) ms"
    }
}

extension Screen {
    /// The bottom row, where the sync state and messages show.
    var statusBar: String {
        line(lines.count - 1)
    }

    /// The status bar and the three rows above it, where a message too long for the bar
    /// shows, as one line of text (a wrapped message reads whole).
    var messages: String {
        lines.suffix(4).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}
