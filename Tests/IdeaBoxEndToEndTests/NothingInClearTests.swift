import ChildProcess
import Foundation
import ProcessTestSupport
import Testing

/// The issue's first "must show": ideas and library files with known ASCII and Traditional
/// Chinese words go through `ideabox serve` (SQLite, PostgreSQL) and the embedded remote
/// sealed, and every byte the server keeps (its SQLite file, WAL and journal, PostgreSQL's
/// tables dumped row by row as text, the upload spool, its logs) holds none of the words, no
/// file path and not the passphrase. The same scan run on plain records finds them, so it can
/// see; and an account that had plain records, a library file's asset among them, and turns
/// encryption on keeps none of them.
@Suite(.takesTurns) struct NothingInClearTests {
    /// Where the server keeps its records.
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }

        /// The stores this run tests: PostgreSQL where `IDEABOX_TEST_POSTGRES_URL` is set, or
        /// where `IDEABOX_REQUIRE_POSTGRES=1` makes its absence a failure.
        static var tested: [Store] {
            let environment = ProcessInfo.processInfo.environment
            let configured = !(environment["IDEABOX_TEST_POSTGRES_URL"] ?? "").isEmpty
            return configured || environment["IDEABOX_REQUIRE_POSTGRES"] == "1" ? allCases : [.sqlite]
        }
    }

    private static let words = ["Zanzibar", "marmalade", "秘密計畫", "牛奶糖", "晚餐菜單"]
    private static let paths = ["Items/grandmother-secret-recipes.json", "FavoriteItems/二〇二六年的旅行.json"]
    private static let passphrase = "correct horse battery 電池"
    private static let fast = ["IDEABOX_TEST_SCRYPT": "fast"]

    @Test(arguments: Store.tested)
    func sealedFromTheStartThroughServe(_ store: Store) async throws {
        let served = try await Served.start(store)
        try await served.closing {
            let a = try DeviceProcess()
            try await a.run(["account", "sign-in", "alice", "--server", served.url, "--token", served.token])
            try await enable(on: a)
            try await write(on: a)
            try await expectArrives(from: a, signIn: ["account", "sign-in", "alice", "--server", served.url, "--token", served.token])
            try await served.expectNothingInClear(Self.needles)
            try await served.server.stop()
            try await served.expectNothingInClear(Self.needles)
        }
    }

    @Test(arguments: Store.tested)
    func turnedOnForAnAccountWithPlainRecordsThroughServe(_ store: Store) async throws {
        let served = try await Served.start(store)
        try await served.closing {
            let a = try DeviceProcess()
            try await a.run(["account", "sign-in", "alice", "--server", served.url, "--token", served.token])
            // One library file is large enough to be an asset: the sealed record that replaces
            // its record stops naming the plain asset, which goes in the same request.
            try await write(on: a)
            let plain = try await served.bytes()
            for word in Self.words + Self.paths {
                #expect(Self.contains(plain, word), "the scan does not see \(word) in plain records")
            }
            try await enable(on: a)
            try await expectArrives(from: a, signIn: ["account", "sign-in", "alice", "--server", served.url, "--token", served.token])
            if store == .sqlite {
                // A running server empties its WAL a second after the last write (`WALScrubber`):
                // secure_delete zeroes the database's freed pages, not the frames in the WAL.
                try await Poll.until("the running server's WAL is emptied of the plain pages") {
                    let bytes = try await served.bytes()
                    return !Self.needles.contains { Self.contains(bytes, $0) }
                }
            }
            try await served.expectNothingInClear(Self.needles)
            // Stopped, the server checkpoints and removes its WAL: nothing plain is left.
            try await served.server.stop()
            try await served.expectNothingInClear(Self.needles)
        }
    }

    @Test func sealedThroughTheEmbeddedRemoteFromTheStart() async throws {
        let a = try DeviceProcess()
        try await enable(on: a)
        try await write(on: a)
        try await expectArrives(from: a, profile: "B")
        let bytes = try embeddedBytes(a)
        #expect(bytes.count > 20_000)
        for needle in Self.needles {
            #expect(!Self.contains(bytes, needle), "found \(needle) in the embedded remote's files")
        }
    }

    @Test func turnedOnThroughTheEmbeddedRemoteForAnAccountWithPlainRecords() async throws {
        let a = try DeviceProcess()
        try await write(on: a)
        let plain = try embeddedBytes(a)
        for word in Self.words + Self.paths {
            #expect(Self.contains(plain, word), "the scan does not see \(word) in plain records")
        }
        try await enable(on: a)
        try await expectArrives(from: a, profile: "B")
        let bytes = try embeddedBytes(a)
        for needle in Self.needles {
            #expect(!Self.contains(bytes, needle), "found \(needle) in the embedded remote's files")
        }
    }

    // MARK: Helpers

    private static var needles: [String] {
        words + paths + paths.map { String($0.split(separator: "/").last!) } + [passphrase]
    }

    private func enable(on device: DeviceProcess, profile: String = "default") async throws {
        let output = try await device.run(
            ["account", "encryption", "enable", "--profile", profile], environment: Self.fast,
            input: "\(Self.passphrase)\n\(Self.passphrase)\n")
        #expect(output.hasPrefix("Encryption is on for account"), "\(output)")
    }

    /// Two ideas and two library files holding the words, synced: one small, kept in its
    /// record, and one large, uploaded as an asset through the server's spool.
    private func write(on device: DeviceProcess, profile: String = "default") async throws {
        try await device.run(["add", "Zanzibar marmalade", "-d", "秘密計畫 and 牛奶糖", "--profile", profile])
        try await device.run(["add", "晚餐菜單", "-d", "marmalade", "--profile", profile])
        let library = device.dataRoot.appendingPathComponent("profiles/\(profile)/RawLibrary", isDirectory: true)
        let contents = [
            #"{"note": "Zanzibar 牛奶糖 marmalade"}"#,
            #"{"note": ""# + String(repeating: "秘密計畫 晚餐菜單 Zanzibar marmalade ", count: 40_000) + #""}"#,
        ]
        for (path, text) in zip(Self.paths, contents) {
            let file = library.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        try await device.run(["sync", "--profile", profile])
        try await device.run(["library", "sync", "--profile", profile])
    }

    /// Another device (a profile of `device`'s data root, or a device of its own signed in
    /// with `signIn`) unlocks and receives both ideas and both files: the scan is of data that
    /// did arrive.
    private func expectArrives(from device: DeviceProcess, signIn: [String]? = nil, profile: String = "default") async throws {
        let other = signIn == nil ? device : try DeviceProcess()
        let otherProfile = signIn == nil ? profile : "default"
        if let signIn { try await other.run(signIn) }
        try await other.run(["account", "unlock", "--profile", otherProfile], environment: Self.fast, input: "\(Self.passphrase)\n")
        try await other.run(["sync", "--profile", otherProfile])
        try await other.run(["library", "sync", "--profile", otherProfile])
        let titles = try await other.run(["list", "--profile", otherProfile])
        #expect(titles.contains("Zanzibar marmalade") && titles.contains("晚餐菜單"), "\(titles)")
        let library = other.dataRoot.appendingPathComponent("profiles/\(otherProfile)/RawLibrary", isDirectory: true)
        for path in Self.paths {
            #expect(FileManager.default.fileExists(atPath: library.appendingPathComponent(path).path), "\(path) did not arrive")
        }
    }

    /// Every file of the embedded remote (the data root but the profiles).
    private func embeddedBytes(_ device: DeviceProcess) throws -> Data {
        try Self.bytes(under: device.dataRoot) { !$0.contains("/profiles/") && !$0.hasSuffix(".out") && !$0.hasSuffix(".err") && !$0.hasSuffix(".in") }
    }

    /// Every byte of every file under `folder` whose path `keep` accepts.
    static func bytes(under folder: URL, keep: (String) -> Bool = { _ in true }) throws -> Data {
        var bytes = Data()
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted() {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard keep(url.path), FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let data = FileManager.default.contents(atPath: url.path)
            else { continue }
            bytes.append(data)
        }
        return bytes
    }

    /// Whether `bytes` hold `text` as UTF-8, or as the lower-case hex PostgreSQL shows a
    /// `bytea` in.
    static func contains(_ bytes: Data, _ text: String) -> Bool {
        let hex = Data(text.utf8).map { String(format: "%02x", $0) }.joined()
        return bytes.firstRange(of: Data(text.utf8)) != nil || bytes.firstRange(of: Data(hex.utf8)) != nil
    }
}

