import ArgumentParser
import ChildProcess
import Foundation

/// Runs `ideabox` on one data root, whole processes, timed from start to exit.
struct ProcessRunner {
    let binary: URL
    let root: URL

    struct Run {
        var duration: Duration
        /// The peak resident set, mapped pages of the database file included (`wait4`).
        var peakBytes: Int
        /// The most anonymous memory (the process's own, not the mapped file) seen while
        /// sampling every 10 ms; 0 when not sampled.
        var peakAnonymousBytes = 0
        var output: String
    }

    func timed(_ arguments: [String], sampling: Bool = false) throws -> Run {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-bench-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        var environment = ProcessInfo.processInfo.environment
        environment["IDEABOX_NO_SAMPLES"] = "1"
        let clock = ContinuousClock()
        let start = clock.now
        let child = try ChildProcess.start(
            binary.path, arguments + ["--data-dir", root.path], environment: environment, output: output.path, error: "/dev/null")
        var peakAnonymous = 0
        var ended: Int32?
        if sampling {
            // A long command: its own memory read from /proc while it runs.
            while true {
                ended = try child.endedStatus()
                guard ended == nil else { break }
                peakAnonymous = max(peakAnonymous, Self.anonymousBytes(of: child.pid))
                usleep(10_000)
            }
        }
        let status = try ended ?? child.waitForExit()
        let duration = clock.now - start
        guard status == 0 else { throw ValidationError("ideabox \(arguments.joined(separator: " ")) ended with \(status)") }
        return Run(
            duration: duration, peakBytes: child.peakResidentBytes ?? 0, peakAnonymousBytes: peakAnonymous,
            output: try String(contentsOf: output, encoding: .utf8))
    }

    /// `RssAnon` of /proc/PID/status, in bytes; 0 if it cannot be read.
    static func anonymousBytes(of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kibibytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kibibytes * 1024
    }
}
