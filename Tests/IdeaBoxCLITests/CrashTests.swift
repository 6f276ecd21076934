import ChildProcess
import Foundation
import ProcessTestSupport
import Testing

/// kill -9 right after an edit is reported saved loses nothing: every acknowledged change
/// is in the list, waits in the outbox, and reaches another device with the next sync.
@Suite(.takesTurns) struct CrashTests {
    /// Adds and edits ideas in a row, one process each, and reports each one once its
    /// process has said it is saved. Runs in its own session, so one kill of the process
    /// group takes the shell and whichever `ideabox` is running.
    private static let loop = """
        binary=$1; round=$2; i=1
        while [ "$i" -le 500 ]; do
            id=$("$binary" add "r$round idea $i") || exit 1
            echo "added $id"
            "$binary" edit "$id" --title "r$round idea $i edited" >/dev/null || exit 1
            echo "edited $id"
            i=$((i + 1))
        done
        """

    /// What a round acknowledged before it was killed.
    private struct Acknowledged {
        var added: [String] = []
        var edited: Set<String> = []
    }

    @Test(.timeLimitFromTurn(.seconds(180)))
    func killNineAfterSavedEditsLosesNothing() async throws {
        let sandbox = try Sandbox()
        // Odd counts stop the loop while an edit is on its way, even counts while an add is.
        let first = try await killedRound(1, afterReports: 3, sandbox: sandbox)
        try await check([first], sandbox: sandbox, pendingRounds: [1])
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        #expect(try await sandbox.status("A").pendingCount == 0)

        let second = try await killedRound(2, afterReports: 6, sandbox: sandbox)
        let third = try await killedRound(3, afterReports: 9, sandbox: sandbox)
        try await check([first, second, third], sandbox: sandbox, pendingRounds: [2, 3])

        let ideasOnA = try await sandbox.ideas(on: "A")
        let pending = try await sandbox.status("A").pendingCount
        #expect(try await sandbox.sync("A").sent == pending)
        #expect(try await sandbox.sync("B").received == pending)
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
        #expect(try await Set(sandbox.ideas(on: "B").map(\.idString)) == Set(ideasOnA.map(\.idString)))
        #expect(try await sandbox.status("A").pendingCount == 0)
    }

    /// Every acknowledged add is there, every acknowledged edit too, and the outbox holds one
    /// change for each idea of `pendingRounds` (none of them has been sent).
    private func check(_ rounds: [Acknowledged], sandbox: Sandbox, pendingRounds: [Int]) async throws {
        let ideas = try await sandbox.ideas(on: "A")
        let byId = Dictionary(uniqueKeysWithValues: ideas.map { ($0.idString, $0) })
        for round in rounds {
            for id in round.added {
                #expect(byId[id] != nil, "acknowledged add \(id) is missing")
            }
            for id in round.edited {
                #expect(byId[id]?.title.hasSuffix(" edited") == true, "acknowledged edit of \(id) is missing")
            }
        }
        let unsent = ideas.filter { idea in pendingRounds.contains { idea.title.hasPrefix("r\($0) ") } }
        #expect(try await sandbox.status("A").pendingCount == unsent.count)
        #expect(unsent.allSatisfy { $0.lastSyncedAt == nil })
    }

    /// Runs the loop on profile A and kills it with SIGKILL right after it has reported
    /// `afterReports` saved changes.
    private func killedRound(_ round: Int, afterReports: Int, sandbox: Sandbox) async throws -> Acknowledged {
        var environment = sandbox.environment
        environment["IDEABOX_PROFILE"] = "A"
        let output = sandbox.directory.appendingPathComponent("loop-\(round).out")
        let errors = sandbox.directory.appendingPathComponent("loop-\(round).err")
        let loop = try ChildProcess.start(
            "/bin/sh", ["-c", Self.loop, "sh", try IdeaBoxBinary.url().path, String(round)], environment: environment,
            directory: sandbox.directory.path, output: output.path, error: errors.path, newSession: true)
        let deadline = ContinuousClock.now + .seconds(60)

        var acknowledged = Acknowledged()
        var reports = 0
        var consumed = 0
        // The loop's reports, read from its output file as they arrive, line by line.
        reading: while reports < afterReports && ContinuousClock.now < deadline {
            let data = (try? Data(contentsOf: output)) ?? Data()
            var lines = data.dropFirst(consumed)
            while let newline = lines.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: lines[lines.startIndex..<newline], as: UTF8.self)
                consumed += line.utf8.count + 1
                lines = lines[(newline + 1)...]
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "added": acknowledged.added.append(parts[1]); reports += 1
                case "edited": acknowledged.edited.insert(parts[1]); reports += 1
                default: break
                }
                if reports == afterReports { break reading }
            }
            if kill(loop.pid, 0) != 0 { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        // The shell leads its own group: one kill takes it and whichever `ideabox` runs, and
        // the wait lasts until every one of them is gone.
        try await loop.killGroup()
        let errorText = String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self)
        #expect(reports == afterReports, "round \(round) stopped early: \(errorText)")
        #expect(Set(acknowledged.added).count == acknowledged.added.count)
        return acknowledged
    }
}
