import ChildProcess
import Foundation
import IdeaBoxViewModels
import ProcessTestSupport

/// Why an end-to-end test could not go on; its description is what the test report shows.
struct EndToEndError: Error, CustomStringConvertible {
    var description: String
}

/// What the pane shows at one moment, one string per screen row.
struct Screen: CustomStringConvertible {
    /// The rows, top to bottom, trailing blanks trimmed (as `capture-pane -p` prints them).
    var lines: [String]

    /// Whether any row holds `text`.
    func contains(_ text: String) -> Bool {
        lines.contains { $0.contains(text) }
    }

    /// Row `index`, or "" past the bottom.
    func line(_ index: Int) -> String {
        lines.indices.contains(index) ? lines[index] : ""
    }

    /// The screen in a frame, so blank rows and trailing text stay visible in a failure.
    var description: String {
        let numbered = lines.enumerated().map { String(format: "%2d│", $0.offset) + $0.element }
        return (["  ┌ screen (\(lines.count) rows)"] + numbered + ["  └"]).joined(separator: "\n")
    }
}

/// The real `ideabox` full-screen app running in a detached tmux session on a private
/// server (`tmux -L`), with its own data root, driven the way a person would: keys in,
/// screen text out. `close()` (or deinit) kills the server and removes the data.
final class TmuxSession {
    /// How long a wait for the screen lasts before the test fails.
    static let defaultTimeout: Duration = .seconds(10)
    /// The tmux session (and target) name on the private server.
    static let target = "ideabox"
    /// What the wrapper shell prints, with the app's exit status, when the app has ended.
    static let exitMarker = "EXITED"

    /// The folder holding the data root and the files the wrapper shell writes.
    let directory: URL
    /// `IDEABOX_HOME` of the app and of `ideabox` commands run with `run(_:)`.
    let dataRoot: URL
    /// The last screen captured.
    private(set) var lastScreen = Screen(lines: [])

    private let tmux: URL
    private let ideabox: URL
    private let socket: String
    private let serverEnvironment: [String: String]
    private var isClosed = false
    /// The command line that starts the app, for a session with `jobControl` to type.
    private(set) var appCommand = ""

