import ChildProcess
import Foundation
import ProcessTestSupport
import Synchronization
import Testing

/// `ChildProcess` and `RunningChild`: an awaited child holds no thread of the cooperative
/// pool, a time limit kills and says so, and the blocking forms still answer.
@Suite(.takesTurns) struct ChildProcessTests {
    /// More children than the pool has threads are awaited at once, each until a file appears
    /// that a task on the pool writes only once every one of them is awaited. A wait that held
    /// its thread would leave no thread to count them or to write the file: each child gives
    /// up after some 30 s and exits 1.
    @Test(.timeLimitFromTurn(.seconds(120)))
    func awaitedChildrenLeaveThePoolFree() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let signal = folder.appendingPathComponent("go").path
        let script = "i=0; while [ ! -e \"$1\" ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done; [ -e \"$1\" ]"
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let awaited = Count()
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let child = try ChildProcess.start(
                        "/bin/sh", ["-c", script, "sh", signal], environment: ["PATH": "/usr/bin:/bin"],
                        output: "/dev/null", error: "/dev/null")
                    awaited.add()
                    return try await child.exitStatus()
                }
            }
            group.addTask {
                try await Poll.until("every child is awaited", timeout: .seconds(30)) { awaited.value == count }
                FileManager.default.createFile(atPath: signal, contents: nil)
                return 0
            }
            var statuses: [Int32] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses == Array(repeating: 0, count: count + 1))
    }

    /// A child past its time limit is killed (SIGKILL) and the answer is nil, at once rather
    /// than at its own end.
    @Test func aTimeLimitKillsAndSaysSo() async throws {
        let child = try ChildProcess.start("/bin/sleep", ["30"], environment: [:], output: "/dev/null", error: "/dev/null")
        #expect(try await child.exitStatus(timeLimit: .milliseconds(200)) == nil)
        #expect(try child.endedStatus() == 128 + SIGKILL)
        let ran = try #require(child.runTime)
        #expect(ran >= .milliseconds(200) && ran < .seconds(20), "\(ran)")
    }

    /// Within its time limit, the answer is the exit status.
    @Test func anEndWithinTheLimitIsTheExitStatus() async throws {
        let child = try ChildProcess.start("/bin/sh", ["-c", "exit 3"], environment: [:], output: "/dev/null", error: "/dev/null")
        #expect(try await child.exitStatus(timeLimit: .seconds(60)) == 3)
        #expect(try await child.exitStatus() == 3, "asked again, the same answer")
    }

    /// `stop` sends its signal and awaits the end; `run` awaits the whole run.
    @Test func stopAndRun() async throws {
        let child = try ChildProcess.start("/bin/sleep", ["30"], environment: [:], output: "/dev/null", error: "/dev/null")
        #expect(try await child.stop(SIGTERM) == 128 + SIGTERM)
        #expect(try await ChildProcess.run("/bin/sh", ["-c", "exit 5"], environment: [:], output: "/dev/null", error: "/dev/null") == 5)
    }

    /// A child's standard output goes to its file, and it starts with no signal blocked, even
    /// when the thread that started it blocks some.
    @Test func outputAndSignalsOfAChild() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let status = try await OwnThread.run {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            sigaddset(&blocked, SIGCHLD)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            return try ChildProcess.runToEnd(
                "/bin/sh", ["-c", "grep SigBlk /proc/self/status"], environment: [:], output: output.path, error: "/dev/null")
        }
        #expect(status == 0)
        #expect(try String(contentsOf: output, encoding: .utf8) == "SigBlk:\t0000000000000000\n")
    }

    /// The blocking forms, on a thread of their own as their callers (the benchmarks) are.
    @Test func theBlockingFormsOnAThreadOfTheirOwn() async throws {
        let (ran, limited, stopped) = try await OwnThread.run {
            let ran = try ChildProcess.runToEnd("/bin/sh", ["-c", "exit 7"], environment: [:], output: "/dev/null", error: "/dev/null")
            let limited = try ChildProcess.start("/bin/sleep", ["30"], environment: [:], output: "/dev/null", error: "/dev/null")
                .waitForExit(timeLimit: .milliseconds(100))
            let stopped = try ChildProcess.start("/bin/sleep", ["30"], environment: [:], output: "/dev/null", error: "/dev/null")
                .stopAndWaitForExit(SIGKILL)
            return (ran, limited, stopped)
        }
        #expect(ran == 7)
        #expect(limited == nil)
        #expect(stopped == 128 + SIGKILL)
    }
}

/// A count tasks add to.
private final class Count: Sendable {
    private let count = Mutex(0)

    func add() {
        count.withLock { $0 += 1 }
    }

    var value: Int {
        count.withLock { $0 }
    }
}
