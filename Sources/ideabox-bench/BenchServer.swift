import ArgumentParser
import ChildProcess
import CloudHTTPClient
import Foundation

/// A real `ideabox serve` process on 127.0.0.1 for the benchmarks to reach over HTTP, with a
/// SQLite store in a temporary folder or the PostgreSQL database given; killed on `stop()`.
final class BenchServer {
    /// The container the benchmarks' server serves and their clients name.
    static let container = "iCloud.ideabox.bench"
    let endpoint: WebServicesDatabase.Endpoint
    private let binary: URL
    private let store: String
    private let folder: URL
    /// The server process.
    private let process: RunningChild
    /// The server process's id.
    var pid: pid_t { process.pid }

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

    /// The private authority (PEM) that signed the server's certificate, when it serves HTTPS.
    let authority: String?

    /// A server of `option`'s store; with `tls`, over HTTPS with a certificate made here by
    /// `openssl` for 127.0.0.1, signed by an authority of its own that its clients trust.
    /// `serveArguments` go on `serve`'s command line after the store's.
    init(store option: String, tls: Bool = false, serveArguments: [String] = []) throws {
        binary = productsDirectory().appendingPathComponent("ideabox")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ValidationError("Build the ideabox product first (\(binary.path)).")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-bench-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = option == "sqlite" ? "sqlite:" + folder.appendingPathComponent("remote.sqlite").path : option
        var tlsArguments: [String] = []
        if tls {
            authority = try Self.makeCertificates(in: folder)
            tlsArguments = ["--tls-cert", folder.appendingPathComponent("server.pem").path, "--tls-key", folder.appendingPathComponent("server.key").path]
        } else {
            authority = nil
        }

        let log = folder.appendingPathComponent("serve.log")
        process = try ChildProcess.start(
            binary.path, ["serve", "--listen", "127.0.0.1:0", "--store", store, "--container", Self.container] + tlsArguments + serveArguments,
            environment: ProcessInfo.processInfo.environment, output: "/dev/null", error: log.path)
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let match = text.firstMatch(of: /listening on (https?:\/\/127\.0\.0\.1:\d+)/), let url = URL(string: String(match.1)) {
                endpoint = WebServicesDatabase.Endpoint(server: url, container: Self.container)
                return
            }
            guard ContinuousClock.now < deadline, try process.endedStatus() == nil else {
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
        let status = try ChildProcess.runToEnd(
            binary.path, ["serve", "account", "add", name, "--store", store], environment: environment, output: output.path, error: "/dev/null")
        let token = try String(contentsOf: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, !token.isEmpty else { throw ValidationError("serve account add \(name) failed") }
        return (name, token)
    }

    /// A new client (a connection of its own) of `account`, trusting the server's authority.
    func client(_ account: (name: String, token: String)) throws -> WebServicesDatabase {
        guard let authority else { return WebServicesDatabase(endpoint: endpoint, accountName: account.name, token: account.token, timeout: 60) }
        return client(account, pool: try HTTPConnectionPool.with(connectionsPerHost: 1, trustedAuthority: authority))
    }

    /// A certificate authority and a certificate it signed for 127.0.0.1 in `folder`
    /// (`server.pem`, `server.key`); returns the authority's certificate.
    private static func makeCertificates(in folder: URL) throws -> String {
        try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: folder.appendingPathComponent("san.txt"))
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        for arguments in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=Bench CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
             "-out", path("server.pem"), "-days", "2", "-extfile", path("san.txt")],
        ] {
            let status = try ChildProcess.runToEnd(
                "/usr/bin/openssl", arguments, environment: ProcessInfo.processInfo.environment,
                output: folder.appendingPathComponent("openssl.out").path, error: "/dev/null")
            guard status == 0 else { throw ValidationError("openssl \(arguments[0]) failed") }
        }
        return try String(contentsOf: folder.appendingPathComponent("ca.pem"), encoding: .utf8)
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
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        return (memory("VmRSS:") / 1024, files)
    }

    /// The CPU time the server has used since it started (user and system), from /proc.
    func cpuTime() -> Duration {
        Self.cpuTime(of: pid)
    }

    /// The CPU time process `pid` has used since it started (user and system), from /proc.
    static func cpuTime(of pid: pid_t) -> Duration {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        guard let end = stat.lastIndex(of: ")") else { return .zero }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return .zero }
        let ticks = Int64(sysconf(Int32(_SC_CLK_TCK)))
        return .milliseconds((user + system) * 1000 / ticks)
    }

    /// The lines the server logged with a status of `status` or above.
    func loggedLines(statusAtLeast status: Int) -> [Substring] {
        log.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 5 && fields[5] == "ms" && (Int(fields[3]) ?? 0) >= status
        }
    }

    /// The most resident memory the server has had since it started, in MiB.
    var peakResidentMiB: Int { memory("VmHWM:") / 1024 }

    /// A line of /proc/PID/status in kilobytes.
    private func memory(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix(field) }
            .flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
    }

    /// Stops the server (SIGTERM: the requests in flight finish) and removes its folder.
    func stop() {
        _ = try? process.stopAndWaitForExit(SIGTERM)
        try? FileManager.default.removeItem(at: folder)
    }
}