    /// Starts the app in a `columns` x `rows` window. `environment` changes the app's
    /// environment (nil removes a variable); the app otherwise gets `LANG=C.UTF-8`,
    /// `IDEABOX_NO_SAMPLES=1` and the session's data root. The app runs under `sh`, which
    /// records `stty -g` before and after it and prints `EXITED <status>` when it ends, then
    /// keeps the pane open so the restored terminal can be inspected. `before` runs
    /// `ideabox` commands in the data root before the app starts. `sharingDataWith` runs the
    /// app on another session's data root, as a second terminal on the same machine would;
    /// that session owns the data and removes it when it closes. With `jobControl` the
    /// pane is an interactive bash (prompt `$ `), where the test types `appCommand`, so
    /// Ctrl-Z and `fg` work as in a person's shell.
    init(
        columns: Int = 80, rows: Int = 24, environment: [String: String?] = [:],
        before: [[String]] = [], sharingDataWith owner: TmuxSession? = nil, jobControl: Bool = false
    ) async throws {
        tmux = try Self.locateTmux()
        ideabox = try IdeaBoxBinary.url()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ideabox-e2e-\(UUID().uuidString)", isDirectory: true)
        dataRoot = owner?.dataRoot ?? directory.appendingPathComponent("data", isDirectory: true)
        socket = "ideabox-e2e-\(UUID().uuidString.prefix(13))"
        let home = directory.appendingPathComponent("home", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        serverEnvironment = [
            "HOME": home.path,
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "SHELL": "/bin/sh",
            // The server's socket goes in the session's folder: tmux leaves it behind.
            "TMUX_TMPDIR": directory.path,
            "IDEABOX_HOME": dataRoot.path,
            "IDEABOX_NO_SAMPLES": "1",
        ]
        for arguments in before {
            try Self.succeeded(await Self.execute(ideabox, arguments, environment: serverEnvironment), "ideabox", arguments)
        }

        let changes = environment.sorted { $0.key < $1.key }
        let removals = changes.filter { $0.value == nil }.flatMap { ["-u", $0.key] }
        let settings = changes.compactMap { name, value in value.map { "\(name)=\(Self.quoted($0))" } }
        let ttyBefore = Self.quoted(file("tty-before").path)
        let ttyAfter = Self.quoted(file("tty-after").path)
        let app = (["env"] + removals + settings + [Self.quoted(ideabox.path)]).joined(separator: " ")
        appCommand = app
        let script = jobControl
            ? "PS1='$ ' exec bash --norc --noprofile -i"
            : """
            stty -g > \(ttyBefore); \(app); status=$?; stty -g > \(ttyAfter); echo "\(Self.exitMarker) $status"; exec sleep 3600
            """
        try await tmuxCommand([
            "-f", "/dev/null", "new-session", "-d", "-s", Self.target,
            "-x", String(columns), "-y", String(rows), script,
        ])
    }

    deinit {
        close()
    }

    /// Kills the private tmux server (and the app with it) and removes the data. Returns at
    /// once: `tmux kill-server` starts now, and the wait for it and the removal are on a
    /// thread of their own, since `close` is called from `defer` and `deinit`, which cannot
    /// await, on whatever thread, maybe one of the test pool's.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        let killing = try? ChildProcess.start(
            tmux.path, ["-u", "-L", socket, "kill-server"], environment: serverEnvironment, output: "/dev/null", error: "/dev/null")
        let directory = directory
        Thread {
            _ = try? killing?.waitForExit()
            try? FileManager.default.removeItem(at: directory)
        }.start()
    }

    /// A file in the session's folder.
    func file(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    // MARK: Driving the app

    /// Sends tmux key names (`"n"`, `"Enter"`, `"C-s"`, `"NPage"`, `"Escape"`…).
    func press(_ keys: String...) async throws {
        try await tmuxCommand(["send-keys", "-t", Self.target] + keys)
    }

    /// `press` on the calling thread, which must be one of its own (as `arrival`'s is).
    func pressOnThisThread(_ keys: String...) throws {
        try tmuxCommandOnThisThread(["send-keys", "-t", Self.target] + keys)
    }

    /// Sends raw bytes, as a terminal sends a mouse report.
    func send(bytes: [UInt8]) async throws {
        try await tmuxCommand(["send-keys", "-t", Self.target, "-H"] + bytes.map { String($0, radix: 16) })
    }

    /// Types `text` literally, as UTF-8.
    func type(_ text: String) async throws {
        try await tmuxCommand(["send-keys", "-t", Self.target, "-l", text])
    }

    /// Resizes the window, as a terminal emulator's window would be.
    func resize(columns: Int, rows: Int) async throws {
        try await tmuxCommand(["resize-window", "-t", Self.target, "-x", String(columns), "-y", String(rows)])
    }

    /// Types `text`, then resizes the window `delay` later, timed by tmux itself (one tmux
    /// command), so that the resize can come while the app is still handling or drawing the
    /// keys: a test process spawning a second tmux would come later, and by how much, no one knows.
    func type(_ text: String, thenResizeTo columns: Int, rows: Int, after delay: Duration) async throws {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        try await tmuxCommand([
            "send-keys", "-t", Self.target, "-l", text, ";",
            "run-shell", "-d", String(format: "%.4f", seconds), ";",
            "resize-window", "-t", Self.target, "-x", String(columns), "-y", String(rows),
        ])
    }

    /// The pane as it is now.
    func capture() async throws -> Screen {
        screen(try await tmuxCommand(Self.captureArguments))
    }

    /// `capture` on the calling thread, one of its own (`waitFor`'s looks, `keeps`').
    private func captureOnThisThread() throws -> Screen {
        screen(try tmuxCommandOnThisThread(Self.captureArguments))
    }

    private static let captureArguments = ["capture-pane", "-p", "-t", target]

    /// `capture-pane`'s text as the last screen.
    private func screen(_ text: String) -> Screen {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        lastScreen = Screen(lines: lines)
        return lastScreen
    }

    /// From now on, every byte the app writes to the pane is appended to `file`
    /// (`pipe-pane -O`): what the screen cannot show, such as OSC 52 and OSC 8.
    func pipeOutput(to file: URL) async throws {
        _ = try await tmuxCommand(["pipe-pane", "-O", "-t", Self.target, "cat >> " + Self.quoted(file.path)])
    }

    /// The pane with its SGR escape sequences (`capture-pane -e`), to check colors.
    func captureWithAttributes() async throws -> String {
        try await tmuxCommand(["capture-pane", "-p", "-e", "-t", Self.target])
    }

    /// A tmux format evaluated for the pane, e.g. `#{alternate_on}`.
    func paneFormat(_ format: String) async throws -> String {
        try await tmuxCommand(["display-message", "-p", "-t", Self.target, format])
            .trimmingCharacters(in: .newlines)
    }

    /// Polls the pane until `condition` holds and returns that screen; after `timeout`,
    /// fails with `what` and the last screen.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = defaultTimeout, until condition: @escaping (Screen) -> Bool
    ) async throws -> Screen {
        // The polling runs on a thread of its own: on the test pool's two threads, busy
        // synchronous tests could hold it back for longer than a 4-second message shows.
        // The test awaits it and touches the session only after, so nothing is shared meanwhile.
        nonisolated(unsafe) let session = self
        nonisolated(unsafe) let condition = condition
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try session.poll(what, timeout: timeout, until: condition) })
            }.start()
        }
    }

    private func poll(_ what: String, timeout: Duration, until condition: (Screen) -> Bool) throws -> Screen {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let screen = try captureOnThisThread()
            if condition(screen) { return screen }
            if screen.contains(Self.exitMarker) {
                throw EndToEndError(description: "The app ended while waiting for \(what).\n\(screen)")
            }
            guard clock.now < deadline else {
                throw EndToEndError(description: "Timed out after \(timeout) waiting for \(what).\n\(screen)")
            }
            usleep(25_000)
        }
    }

    /// How long `change` takes to show on this pane. On a thread of its own, `change` runs
    /// (a key pressed in another session, another process run) and returns the instant to
    /// count from; then the pane is polled, as `waitFor` does, and the capture that shows
    /// `condition` ends the count. Both ends are taken on that thread, never across an
    /// `await`, so a busy test pool cannot lengthen the figure; tmux's capture and the 25 ms
    /// between looks count, so it is an upper bound.
    func arrival(
        _ what: String, timeout: Duration = defaultTimeout, after change: @escaping () throws -> ContinuousClock.Instant,
        until condition: @escaping (Screen) -> Bool
    ) async throws -> Duration {
        nonisolated(unsafe) let session = self
        nonisolated(unsafe) let change = change
        nonisolated(unsafe) let condition = condition
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    let start = try change()
                    _ = try session.poll(what, timeout: timeout, until: condition)
                    return ContinuousClock.now - start
                })
            }.start()
        }
    }

    /// `arrival` of a change made by awaiting `change` (a request of another device), counted
    /// from just before it: the request's own time counts, so it is an upper bound too. The
    /// pane is polled from that instant on a thread of its own, and `change` runs on a queue
    /// of its own (`OwnQueueExecutor`), so that neither the request nor the look that sees
    /// its effect waits for a turn on the test pool, which the rest of a full run can keep
    /// busy: counted across the pool, one CI run's figure was 1.01 s where the same step
    /// takes 0.08 s alone.
    func arrival(
        _ what: String, timeout: Duration = defaultTimeout, afterAwaiting change: @escaping @Sendable () async throws -> Void,
        until condition: @escaping (Screen) -> Bool
    ) async throws -> Duration {
        nonisolated(unsafe) let session = self
        nonisolated(unsafe) let condition = condition
        let start = ContinuousClock.now
        let shown = OwnThread.start {
            _ = try session.poll(what, timeout: timeout, until: condition)
            return ContinuousClock.now - start
        }
        try await withTaskExecutorPreference(OwnQueueExecutor(label: "ideabox.tests.another-device")) { try await change() }
        return try await shown.value
    }

    /// Polls the pane for `duration` and fails with `what` and the screen as soon as
    /// `condition` stops holding; for checking that something does *not* happen. The last
    /// look begins only once `duration` is over, so what happens late in the window (after a
    /// look, before the window's end) fails the test as well; the test's next step comes after
    /// it. The looks run on a thread of their own, as `waitFor`'s do.
    func keeps(
        _ what: String, for duration: Duration, while condition: @escaping (Screen) -> Bool
    ) async throws {
        nonisolated(unsafe) let session = self
        nonisolated(unsafe) let condition = condition
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                continuation.resume(with: Result { try session.check(what, for: duration, while: condition) })
            }.start()
        }
    }

    private func check(_ what: String, for duration: Duration, while condition: (Screen) -> Bool) throws {
        let clock = ContinuousClock()
        let end = clock.now + duration
        while true {
            let looked = clock.now
            let screen = try captureOnThisThread()
            if screen.contains(Self.exitMarker) {
                throw EndToEndError(description: "The app ended while checking \(what).\n\(screen)")
            }
            guard condition(screen) else {
                throw EndToEndError(description: "Expected \(what) for \(duration), but:\n\(screen)")
            }
            if looked >= end { return }
            usleep(UInt32(min(.milliseconds(25), end - looked) / .microseconds(1)))
        }
    }

    /// Polls until every one of `texts` shows somewhere on the pane.
    @discardableResult
    func waitFor(_ texts: String..., timeout: Duration = defaultTimeout) async throws -> Screen {
        let quoted = texts.map { "“\($0)”" }.joined(separator: ", ")
        return try await waitFor(quoted, timeout: timeout) { screen in texts.allSatisfy(screen.contains) }
    }

    // MARK: Other processes

    /// Runs `ideabox arguments…` in the session's data root; it must succeed. Returns stdout.
    @discardableResult
    func run(_ arguments: [String]) async throws -> String {
        try Self.succeeded(await Self.execute(ideabox, arguments, environment: serverEnvironment), "ideabox", arguments)
    }

    /// `run(_:)` on the calling thread, which must be one of its own (as `arrival`'s is).
    @discardableResult
    func runOnThisThread(_ arguments: [String]) throws -> String {
        try Self.succeeded(Self.executeOnThisThread(ideabox, arguments, environment: serverEnvironment), "ideabox", arguments)
    }

    @discardableResult
    private func tmuxCommand(_ arguments: [String]) async throws -> String {
        try Self.succeeded(await Self.execute(tmux, ["-u", "-L", socket] + arguments, environment: serverEnvironment), "tmux", arguments)
    }

    /// `tmuxCommand` on the calling thread: one of its own, or `close`'s.
    @discardableResult
    private func tmuxCommandOnThisThread(_ arguments: [String]) throws -> String {
        try Self.succeeded(
            Self.executeOnThisThread(tmux, ["-u", "-L", socket] + arguments, environment: serverEnvironment), "tmux", arguments)
    }

    /// The output of a command that ran, which must have exited 0.
    @discardableResult
    private static func succeeded(_ result: (status: Int32, output: String, error: String), _ name: String, _ arguments: [String]) throws -> String {
        guard result.status == 0 else {
            throw EndToEndError(description: "\(name) \(arguments.joined(separator: " ")) exited \(result.status): \(result.error)")
        }
        return result.output
    }

    /// Runs `executable` to completion and returns its status and output; the wait holds a
    /// thread of its own (`ChildProcess.run`), not the test's.
    private static func execute(
        _ executable: URL, _ arguments: [String], environment: [String: String]
    ) async throws -> (status: Int32, output: String, error: String) {
        let (outputFile, errorFile) = outputFiles()
        defer { remove(outputFile, errorFile) }
        let status = try await ChildProcess.run(
            executable.path, arguments, environment: environment, output: outputFile.path, error: errorFile.path)
        return (status, try String(contentsOf: outputFile, encoding: .utf8), try String(contentsOf: errorFile, encoding: .utf8))
    }

    /// `execute`, waiting on the calling thread (`ChildProcess.runToEnd`): one of its own.
    private static func executeOnThisThread(
        _ executable: URL, _ arguments: [String], environment: [String: String]
    ) throws -> (status: Int32, output: String, error: String) {
        let (outputFile, errorFile) = outputFiles()
        defer { remove(outputFile, errorFile) }
        let status = try ChildProcess.runToEnd(
            executable.path, arguments, environment: environment, output: outputFile.path, error: errorFile.path)
        return (status, try String(contentsOf: outputFile, encoding: .utf8), try String(contentsOf: errorFile, encoding: .utf8))
    }

    /// Two new files for a command's standard output and error.
    private static func outputFiles() -> (output: URL, error: URL) {
        let stem = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-e2e-\(UUID().uuidString)")
        return (stem.appendingPathExtension("out"), stem.appendingPathExtension("err"))
    }

    private static func remove(_ files: URL...) {
        for file in files { try? FileManager.default.removeItem(at: file) }
    }

    /// `tmux` from the usual folders; these tests need it and say so rather than skip.
    private static func locateTmux() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH", default: ""].split(separator: ":").map(String.init)
        for folder in path + ["/usr/local/bin", "/usr/bin", "/bin"] {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent("tmux")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw EndToEndError(description: """
            tmux is not installed: the end-to-end tests drive the real full-screen app in tmux. \
            Install it (apt-get install tmux) and run the tests again.
            """)
    }

    /// `text` in single quotes for `sh`.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension Screen {
    /// The display width of row `index`, wide characters counting two cells.
    func width(ofLine index: Int) -> Int {
        TextWidth.width(of: line(index))
    }
}