/// `ideabox serve` with one account, on a SQLite file in its folder or on a new PostgreSQL
/// database of its own, and every byte it keeps.
private struct Served {
    let server: ServeProcess
    let token: String
    let url: String
    /// The PostgreSQL database's URL, with PostgreSQL.
    let postgres: String?

    /// A started server with account `alice`; for PostgreSQL, on a database of its own in
    /// `IDEABOX_TEST_POSTGRES_URL`'s cluster (`Store.tested` names PostgreSQL only where it
    /// is set, or where `IDEABOX_REQUIRE_POSTGRES=1` makes its absence this error).
    static func start(_ store: NothingInClearTests.Store) async throws -> Served {
        var postgres: String?
        if store == .postgres {
            guard let base = ProcessInfo.processInfo.environment["IDEABOX_TEST_POSTGRES_URL"], !base.isEmpty else {
                throw EndToEndError(description: "IDEABOX_REQUIRE_POSTGRES=1 but IDEABOX_TEST_POSTGRES_URL is unset")
            }
            let name = "scan_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try await psql(base, "CREATE DATABASE \(name)")
            var components = try #require(URLComponents(string: base))
            components.path = "/" + name
            postgres = try #require(components.string)
        }
        let server = try ServeProcess(store: postgres)
        let token = try await server.addAccount("alice")
        try await server.start()
        return Served(server: server, token: token, url: try server.url, postgres: postgres)
    }

