import Foundation
import ProcessTestSupport
import Testing

/// `serve --store postgres://…` as the binary reads it: `.ci/run` runs these against the
/// install build too, which has no ICU data and where Foundation's URL parsing once refused
/// every PostgreSQL URL (issue 58). Each form is read there and gets as far as connecting.
@Suite(.takesTurns) struct ServeStoreURLTests {
    static let cannotConnect = "ideabox: Cannot use the PostgreSQL database: "

    /// Each form docs/serve.md and libpq write, at a port where nothing listens: read, then refused
    /// only because nothing answers, from the flag and from `IDEABOX_SERVE_STORE` alike.
    static let unanswered = [
        "postgres://ideabox:pw@127.0.0.1:1/ideabox",
        "postgresql://ideabox:pw@127.0.0.1:1/ideabox",
        "POSTGRESQL://ideabox:pw@127.0.0.1:1/ideabox",
        "postgres://ideabox@localhost:1/ideabox",
        "postgres://ideabox:pw@[::1]:1/ideabox",
        "postgres://ideabox:p%40ss%2Fw%3Ard@127.0.0.1:1/ideabox",
        "postgres://127.0.0.1:1/ideabox",
        "postgres://ideabox:pw@127.0.0.1:1/ideabox?sslmode=disable",
        "postgres://ideabox:pw@127.0.0.1:1/ideabox?sslmode=prefer",
        "postgres://ideabox:pw@127.0.0.1:1/ideabox?sslmode=require",
        "postgres:///ideabox?host=127.0.0.1&port=1&user=ideabox&sslmode=disable",
    ]

    @Test("Every PostgreSQL URL form is read, and fails only at connecting where nothing listens", arguments: unanswered)
    func everyFormIsRead(url: String) async throws {
        let sandbox = try Sandbox()
        for (arguments, environment) in [
            (["serve", "account", "list", "--store", url], [String: String?]()),
            (["serve", "account", "list"], ["IDEABOX_SERVE_STORE": url]),
        ] {
            let result = try await sandbox.run(arguments, environment: environment)
            #expect(result.status == 1 && result.stdout.isEmpty, "\(result)")
            #expect(result.stderr.hasPrefix(Self.cannotConnect), "\(result)")
            #expect(!result.stderr.contains("pw") && !result.stderr.contains("p%40ss"), "\(result)")
        }
    }

    @Test("A wrong PostgreSQL URL is refused, saying in one sentence what is wrong in it", arguments: [
        ("postgres://ideabox:p@ss@127.0.0.1:1/ideabox", "The PostgreSQL URL holds more than one @; write an @ in a user name or password as %40."),
        ("postgres://ideabox@127.0.0.1:99999/ideabox", "The PostgreSQL URL's port must be a number from 1 to 65535, not \"99999\"."),
        ("postgres://ideabox@::1:5432/ideabox",
         "The PostgreSQL URL's host and port hold more than one colon; an IPv6 address goes in brackets, as in postgres://USER@[::1]:5432/DATABASE."),
        ("postgres://ideabox@127.0.0.1:1/ideabox?sslmode=on", "sslmode must be disable, allow, prefer, require, verify-ca or verify-full, not \"on\"."),
        ("postgres://ideabox@127.0.0.1:1/ideabox?connect_timeout=5",
         "The PostgreSQL URL's parameter \"connect_timeout\" is not one serve takes: it takes sslmode, host, port, user, password and dbname."),
    ])
    func aWrongURLIsRefused(url: String, message: String) async throws {
        try await Sandbox().expectRejection(["serve", "account", "list", "--store", url], message: message)
    }

    /// With a PostgreSQL to test on (`IDEABOX_TEST_POSTGRES_URL`, as `.ci/run` starts one):
    /// each form reaches a new database of its own and adds an account there, `serve account
    /// list` through another form lists them all, and `sslmode=require` is asked of a server
    /// that offers no TLS and refused by it.
    @Test("Each PostgreSQL URL form reaches the database", .enabled(if: TestDatabase.base != nil, "needs IDEABOX_TEST_POSTGRES_URL"))
    func eachFormReachesTheDatabase() async throws {
        let database = try await TestDatabase()
        do {
            try await reachEachForm(of: database)
        } catch {
            await database.drop()
            throw error
        }
        await database.drop()
    }

    /// `eachFormReachesTheDatabase` on `database`, which it leaves for the test to drop.
    private func reachEachForm(of database: TestDatabase) async throws {
        let (user, host, port, name) = (database.user, database.host, database.port, database.name)
        let forms = [
            "postgres://\(user)@\(host):\(port)/\(name)?sslmode=disable",
            "postgresql://\(user):pw@\(host):\(port)/\(name)?sslmode=disable",
            "postgres://\(user):p%40ss%2Fw%3Ard@localhost:\(port)/\(name)?sslmode=disable",
            "postgres://\(user)@\(host):\(port)/\(name)",
            "postgres://\(user)@\(host):\(port)/\(name)?sslmode=prefer",
            "postgres:///\(name)?host=\(host)&port=\(port)&user=\(user)&sslmode=disable",
        ]
        let sandbox = try Sandbox()
        for (index, url) in forms.enumerated() {
            let added = try await sandbox.run(["serve", "account", "add", "form\(index)", "--store", url])
            #expect(added.status == 0 && added.stdout.hasPrefix("ibx_"), "\(url): \(added)")
        }
        let listed = try await sandbox.succeed(["serve", "account", "list"], environment: ["IDEABOX_SERVE_STORE": forms[1]])
        #expect(listed == forms.indices.map { "form\($0)  1 valid token\n" }.joined())
        try await sandbox.expectRejection(
            ["serve", "account", "list", "--store", "postgres://\(user)@\(host):\(port)/\(name)?sslmode=require"],
            message: "Cannot use the PostgreSQL database: the server does not offer TLS, which sslmode=require asks for.")
    }
}

/// A new database on the PostgreSQL of `IDEABOX_TEST_POSTGRES_URL`
/// (`postgres://USER@HOST:PORT/DATABASE…`), made with psql and dropped by `drop()`.
private struct TestDatabase {
    static let base = ProcessInfo.processInfo.environment["IDEABOX_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    let user: String
    let host: String
    let port: String
    let name = "urls_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")

    init() async throws {
        guard let base = Self.base, let match = base.firstMatch(of: /^postgres(?:ql)?:\/\/([^@:\/]+)@([^:\/\[]+):(\d+)\//) else {
            throw IdeaBoxProcessError(description: "IDEABOX_TEST_POSTGRES_URL is not postgres://USER@HOST:PORT/DATABASE")
        }
        (user, host, port) = (String(match.1), String(match.2), String(match.3))
        try await Self.psql("CREATE DATABASE \(name)")
    }

    func drop() async {
        _ = try? await Self.psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// `psql` on the base URL's database, which must succeed in 60 s.
    private static func psql(_ sql: String) async throws {
        let result = try await IdeaBoxBinary.run(
            executable: URL(fileURLWithPath: "/usr/bin/psql"), arguments: [base ?? "", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql],
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PGCONNECT_TIMEOUT": "10"],
            currentDirectory: FileManager.default.temporaryDirectory, input: nil, timeLimit: .seconds(60))
        guard result.status == 0 else { throw IdeaBoxProcessError(description: "psql \(sql): \(result)") }
    }
}
