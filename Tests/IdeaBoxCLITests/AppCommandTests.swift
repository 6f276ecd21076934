import Foundation
import ProcessTestSupport
import Testing

/// `ideabox` with no subcommand, the full-screen app, where no terminal can show it.
@Suite(.takesTurns) struct AppCommandTests {
    /// Runs `shell` (with `$IDEABOX` the binary) under bash's `time`; returns its exit
    /// status, its standard error and the CPU seconds (user + system) it used.
    private func timed(_ shell: String, sandbox: Sandbox) async throws -> (status: Int32, stderr: String, cpu: Double, wall: Double) {
        let binary = try IdeaBoxBinary.url().path
        let script = """
            TIMEFORMAT='%U %S'
            { time timeout -s KILL 10 bash -c '\(shell)' 2>stderr.txt; } 2>time.txt
            """
        let result = try await IdeaBoxBinary.run(
            executable: URL(fileURLWithPath: "/bin/bash"), arguments: ["-c", script + "; exit ${PIPESTATUS[0]}"],
            environment: sandbox.environment.merging(["IDEABOX": binary], uniquingKeysWith: { $1 }),
            currentDirectory: sandbox.directory, input: nil)
        let elapsed = result.ran.components
        let wall = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let times = try String(contentsOf: sandbox.directory.appendingPathComponent("time.txt"), encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        let stderr = try String(contentsOf: sandbox.directory.appendingPathComponent("stderr.txt"), encoding: .utf8)
        return (result.status, stderr, times.reduce(0, +), wall)
    }

    @Test(arguments: [
        "\"$IDEABOX\" </dev/null >out.txt",
        "true | \"$IDEABOX\" >out.txt",
        "\"$IDEABOX\" --no-mouse </dev/null",
    ])
    func withoutATerminalTheAppRefusesAtOnceWithoutSpinning(shell: String) async throws {
        let sandbox = try Sandbox()
        let run = try await timed(shell, sandbox: sandbox)
        #expect(run.status != 0 && run.status != 137, "a refusal, not a kill: \(run.status)")
        #expect(run.wall < 2, "exits within 2 s: \(run.wall)")
        #expect(run.cpu < 0.5, "used \(run.cpu) s of CPU")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(run.stderr)")
        #expect(run.stderr.contains("needs a terminal") && run.stderr.contains("list, search"), "\(run.stderr)")
        let output = (try? String(contentsOf: sandbox.directory.appendingPathComponent("out.txt"), encoding: .utf8)) ?? ""
        #expect(!output.contains("\u{1B}"), "no escape codes written into the file")
        #expect(!FileManager.default.fileExists(atPath: sandbox.databaseFile().path), "nothing opened or created")
    }

    @Test func theRefusalIsInChineseUnderAChineseLocale() async throws {
        let sandbox = try Sandbox(language: "zh_TW.UTF-8")
        let result = try await sandbox.run([])
        #expect(result.status != 0)
        #expect(result.stderr.contains("全螢幕介面需要在終端機中執行"), "\(result.stderr)")
    }
}
