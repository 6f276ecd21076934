import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How the tests and the benchmarks start a program: `posix_spawn`, not `Process`, whose
/// spawning costs tens of milliseconds on Linux (more than the `ideabox` commands the
/// benchmarks time) and which waits until its child's end of a pipe closes.
///
/// A test runs on a thread that blocks most signals, and a child inherits that
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
    /// process's if nil). The wait for its end holds a thread of its own
    /// (`RunningChild.exitStatus`), not the task's.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil,
        input: String? = nil, output: String, error: String
    ) async throws -> Int32 {
        try await start(
            executable, arguments, environment: environment, directory: directory, input: input, output: output, error: error
        ).exitStatus()
    }

    /// `run`, waiting for the program's end on the calling thread. Blocks the calling thread:
    /// never from a task; for a program's own threads (a benchmark timing its runs).
    public static func runToEnd(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil,
        input: String? = nil, output: String, error: String
    ) throws -> Int32 {
        try start(
            executable, arguments, environment: environment, directory: directory, input: input, output: output, error: error
        ).waitForExit()
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
        return try reap(pid, executable)
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

    /// Waits for `pid` to end and reaps it; its exit status, or 128 + the signal that ended
    /// it. Blocks the calling thread.
    fileprivate static func reap(_ pid: pid_t, _ executable: String) throws -> Int32 {
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

/// A program started by `ChildProcess.start`, running until it ends or is stopped.
///
/// Its end is awaited (`exitStatus`) on a thread of its own, never on one of the cooperative
/// pool's few threads, which every task of the process shares: a test awaiting an `ideabox`
/// command that runs for seconds leaves the pool to the others. The thread waits for the end
/// without taking it (`waitid` with `WNOWAIT`); the process is reaped under the lock, which is
/// also where it is signalled, so no signal can reach another process given its id once reaped.
public final class RunningChild: @unchecked Sendable {
    public let pid: pid_t
    private let name: String
    private let started = ContinuousClock.now
    private let lock = NSLock()
    private var status: Int32?
    private var ended: ContinuousClock.Instant?
    private var peakResident: Int?

    fileprivate init(pid: pid_t, name: String) {
        self.pid = pid
        self.name = name
    }

    // MARK: Awaiting the end

    /// Awaits the program's end, by itself or by a signal; returns the exit status (128 + the
    /// signal number if a signal ended it). The wait holds a thread of its own, not the task's.
    @discardableResult
    public func exitStatus() async throws -> Int32 {
        if let status = knownStatus { return status }
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try self.waitForExit() }) }.start()
        }
    }

    /// `exitStatus()`, for at most `timeLimit`: past it the program is killed with SIGKILL and
    /// the result is nil.
    public func exitStatus(timeLimit: Duration) async throws -> Int32? {
        let watchdog = Watchdog(killing: self, after: timeLimit)
        let status: Int32
        do {
            status = try await exitStatus()
        } catch {
            _ = watchdog.finish()
            throw error
        }
        return watchdog.finish() ? nil : status
    }

    /// Sends `signal` (SIGTERM: stop cleanly; SIGKILL: die at once) unless the program has
    /// ended, and awaits its end; returns the exit status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM) async throws -> Int32 {
        send(signal)
        return try await exitStatus()
    }

    /// Kills the program's whole process group (it must lead one: `newSession`) and awaits
    /// the end of every program of the group, the program's children included (they are not
    /// ours to wait for: this looks every millisecond, for at most 10 seconds).
    public func killGroup() async throws {
        // The group outlives its leader while one of its programs runs, and its id is no
        // new process's until then.
        kill(-pid, SIGKILL)
        try await exitStatus()
        let deadline = ContinuousClock.now + .seconds(10)
        while kill(-pid, 0) == 0 {
            guard ContinuousClock.now < deadline else {
                throw ChildProcessError(description: "the process group of \(name) outlived SIGKILL by 10 s")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// How long the program ran: from its start until the thread waiting for it saw it end
    /// (so a busy task pool, which can take a while to resume the task awaiting the end, does
    /// not count); nil while it runs.
    public var runTime: Duration? {
        lock.withLock { ended.map { $0 - started } }
    }

    /// Sends `signal` unless the program has ended, and leaves the wait for its end to a
    /// thread of its own: for a `defer`, which cannot await.
    public func stopInBackground(_ signal: Int32 = SIGTERM) {
        send(signal)
        Thread { _ = try? self.waitForExit() }.start()
    }

    // MARK: Blocking

    /// Waits for the program to end by itself and returns the exit status. Blocks the calling
    /// thread: never from a task (await `exitStatus()` there); for a thread of its own.
    @discardableResult
    public func waitForExit() throws -> Int32 {
        if let status = knownStatus { return status }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 {
            let failure = errno
            guard failure == EINTR else {
                // Reaped meanwhile by another wait (ECHILD): its status is known.
                if let status = try reap() { return status }
                throw ChildProcessError(description: "waiting for \(name): \(String(cString: strerror(failure)))")
            }
        }
        guard let status = try reap() else {
            throw ChildProcessError(description: "\(name) ended, but waitpid did not report it")
        }
        return status
    }

    /// `waitForExit()`, for at most `timeLimit`: past it the program is killed with SIGKILL
    /// and the result is nil. Blocks the calling thread: never from a task.
    public func waitForExit(timeLimit: Duration) throws -> Int32? {
        let watchdog = Watchdog(killing: self, after: timeLimit)
        let status = Result { try waitForExit() }
        return try watchdog.finish() ? nil : status.get()
    }

    /// Sends `signal` unless the program has ended, and waits for its end; returns the exit
    /// status. Blocks the calling thread: never from a task (await `stop` there).
    @discardableResult
    public func stopAndWaitForExit(_ signal: Int32 = SIGTERM) throws -> Int32 {
        send(signal)
        return try waitForExit()
    }

    // MARK: Looking

    /// The exit status if the program has ended, else nil at once.
    public func endedStatus() throws -> Int32? {
        try reap()
    }

    /// Sends `signal` to the program unless it has ended (and been reaped: its id may be
    /// another process's by now).
    public func send(_ signal: Int32) {
        lock.withLock {
            if status == nil { _ = kill(pid, signal) }
        }
    }

    private var knownStatus: Int32? {
        lock.withLock { status }
    }

    /// The most memory the program held at once (its peak resident set, as the kernel counts
    /// it for `wait4`), in bytes; nil until it has ended and been reaped.
    public var peakResidentBytes: Int? {
        lock.withLock { peakResident }
    }

    /// Takes the program's status if it has ended (`waitpid` without waiting), once.
    private func reap() throws -> Int32? {
        try lock.withLock {
            if let status { return status }
            var raw: Int32 = 0
            var usage = rusage()
            let result = wait4(pid, &raw, WNOHANG, &usage)
            guard result != -1 else {
                throw ChildProcessError(description: "waiting for \(name): \(String(cString: strerror(errno)))")
            }
            guard result == pid else { return nil }
            let ended = ChildProcess.status(fromWaitStatus: raw)
            status = ended
            self.ended = ContinuousClock.now
            peakResident = usage.ru_maxrss * 1024
            return ended
        }
    }

    /// A program still running when nothing refers to it any more is killed, and reaped on a
    /// thread of its own (whatever thread lets go of it, maybe a task's, goes on at once).
    deinit {
        guard status == nil else { return }
        kill(pid, SIGKILL)
        let (pid, name) = (pid, name)
        Thread { _ = try? ChildProcess.reap(pid, name) }.start()
    }
}

/// Kills a program with SIGKILL once its time limit has passed, unless `finish` came first:
/// a thread of its own that sleeps until then (not Dispatch's global queue, whose few threads
/// a loaded process can hold).
private final class Watchdog: @unchecked Sendable {
    private let condition = NSCondition()
    private var isFinished = false
    private var hasKilled = false

    init(killing child: RunningChild, after timeLimit: Duration) {
        let deadline = Date() + Double(timeLimit.components.seconds) + Double(timeLimit.components.attoseconds) / 1e18
        Thread { [self] in
            condition.lock()
            defer { condition.unlock() }
            while !isFinished, condition.wait(until: deadline) {}
            guard !isFinished else { return }
            hasKilled = true
            child.send(SIGKILL)
        }.start()
    }

    /// Ends the watch; whether the program was killed for its time.
    func finish() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        isFinished = true
        condition.signal()
        return hasKilled
    }
}

/// Why a program could not be started or waited for.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
}
