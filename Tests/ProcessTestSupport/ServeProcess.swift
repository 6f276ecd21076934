import ChildProcess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `ideabox serve` as a process of its own on 127.0.0.1, with a SQLite store in a
/// fresh folder: what devices on other machines would reach. `close()` (or deinit) stops it
/// and removes the folder. One test (or one walk) uses it at a time.
public final class ServeProcess: @unchecked Sendable {
    /// How long the server gets to say it is listening.
    public static let startTimeout: Duration = .seconds(20)

    public let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ideabox-serve-\(UUID().uuidString)", isDirectory: true)
    /// The port it listens on, known once it first started; kept across restarts.
    public private(set) var port: Int?
    private var child: RunningChild?
    private var starts = 0
    private let ideabox: URL
    private let chosenStore: String?
    private let extraEnvironment: [String: String]

    /// A server on a SQLite file in its folder, or on `store` (a PostgreSQL URL), with
    /// `environment` added to its own.
    public init(store: String? = nil, environment: [String: String] = [:]) throws {
        ideabox = try IdeaBoxBinary.url()
        chosenStore = store
        extraEnvironment = environment
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        close()
    }

    /// `--store`.
    public var store: String { chosenStore ?? "sqlite:" + directory.appendingPathComponent("remote.sqlite").path }

    /// The URL devices sign in with.
    public var url: String {
        get throws {
            guard let port else { throw ServeProcessError(description: "The server has not started.") }
            return "http://127.0.0.1:\(port)"
        }
    }

    /// A server started with one account `name`: the server (close it), the account's token
    /// and the server's URL.
    public static func running(withAccount name: String) async throws -> (server: ServeProcess, token: String, url: String) {
        let server = try ServeProcess()
        let token = try await server.addAccount(name)
        try await server.start()
        return (server, token, try server.url)
    }

