import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How the tests and the benchmarks start a program: `posix_spawn`, not `Process`, whose
/// spawning costs tens of milliseconds on Linux (more than the `ideabox` commands the
/// benchmarks time) and which waits until its child's end of a pipe closes.
///
/// A test runs on a Dispatch thread that blocks most signals, and a child inherits that
/// mask: the tmux server forks from its first client, so with that mask it never sees
/// SIGCHLD or SIGTERM and `kill-server` can't end it. Here every child starts with no
/// signal blocked and default handlers. Standard input is `/dev/null` or a file, standard
/// output and error go to files rather than pipes (which a tmux server would hold open for
/// its whole life, and which a killed program's children would keep open after it).
public enum ChildProcess {
    /// Runs `executable` with `arguments` and `environment` (and `LLVM_PROFILE_FILE`:
    /// `start`), standard input from the file at `input` (empty if nil), standard output and
    /// error written to the files at `output` and `error`; returns the exit status (128 + the
    /// signal number if a signal ended it). `directory` is its working directory (this
    /// process's if nil).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil,
        input: String? = nil, output: String, error: String
    ) throws -> Int32 {
        try start(
            executable, arguments, environment: environment, directory: directory, input: input, output: output, error: error
        ).wait()
    }

    /// Starts `executable` as `run` does and returns at once. The child's environment is
    /// exactly `environment`, but for one variable: when this process has `LLVM_PROFILE_FILE`
    /// and `environment` does not, the child gets it too, so that a run with code coverage
    /// (`.ci/run`, `.ci/coverage`) counts the programs it starts, each in a file of its own
    /// (`childProfileFile`). With `newSession`, the program
    /// leads a session and process group of its own (as under `setsid`), so that
    /// `RunningChild.killGroup` ends it with every program it started.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil,
        input: String? = nil, output: String, error: String, newSession: Bool = false
    ) throws -> RunningChild {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let directory {
            guard let addChangeDirectory = Self.addChangeDirectory else {
                throw ChildProcessError(description: "this C library has no posix_spawn_file_actions_addchdir_np")
            }
            let failed = addChangeDirectory(&actions, directory)
            guard failed == 0 else {
                throw ChildProcessError(description: "cannot start a program in \(directory): \(String(cString: strerror(failed)))")
            }
        }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // The child gets those three and nothing else of this process: the suites running
        // beside it hold sockets and files opened without close-on-exec, which would count
        // against a child's limit on open files (a server under `prlimit`) and keep their
        // connections open after this process closed them.
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var environment = environment
        if environment["LLVM_PROFILE_FILE"] == nil, let profile = getenv("LLVM_PROFILE_FILE") {
            environment["LLVM_PROFILE_FILE"] = Self.childProfileFile(String(cString: profile))
        }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let pid = try Self.spawn(executable, &actions, argv, envp, newSession: newSession)
        return RunningChild(pid: pid, name: executable)
    }

    /// Runs `arguments[0]` with the rest in this terminal, as `system(3)` would: its standard
    /// streams and environment are this process's, and while it runs this process ignores
    /// SIGINT and SIGQUIT, which go to the program (with the default handlers). For a
    /// full-screen program the person works in, an editor say. Returns the exit status (128 +
    /// the signal number if a signal ended it).
    public static func runInTerminal(_ arguments: [String]) throws -> Int32 {
        guard let executable = arguments.first else { throw ChildProcessError(description: "no program to start") }
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        var previousInterrupt = sigaction(), previousQuit = sigaction()
        sigaction(SIGINT, &ignore, &previousInterrupt)
        sigaction(SIGQUIT, &ignore, &previousQuit)
        defer {
            sigaction(SIGINT, &previousInterrupt, nil)
            sigaction(SIGQUIT, &previousQuit, nil)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let pid = try spawn(executable, nil, argv, environ, newSession: false)
        return try wait(for: pid, executable)
    }

    /// The one `posix_spawn` of this module: the child starts with no signal blocked and every
    /// catchable signal's handler the default (a thread of a test, or an app that ignores
    /// some, would hand it on otherwise), and with `newSession` leads a session of its own.
    private static func spawn(
        _ executable: String, _ actions: UnsafePointer<posix_spawn_file_actions_t>?, _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>,
        _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>, newSession: Bool
    ) throws -> pid_t {
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
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newSession { flags |= Self.setSession }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid = pid_t()
        let spawnError = posix_spawn(&pid, executable, actions, &attributes, argv, envp)
        guard spawnError == 0 else {
            throw ChildProcessError(description: "cannot start \(executable): \(String(cString: strerror(spawnError)))")
        }
        return pid
    }

    /// The children started so far: what tells their profile files apart.
    private static let started = Mutex(0)

    /// `pattern` with its `%p` (the process id) followed by this process's id and a number of
    /// its own for each child: a test run starts more processes and threads than there are
    /// process ids, and a child given the id of an earlier one would write over its counts.
    private static func childProfileFile(_ pattern: String) -> String {
        let number = started.withLock { count in
            count += 1
            return count
        }
        return pattern.replacing("%p", with: "%p-\(getpid())-\(number)")
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (since 2.29), which Swift's Glibc module
    /// does not declare: looked up by name.
    private static let addChangeDirectory: (@convention(c) (
        UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
    ) -> Int32)? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (since 2.34), looked up by name too.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }

    /// glibc's `POSIX_SPAWN_SETSID` (since 2.26), which Swift does not import.
    private static let setSession: Int32 = 0x80

    /// Waits for `pid` to end; its exit status, or 128 + the signal that ended it.
    fileprivate static func wait(for pid: pid_t, _ executable: String) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw ChildProcessError(description: "waiting for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        return Self.status(fromWaitStatus: status)
    }

    /// The exit status in a wait status, or 128 + the signal that ended the program.
    fileprivate static func status(fromWaitStatus status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

/// A program started by `ChildProcess.start`, still running until `stop` or `wait`.
public final class RunningChild: @unchecked Sendable {
    public let pid: pid_t
    private let name: String
    private let lock = NSLock()
    private var status: Int32?

    fileprivate init(pid: pid_t, name: String) {
        self.pid = pid
        self.name = name
    }

    /// Sends `signal` (SIGTERM: stop cleanly; SIGKILL: die at once) and waits for the end;
    /// returns the exit status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM) throws -> Int32 {
        if !hasEnded { kill(pid, signal) }
        return try wait()
    }

    /// Kills the program's whole process group (it must lead one: `newSession`) and waits
    /// until no program of the group is left, the program's children included (they are
    /// not ours to wait for: this looks every millisecond, for at most 10 seconds).
    public func killGroup() throws {
        kill(-pid, SIGKILL)
        _ = try wait()
        let deadline = ContinuousClock.now + .seconds(10)
        while kill(-pid, 0) == 0 {
            guard ContinuousClock.now < deadline else {
                throw ChildProcessError(description: "the process group of \(name) outlived SIGKILL by 10 s")
            }
            usleep(1_000)
        }
    }

    /// The exit status if the program has ended, else nil at once.
    public func endedStatus() throws -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        guard result != -1 else {
            throw ChildProcessError(description: "waiting for \(name): \(String(cString: strerror(errno)))")
        }
        guard result == pid else { return nil }
        let ended = ChildProcess.status(fromWaitStatus: raw)
        status = ended
        return ended
    }

    /// Waits for the program to end by itself; returns the exit status.
    @discardableResult
    public func wait() throws -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        let ended = try ChildProcess.wait(for: pid, name)
        status = ended
        return ended
    }

    /// Waits at most `timeLimit` seconds; past it the program is killed with SIGKILL and
    /// the result is nil.
    public func wait(timeLimit: TimeInterval) throws -> Int32? {
        let timedOut = Flag()
        let watchdog = DispatchWorkItem { [pid] in
            timedOut.set()
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: watchdog)
        let status = try wait()
        watchdog.cancel()
        return timedOut.isSet ? nil : status
    }

    private var hasEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return status != nil
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = try? ChildProcess.wait(for: pid, name)
        }
    }
}

/// Why a program could not be started or waited for.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
}

/// A flag one thread sets and another reads.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
