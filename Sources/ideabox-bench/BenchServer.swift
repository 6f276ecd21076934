import ArgumentParser
import CloudHTTPClient
import Foundation

/// A real `ideabox serve` process on 127.0.0.1 for the benchmarks to reach over HTTP, with a
/// SQLite store in a temporary folder or the PostgreSQL database given; killed on `stop()`.
final class BenchServer {
    let endpoint: WebServicesDatabase.Endpoint
    private let binary: URL
    private let store: String
    private let folder: URL
    /// The server process.
    let pid: pid_t

    /// `--server sqlite` or `--server postgres://…`.
    struct Options: ParsableArguments {
        @Option(
            name: .customLong("server"),
            help: ArgumentHelp(
                "Sync over HTTP through `ideabox serve` with `sqlite` (a new file) or `postgres://…` behind it; "
                    + "without it, the embedded remote.",
                valueName: "store"))
        var store: String?

        func validate() throws {
            guard let store else { return }
            guard store == "sqlite" || store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") else {
                throw ValidationError("--server is sqlite or postgres://USER@HOST/DATABASE, not \"\(store)\".")
            }
        }
    }

    init(store option: String) throws {
        binary = productsDirectory().appendingPathComponent("ideabox")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ValidationError("Build the ideabox product first (\(binary.path)).")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-bench-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = option == "sqlite" ? "sqlite:" + folder.appendingPathComponent("remote.sqlite").path : option

        let log = folder.appendingPathComponent("serve.log")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments = [binary.path, "serve", "--listen", "127.0.0.1:0", "--store", store]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, binary.path, &actions, nil, argv, environ) == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: binary.path])
        }
        self.pid = pid
        let deadline = Date().addingTimeInterval(30)
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let match = text.firstMatch(of: /listening on (http:\/\/127\.0\.0\.1:\d+)/), let url = URL(string: String(match.1)) {
                endpoint = WebServicesDatabase.Endpoint(server: url)
                return
            }
            guard Date() < deadline, waitpid(pid, nil, WNOHANG) == 0 else {
                throw ValidationError("ideabox serve did not start:\n\(text)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    deinit {
        stop()
    }

    /// A new account with a new token: an empty remote of its own.
    func newAccount(_ name: String) throws -> (name: String, token: String) {
        let output = folder.appendingPathComponent("token")
        var environment = ProcessInfo.processInfo.environment
        environment["IDEABOX_HOME"] = folder.path
        let status = try spawnAndWait(binary, ["serve", "account", "add", name, "--store", store], environment: environment, output: output)
        let token = try String(contentsOf: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, !token.isEmpty else { throw ValidationError("serve account add \(name) failed") }
        return (name, token)
    }

    /// A new client (a connection of its own) of `account`.
    func client(_ account: (name: String, token: String)) -> WebServicesDatabase {
        WebServicesDatabase(endpoint: endpoint, accountName: account.name, token: account.token, timeout: 60)
    }

    /// What the server logged so far: one line a request.
    var log: String {
        (try? String(contentsOf: folder.appendingPathComponent("serve.log"), encoding: .utf8)) ?? ""
    }

    /// A new client of `account`, over the connections of `pool`.
    func client(_ account: (name: String, token: String), pool: HTTPConnectionPool) -> WebServicesDatabase {
        WebServicesDatabase(endpoint: endpoint, accountName: account.name, token: account.token, timeout: 60, pool: pool)
    }

    /// The server's resident memory in MiB and its open files, from /proc.
    func usage() -> (residentMiB: Int, openFiles: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let kilobytes = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        return (kilobytes / 1024, files)
    }

    /// Stops the server (SIGTERM: the requests in flight finish) and removes its folder.
    func stop() {
        guard kill(pid, SIGTERM) == 0 else { return }
        while waitpid(pid, nil, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(at: folder)
    }
}
