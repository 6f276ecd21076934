import Foundation
import ProcessTestSupport
import Testing

/// `ideabox serve api-token add | list | revoke`, `serve --container` and the sign-in
/// options that go with them (the server's requests themselves: CloudServerTests).
@Suite(.takesTurns) struct ServeCommandTests {
    @Test func apiTokensAreShownOnceListedByNameAndRevoked() async throws {
        let sandbox = try Sandbox()
        let store = ["--store", "sqlite:" + sandbox.directory.appendingPathComponent("server.sqlite").path]
        let added = try await sandbox.run(["serve", "api-token", "add", "web-app"] + store)
        #expect(added.status == 0 && added.stderr.contains("API token web-app: shown only this once"), "\(added)")
        let token = added.stdout.trimmingCharacters(in: .newlines)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit) && token == token.lowercased(), "\(token)")
        #expect(try await sandbox.succeed(["serve", "api-token", "list"] + store).hasPrefix("web-app  added "))
        #expect(try await sandbox.succeed(["serve", "api-token", "list"] + store).hasSuffix("  valid\n"))
        try await sandbox.expectRejection(
            ["serve", "api-token", "add", "web-app"] + store,
            message: "A valid API token is already named web-app; revoke it first or pick another name.")
        #expect(try await sandbox.succeed(["serve", "api-token", "revoke", "web-app"] + store) == "API token web-app: 1 token revoked.\n")
        #expect(try await sandbox.succeed(["serve", "api-token", "list"] + store).contains("  revoked "))
        try await sandbox.expectRejection(["serve", "api-token", "revoke", "web-app"] + store, message: "No valid API token is named web-app.")
        // The token itself is never stored: only its hash is in the file.
        let file = try Data(contentsOf: sandbox.directory.appendingPathComponent("server.sqlite"))
        #expect(file.range(of: Data(token.utf8)) == nil)
    }

    @Test func accountsCannotBeMixedUpNamesAreOneWhateverTheirCaseAndARevokedNameIsNotHandedOn() async throws {
        let sandbox = try Sandbox()
        let store = ["--store", "sqlite:" + sandbox.directory.appendingPathComponent("server.sqlite").path]
        let first = try await sandbox.run(["serve", "account", "add", "Bob"] + store)
        #expect(first.status == 0 && first.stdout.hasPrefix("ibx_"), "\(first)")
        for name in ["Bob", "bob", "BOB"] {
            try await sandbox.expectRejection(
                ["serve", "account", "add", name] + store,
                message: "Account Bob already exists; give it another token with: ideabox serve account token add Bob --label DEVICE")
        }
        #expect(try await sandbox.succeed(["serve", "account", "revoke", "bob"] + store) == "Account Bob: 1 token revoked.\n")
        try await sandbox.expectRejection(
            ["serve", "account", "add", "bob"] + store,
            message: "Account Bob already exists; give it another token with: ideabox serve account token add Bob --label DEVICE")
        try await sandbox.expectRejection(
            ["serve", "account", "token", "add", "carol", "--label", "laptop"] + store,
            message: "No account is named carol; make it with: ideabox serve account add carol")
        #expect(try await sandbox.succeed(["serve", "account", "list"] + store) == "Bob  0 valid tokens\n")
    }

    @Test func eachDeviceHasATokenOfItsOwnListedAndRevokedByLabel() async throws {
        let sandbox = try Sandbox()
        let store = ["--store", "sqlite:" + sandbox.directory.appendingPathComponent("server.sqlite").path]
        #expect(try await sandbox.run(["serve", "account", "add", "alice", "--label", "desktop"] + store).status == 0)
        let laptop = try await sandbox.run(["serve", "account", "token", "add", "ALICE", "--label", "laptop"] + store)
        #expect(laptop.status == 0 && laptop.stdout.hasPrefix("ibx_") && laptop.stderr.contains("Account alice: the token above is shown only this once"))
        try await sandbox.expectRejection(
            ["serve", "account", "token", "add", "alice", "--label", "laptop"] + store,
            message: "Account alice already has a valid token named laptop; revoke it first or pick another label.")
        let listed = try await sandbox.succeed(["serve", "account", "token", "list", "alice"] + store).split(separator: "\n")
        #expect(listed.count == 2 && listed[0].hasPrefix("desktop  added ") && listed[1].hasPrefix("laptop  added "), "\(listed)")
        #expect(listed.allSatisfy { $0.hasSuffix("  never used  valid") }, "\(listed)")
        #expect(try await sandbox.succeed(["serve", "account", "token", "revoke", "alice", "laptop"] + store) == "Account alice: 1 token revoked.\n")
        #expect(try await sandbox.succeed(["serve", "account", "token", "list", "alice"] + store).contains("laptop  added ") )
        #expect(try await sandbox.succeed(["serve", "account", "token", "list", "alice"] + store).contains("  never used  revoked "))
        try await sandbox.expectRejection(
            ["serve", "account", "token", "revoke", "alice", "laptop"] + store, message: "Account alice has no valid token named laptop.")
    }

    @Test func deletingAnAccountAsksFirstThenTakesEverything() async throws {
        let sandbox = try Sandbox()
        let store = ["--store", "sqlite:" + sandbox.directory.appendingPathComponent("server.sqlite").path]
        #expect(try await sandbox.run(["serve", "account", "add", "dave"] + store).status == 0)
        try await sandbox.expectRejection(
            ["serve", "account", "delete", "Dave"] + store,
            message: "Deleting account dave removes its 0 records, files and tokens for good; add --yes to do it.")
        #expect(try await sandbox.succeed(["serve", "account", "list"] + store) == "dave  1 valid token\n")
        #expect(try await sandbox.succeed(["serve", "account", "delete", "Dave", "--yes"] + store) == "Account dave deleted, with its 0 records, files and tokens.\n")
        #expect(try await sandbox.succeed(["serve", "account", "list"] + store) == "")
        // Gone, so the name can be made again: a new, empty account.
        #expect(try await sandbox.run(["serve", "account", "add", "dave"] + store).status == 0)
    }

    @Test func quotasLimitRecordsZonesAndAssetBytesAndShowWhatTheAccountHolds() async throws {
        let sandbox = try Sandbox()
        let store = ["--store", "sqlite:" + sandbox.directory.appendingPathComponent("server.sqlite").path]
        #expect(try await sandbox.run(["serve", "account", "add", "fay"] + store).status == 0)
        #expect(try await sandbox.succeed(["serve", "account", "quota", "Fay"] + store)
            == "Account fay: records 0 (no limit), zones 0 / 100, assets 0 B / 1 GiB.\n")
        #expect(try await sandbox.succeed(["serve", "account", "quota", "fay", "500", "--zones", "3", "--asset-bytes", "250M"] + store)
            == "Account fay: records 0 / 500, zones 0 / 3, assets 0 B / 250 MiB.\n")
        #expect(try await sandbox.succeed(["serve", "account", "quota", "fay", "off", "--asset-bytes", "1536k"] + store)
            == "Account fay: records 0 (no limit), zones 0 / 3, assets 0 B / 1.5 MiB.\n")
        try await sandbox.expectRejection(
            ["serve", "account", "quota", "fay", "--asset-bytes", "lots"] + store,
            message: "--asset-bytes must be a number of bytes (0 or more, with K, M, G or T for KiB, MiB, GiB or TiB) or `off`, not \"lots\". (see `ideabox help`)")
        try await sandbox.expectRejection(
            ["serve", "account", "quota", "fay", "--zones=-1"] + store,
            message: "--zones must be a number of zones (0 or more) or `off`, not \"-1\". (see `ideabox help`)")
        #expect(try await sandbox.succeed(["serve", "account", "quota", "fay"] + store)
            == "Account fay: records 0 (no limit), zones 0 / 3, assets 0 B / 1.5 MiB.\n")
    }

    @Test func settingsComeFromIDEABOX_SERVE_VariablesWhenNoFlagGivesThem() async throws {
        let sandbox = try Sandbox()
        let file = sandbox.directory.appendingPathComponent("from-environment.sqlite")
        let added = try await sandbox.run(["serve", "account", "add", "erin"], environment: ["IDEABOX_SERVE_STORE": "sqlite:" + file.path])
        #expect(added.status == 0 && FileManager.default.fileExists(atPath: file.path), "\(added)")
        try await sandbox.expectRejection(
            ["serve"], message: "IDEABOX_SERVE_IDLE_TIMEOUT must be a whole number of seconds, not \"soon\". (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_IDLE_TIMEOUT": "soon"])
        try await sandbox.expectRejection(
            ["serve"], message: "--tls-cert and --tls-key (or IDEABOX_SERVE_TLS_CERT and IDEABOX_SERVE_TLS_KEY) go together. (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_TLS_CERT": "server.pem"])
        try await sandbox.expectRejection(
            ["serve"], message: "--listen must be HOST:PORT, such as 127.0.0.1:8420, not \"nowhere\". (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_LISTEN": "nowhere"])
        try await sandbox.expectRejection(
            ["serve"], message: "--log-format (or IDEABOX_SERVE_LOG_FORMAT) is text or json, not \"xml\". (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_LOG_FORMAT": "xml"])
        try await sandbox.expectRejection(
            ["serve"], message: "IDEABOX_SERVE_MAX_UPLOADS must be a whole number of uploads, not \"many\". (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_MAX_UPLOADS": "many"])
        try await sandbox.expectRejection(
            ["serve"], message: "IDEABOX_SERVE_MAX_POLLS_PER_ACCOUNT must be a whole number of polls, not \"lots\". (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_MAX_POLLS_PER_ACCOUNT": "lots"])
        try await sandbox.expectRejection(
            ["serve"],
            message: "--max-polls-per-account, --max-polls-per-token and --max-bodies-per-account are 1 to 1000000, --max-uploads-per-account 1 to 1000. (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_MAX_UPLOADS_PER_ACCOUNT": "0"])
        try await sandbox.expectRejection(
            ["serve", "--max-bodies-per-account", "0"],
            message: "--max-polls-per-account, --max-polls-per-token and --max-bodies-per-account are 1 to 1000000, --max-uploads-per-account 1 to 1000. (see `ideabox help`)")
        try await sandbox.expectRejection(
            ["serve"], message: "IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS must be a whole number of days, not \"a while\". (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS": "a while"])
        try await sandbox.expectRejection(
            ["serve"], message: "--tombstone-retention-days (or IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS) is 1 to 3650 days. (see `ideabox help`)",
            environment: ["IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS": "0"])
        try await sandbox.expectRejection(
            ["serve", "--tombstone-retention-days", "3651"],
            message: "--tombstone-retention-days (or IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS) is 1 to 3650 days. (see `ideabox help`)")
    }

    @Test func tlsNeedsACertificateAndItsKeyAndSaysWhichFileIsWrong() async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(
            ["serve", "--tls-cert", "server.pem"],
            message: "--tls-cert and --tls-key (or IDEABOX_SERVE_TLS_CERT and IDEABOX_SERVE_TLS_KEY) go together. (see `ideabox help`)")
        let notPEM = try sandbox.file("server.pem", "not a certificate\n")
        let refused = try await sandbox.run(["serve", "--listen", "127.0.0.1:0", "--tls-cert", notPEM, "--tls-key", notPEM])
        #expect(refused.status != 0 && refused.stderr.contains("The TLS certificate \(notPEM)"), "\(refused)")
    }

    @Test func aPortAnotherProgramListensOnIsNamedInOneLine() async throws {
        let sandbox = try Sandbox()
        let (descriptor, port) = try LoopbackSocket.listen()
        defer { close(descriptor) }
        try await sandbox.expectRejection(
            ["serve", "--listen", "127.0.0.1:\(port)"],
            message: "Another program is already listening on 127.0.0.1:\(port); choose another port with --listen 127.0.0.1:PORT, or stop that program.")
        try await sandbox.expectRejection(
            ["serve", "--listen", "127.0.0.1:\(port)"],
            message: "已有其他程式在 127.0.0.1:\(port) 監聽；請用 --listen 127.0.0.1:PORT 改用其他連接埠，或停止那個程式",
            environment: ["LANG": "zh_TW.UTF-8"])
    }

    @Test func containersAndAPITokensAreCheckedBeforeAnythingIsWritten() async throws {
        let sandbox = try Sandbox()
        let bad = try await sandbox.run(["serve", "--container", "com.example.notes"])
        #expect(bad.status != 0 && bad.stderr.contains("--container must be a container id such as iCloud.com.buildwithharry.IdeaBox"), "\(bad)")
        let short = try await sandbox.run(["account", "sign-in", "alice", "--server", "http://127.0.0.1:9", "--token", "ibx_x", "--api-token", "abc"])
        #expect(short.status != 0 && short.stderr.contains("--api-token must be the 64 hex digits"), "\(short)")
        let alone = try await sandbox.run(["account", "sign-in", "alice", "--api-token", String(repeating: "a", count: 64)])
        #expect(alone.status != 0 && alone.stderr.contains("--token, --api-token, --container, --ca-cert, --allow-insecure-http and --no-check go with --server."), "\(alone)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.appendingPathComponent("profiles/default/server.json").path))
    }

    @Test func signInKeepsTheContainerAndAPIToken() async throws {
        let sandbox = try Sandbox()
        let apiToken = String(repeating: "0123456789abcdef", count: 4)
        try await sandbox.succeed([
            "account", "sign-in", "alice", "--server", "http://127.0.0.1:9", "--token", "ibx_secret", "--api-token", apiToken.uppercased(),
            "--no-check",
        ])
        let saved = try JSONSerialization.jsonObject(
            with: Data(contentsOf: sandbox.dataRoot.appendingPathComponent("profiles/default/server.json"))) as? [String: Any]
        #expect(saved?["container"] as? String == "iCloud.com.buildwithharry.IdeaBox")
        #expect(saved?["apiToken"] as? String == apiToken)
        #expect(saved?["token"] as? String == "ibx_secret")
    }
}