    /// `ideabox serve account add name`; returns the token it printed.
    public func addAccount(_ name: String) async throws -> String {
        let (status, output, error) = try await execute(["serve", "account", "add", name, "--store", store], log: "account-\(name)")
        guard status == 0, output.hasPrefix("ibx_") else {
            throw ServeProcessError(description: "serve account add \(name) exited \(status): \(error)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `ideabox serve arguments… --store S` (an account command), which must succeed;
    /// returns what it printed.
    @discardableResult
    public func command(_ arguments: [String]) async throws -> String {
        let (status, output, error) = try await execute(["serve"] + arguments + ["--store", store], log: "command-\(UUID().uuidString)")
        guard status == 0 else {
            throw ServeProcessError(description: "serve \(arguments.joined(separator: " ")) exited \(status): \(error)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `ideabox serve api-token add label`; returns the API token it printed.
    public func addAPIToken(_ label: String) async throws -> String {
        let (status, output, error) = try await execute(["serve", "api-token", "add", label, "--store", store], log: "api-token-\(label)")
        let token = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, token.count == 64 else {
            throw ServeProcessError(description: "serve api-token add \(label) exited \(status): \(error)")
        }
        return token
    }

    /// Starts the server (on its earlier port after a restart) and returns once it listens;
    /// `arguments` go after the listen address and the store (`--tls-cert F --tls-key K`).
    /// With `fileLimit`, the server may open that many files, soft and hard limit alike.
    public func start(_ arguments: [String] = [], fileLimit: Int? = nil) async throws {
        guard child == nil else { return }
        starts += 1
        let log = logFile(starts)
        let command = [ideabox.path, "serve", "--listen", "127.0.0.1:\(port ?? 0)", "--store", store] + arguments
        // prlimit sets the limits, then becomes the server (the same process).
        let limited = fileLimit.map { ["/usr/bin/prlimit", "--nofile=\($0):\($0)"] + command } ?? command
        child = try ChildProcess.start(
            limited[0], Array(limited.dropFirst()), environment: environment,
            output: directory.appendingPathComponent("serve.out").path, error: log.path)
        let clock = ContinuousClock()
        let deadline = clock.now + Self.startTimeout
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let match = text.firstMatch(of: /listening on https?:\/\/127\.0\.0\.1:(\d+)/), let listening = Int(match.1) {
                port = listening
                return
            }
            guard clock.now < deadline else {
                throw ServeProcessError(description: "ideabox serve did not start in \(Self.startTimeout):\n\(text)")
            }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// Kills the server with SIGKILL as soon as it has answered `count` record uploads since
    /// it last started; returns how many it had. The log is looked at each time it is written
    /// (inotify, through a Dispatch read source on a queue of its own, so no thread waits):
    /// from the test pool's few threads, which other tests block while their programs run, a
    /// look could come seconds late, after the whole upload (a CI run saw all 50 done). Then
    /// `stop(SIGKILL)` awaits its end.
    public func kill(afterModifies count: Int) async throws -> Int {
        let log = logFile(starts)
        guard let pid else { throw ServeProcessError(description: "The server is not running.") }
        return try await withCheckedThrowingContinuation { (done: CheckedContinuation<Int, any Error>) in
            LogWatch.start(log, giveUpAfter: .seconds(60)) { text, givenUp in
                let modifies = text.components(separatedBy: "records/modify 200").count - 1
                if modifies >= count {
                    Glibc.kill(pid, SIGKILL)
                    done.resume(returning: modifies)
                    return true
                }
                if givenUp { done.resume(throwing: ServeProcessError(description: "The upload did not reach the server:\n\(text)")) }
                return givenUp
            }
        }
    }

    /// Ends the server with `signal` (SIGKILL: mid-request, as a crash or power cut would);
    /// returns its exit status. The wait for its end (seconds, for a server that drains its
    /// requests) is on a thread of its own: the test pool's threads are every test's.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM) async throws -> Int32 {
        try await timedStop(signal).status
    }

    /// `stop`, and how long the server took to end, timed on the thread that waits for it
    /// (timed in the test, it would count the wait for the test pool to take the test up again).
    public func timedStop(_ signal: Int32 = SIGTERM) async throws -> (status: Int32, took: Duration) {
        guard let child else { return (0, .zero) }
        self.child = nil
        return try await OwnThread.run {
            let started = ContinuousClock.now
            let status = try Self.end(child, signal)
            return (status, ContinuousClock.now - started)
        }
    }

    /// How long a signalled server gets to end before it is killed: one that hangs on its way
    /// out fails its test instead of holding up the whole run.
    public static let stopTimeout: Duration = .seconds(30)

    /// Sends `signal` and waits for the server's end, for at most `stopTimeout`; then kills
    /// it and throws. Blocks the calling thread: one of its own (`timedStop`'s, `close`'s).
    private static func end(_ child: RunningChild, _ signal: Int32) throws -> Int32 {
        child.send(signal)
        let deadline = ContinuousClock.now + stopTimeout
        while try child.endedStatus() == nil {
            guard ContinuousClock.now < deadline else {
                child.send(SIGKILL)
                _ = try child.waitForExit()
                throw ServeProcessError(description: "ideabox serve did not end within \(stopTimeout) of signal \(signal); killed it")
            }
            usleep(5_000)
        }
        return try child.waitForExit()
    }

    /// The running server's process id, if it runs.
    public var pid: pid_t? { child?.pid }

    /// Everything the server logged since it was first started, one line per request.
    public var log: String {
        (1...max(1, starts)).map { (try? String(contentsOf: logFile($0), encoding: .utf8)) ?? "" }.joined()
    }

    /// Stops the server (SIGTERM, now) and removes its folder once it has ended. Returns at
    /// once: the wait for the end (seconds, for a server that drains its requests) and the
    /// removal are on a thread of their own, since `close` is called from `defer` and
    /// `deinit`, which cannot await, on whatever thread, maybe one of the test pool's.
    public func close() {
        let (child, directory) = (child, directory)
        self.child = nil
        child?.send(SIGTERM)
        Thread {
            if let child { _ = try? Self.end(child, SIGTERM) }
            try? FileManager.default.removeItem(at: directory)
        }.start()
    }

    private func logFile(_ start: Int) -> URL {
        directory.appendingPathComponent("serve-\(start).log")
    }

    private var environment: [String: String] {
        ["HOME": directory.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "IDEABOX_HOME": directory.path]
            .merging(extraEnvironment) { $1 }
    }

    private func execute(_ arguments: [String], log name: String) async throws -> (Int32, String, String) {
        let output = directory.appendingPathComponent("\(name).out")
        let error = directory.appendingPathComponent("\(name).err")
        let status = try await ChildProcess.run(ideabox.path, arguments, environment: environment, output: output.path, error: error.path)
        return (status, try String(contentsOf: output, encoding: .utf8), try String(contentsOf: error, encoding: .utf8))
    }
}

/// Why `ServeProcess` could not start or command the server.
public struct ServeProcessError: Error, CustomStringConvertible {
    public var description: String
}

/// A watch of a file's text: `look` is called with it at once and each time the file is
/// written (inotify, through a Dispatch read source), and once more with `givenUp` after the
/// given time; the watch ends when `look` returns true. Every call is on one serial queue.
private final class LogWatch: @unchecked Sendable {
    private let queue = DispatchQueue(label: "ideabox.test.log-watch")
    private let file: URL
    private let look: (_ text: String, _ givenUp: Bool) -> Bool
    private var sources: [any DispatchSourceProtocol] = []
    private var ended = false

    private init(_ file: URL, look: @escaping (String, Bool) -> Bool) {
        self.file = file
        self.look = look
    }

    static func start(_ file: URL, giveUpAfter limit: Duration, look: @escaping @Sendable (_ text: String, _ givenUp: Bool) -> Bool) {
        let watch = LogWatch(file, look: look)
        watch.queue.async { watch.begin(limit) }
    }

    private func begin(_ limit: Duration) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if descriptor >= 0 {
            _ = inotify_add_watch(descriptor, file.path, UInt32(IN_MODIFY))
            let written = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            written.setEventHandler { [self] in
                var events = [UInt8](repeating: 0, count: 4_096)
                while read(descriptor, &events, events.count) > 0 {}
                check(givenUp: false)
            }
            written.setCancelHandler { close(descriptor) }
            sources.append(written)
            written.resume()
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(Int(limit.components.seconds * 1_000)))
        timer.setEventHandler { [self] in check(givenUp: true) }
        sources.append(timer)
        timer.resume()
        check(givenUp: false)
    }

    private func check(givenUp: Bool) {
        guard !ended else { return }
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard look(text, givenUp) else { return }
        ended = true
        for source in sources { source.cancel() }
        sources = []
    }
}
