import ChildProcess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of a test's own, on 127.0.0.1 (a port from 55601 up), for a test
/// that stops and starts the database under running servers (the shared one `.ci/run`
/// starts, `IDEABOX_TEST_POSTGRES_URL`, must keep running for every other test). As root it
/// runs as the `postgres` user, which PostgreSQL requires. Every step is bounded
/// (`pg_ctl -t`), and blocks: call it from a thread of its own (`OwnThread.run`).
public final class PostgresCluster: @unchecked Sendable {
    /// The first port tried; the first that nothing listens on and that starts is taken.
    public static let firstPort = 55601
    /// How long `pg_ctl` may take to start or stop the cluster.
    public static let stepSeconds = 60

    /// The cluster's folder: its data, its log and its socket.
    public let directory: URL
    /// The port it listens on.
    public private(set) var port = 0
    private let bin: URL
    private let asPostgres: [String]
    private var isClosed = false

    /// The URL of its database `postgres`, as user `ideabox` (trusted, no password).
    public var url: String { "postgres://ideabox@127.0.0.1:\(port)/postgres?sslmode=disable" }

    /// PostgreSQL's programs (the newest version installed), or nil if it is not installed.
    public static var installedBinaries: URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().lazy
            .map { root.appendingPathComponent("\($0)/bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) }
    }

    /// Whether a test of a cluster of its own runs: PostgreSQL is installed, or
    /// `IDEABOX_REQUIRE_POSTGRES=1` (as in CI) makes its absence the test's failure. A test
    /// says so with `.enabled(if: PostgresCluster.isTested)`, never by returning early.
    public static var isTested: Bool {
        installedBinaries != nil || ProcessInfo.processInfo.environment["IDEABOX_REQUIRE_POSTGRES"] == "1"
    }

    /// A new cluster, started; nil if PostgreSQL is not installed, unless
    /// `IDEABOX_REQUIRE_POSTGRES=1`, when that is an error.
    public static func started() throws -> PostgresCluster? {
        guard let bin = installedBinaries else {
            if ProcessInfo.processInfo.environment["IDEABOX_REQUIRE_POSTGRES"] == "1" {
                throw PostgresClusterError(description: "IDEABOX_REQUIRE_POSTGRES=1 but PostgreSQL's initdb is not installed")
            }
            return nil
        }
        let cluster = try PostgresCluster(bin: bin)
        do {
            try cluster.initialize()
            try cluster.startOnFreePort()
        } catch {
            cluster.close()
            throw error
        }
        return cluster
    }

    private init(bin: URL) throws {
        self.bin = bin
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-postgres-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else {
                throw PostgresClusterError(description: "running as root, and there is no postgres user to run PostgreSQL as")
            }
            chown(directory.path, user.pointee.pw_uid, user.pointee.pw_gid)
            asPostgres = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        } else {
            asPostgres = []
        }
    }

    deinit {
        close()
    }

    private var data: String { directory.appendingPathComponent("data").path }

    private func initialize() throws {
        try run("initdb", ["-D", data, "-A", "trust", "-U", "ideabox", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"], log: "initdb")
    }

    private func startOnFreePort() throws {
        var lastError: (any Error)?
        for candidate in Self.firstPort..<(Self.firstPort + 100) where !Self.listens(candidate) {
            port = candidate
            do {
                try start()
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? PostgresClusterError(description: "no free port from \(Self.firstPort)")
    }

    /// Starts the cluster (again) on its port, returning once it takes connections.
    public func start() throws {
        let options = "-h 127.0.0.1 -p \(port) -k \(directory.path) -c fsync=off -c max_connections=200"
        try run("pg_ctl", ["-D", data, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "\(Self.stepSeconds)", "-o", options, "start"], log: "start")
    }

    /// Stops the cluster the way an administrator's restart does (`-m fast`: its
    /// connections are ended), returning once it has stopped.
    public func stop() throws {
        try run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "\(Self.stepSeconds)", "stop"], log: "stop")
    }

    /// Stops the cluster if it runs and removes its folder.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        if FileManager.default.fileExists(atPath: data + "/postmaster.pid") {
            _ = try? run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "\(Self.stepSeconds)", "stop"], log: "close")
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether something listens on 127.0.0.1:`port`.
    private static func listens(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private func run(_ program: String, _ arguments: [String], log name: String) throws {
        let command = asPostgres + [bin.appendingPathComponent(program).path] + arguments
        let output = directory.appendingPathComponent("\(name).out").path
        let status = try ChildProcess.runToEnd(
            command[0], Array(command.dropFirst()), environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], directory: "/",
            output: output, error: output)
        guard status == 0 else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let server = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw PostgresClusterError(description: "\(program) \(arguments.last ?? "") exited \(status): \(said)\n\(server.suffix(2000))")
        }
    }
}

/// A step of a test's PostgreSQL cluster failed.
public struct PostgresClusterError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}
