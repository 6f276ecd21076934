import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts programs with `posix_spawn` rather than `Process`, for tmux's sake: a test runs
/// on a Dispatch thread that blocks most signals, and a child inherits that mask. The
/// tmux server forks from its first client, so with that mask it never sees SIGCHLD or
/// SIGTERM and `kill-server` can't end it. Here every child starts with no signal blocked
/// and default handlers. Output goes to files rather than pipes, which the server would
/// hold open for its whole life.
enum ChildProcess {
    /// Runs `executable` with `arguments` and exactly `environment`, standard input empty and
    /// standard output and error written to the files at `output` and `error`; returns the
    /// exit status (128 + the signal number if a signal ended it).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], output: String, error: String
    ) throws -> Int32 {
        try wait(for: spawn(executable, arguments, environment: environment, output: output, error: error), executable)
    }

    /// Starts `executable` as `run` does and returns at once.
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], output: String, error: String
    ) throws -> RunningChild {
        RunningChild(pid: try spawn(executable, arguments, environment: environment, output: output, error: error), name: executable)
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], output: String, error: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var catchableSignals = sigset_t()
        sigemptyset(&catchableSignals)
        for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP {
            sigaddset(&catchableSignals, signal)
        }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &catchableSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawnError = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawnError == 0 else {
            throw EndToEndError(description: "cannot start \(executable): \(String(cString: strerror(spawnError)))")
        }
        return pid
    }

    /// Waits for `pid` to end; its exit status, or 128 + the signal that ended it.
    fileprivate static func wait(for pid: pid_t, _ executable: String) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw EndToEndError(description: "waiting for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

/// A program started by `ChildProcess.start`, still running until `stop` or `wait`.
final class RunningChild {
    let pid: pid_t
    private let name: String
    private var status: Int32?

    fileprivate init(pid: pid_t, name: String) {
        self.pid = pid
        self.name = name
    }

    /// Sends `signal` (SIGTERM: stop cleanly; SIGKILL: die at once) and waits for the end;
    /// returns the exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) throws -> Int32 {
        if status == nil { kill(pid, signal) }
        return try wait()
    }

    /// Waits for the program to end by itself; returns the exit status.
    @discardableResult
    func wait() throws -> Int32 {
        if let status { return status }
        let ended = try ChildProcess.wait(for: pid, name)
        status = ended
        return ended
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = try? wait()
        }
    }
}