    /// Every byte the server keeps: every file of its folder (the SQLite file, its WAL and
    /// journal, the upload spool, its logs) and, with PostgreSQL, every row of every table
    /// as text.
    func bytes() async throws -> Data {
        var bytes = try NothingInClearTests.bytes(under: server.directory)
        if let postgres {
            let tables = try await Self.psql(postgres, """
                SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables
                WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
                """).split(separator: "\n")
            #expect(tables.count >= 5, "\(tables)")
            for table in tables {
                bytes.append(Data(try await Self.psql(postgres, "SELECT t::text FROM \(table) t").utf8))
            }
        }
        return bytes
    }

    func expectNothingInClear(_ needles: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let bytes = try await bytes()
        #expect(bytes.count > 2_000, "the server keeps the records", sourceLocation: sourceLocation)
        for needle in needles where NothingInClearTests.contains(bytes, needle) {
            Issue.record("found \(needle) on the server, in \(try await files(holding: needle))", sourceLocation: sourceLocation)
        }
    }

    /// The server's files that hold `needle` (the tables' dump is `PostgreSQL`).
    private func files(holding needle: String) async throws -> [String] {
        var found: [String] = []
        for name in try FileManager.default.subpathsOfDirectory(atPath: server.directory.path).sorted() {
            if let data = FileManager.default.contents(atPath: server.directory.appendingPathComponent(name).path),
               NothingInClearTests.contains(data, needle) { found.append(name) }
        }
        if postgres != nil, NothingInClearTests.contains(try await bytes(), needle), found.isEmpty { found.append("PostgreSQL") }
        return found
    }

    /// Runs `body`, then closes the server (and drops its database) whether or not it threw.
    func closing(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await close()
            throw error
        }
        await close()
    }

    func close() async {
        _ = try? await server.stop()
        server.close()
        if let postgres, let name = URLComponents(string: postgres)?.path.dropFirst(),
           let base = ProcessInfo.processInfo.environment["IDEABOX_TEST_POSTGRES_URL"] {
            _ = try? await Self.psql(base, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
    }

    /// `psql url -c sql`, unaligned and without headers; returns what it printed.
    @discardableResult
    static func psql(_ url: String, _ sql: String) async throws -> String {
        let folder = FileManager.default.temporaryDirectory
        let (output, error) = (folder.appendingPathComponent("psql-\(UUID().uuidString).out"), folder.appendingPathComponent("psql-\(UUID().uuidString).err"))
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: error)
        }
        let status = try await ChildProcess.run(
            "/usr/bin/psql", [url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PGCONNECT_TIMEOUT": "10"], output: output.path, error: error.path)
        guard status == 0 else {
            throw EndToEndError(description: "psql exited \(status): \((try? String(contentsOf: error, encoding: .utf8)) ?? "")")
        }
        return try String(contentsOf: output, encoding: .utf8)
    }
}
