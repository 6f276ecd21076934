import Foundation
import ProcessTestSupport
import Testing

/// `ideabox account status | sign-in NAME | sign-out`: the simulated account of a profile.
@Suite(.takesTurns) struct AccountCommandTests {
    @Test func aNewProfileIsSignedInToTheDefaultAccount() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.succeed(on: "A", ["account", "status"]) == "Signed in as default.\n")
        #expect(try await sandbox.succeed(on: "A", ["account", "status", "--json"]) == """
            {
              "account" : "default",
              "boundAccount" : null,
              "device" : "A"
            }

            """)
        #expect(try await sandbox.succeed(on: "A", ["account", "status"], environment: ["LANG": "zh_TW.UTF-8"]) == "已登入 default\n")
    }

    @Test func signedOutEverythingLocalWorksAndSigningInSendsWhatWaited() async throws {
        let sandbox = try Sandbox()
        let before = try await sandbox.add("Before signing out", on: "A")
        try await sandbox.sync("A")
        #expect(try await sandbox.succeed(on: "A", ["account", "sign-out"]) == "Signed out; ideas stay on this device.\n")
        #expect(try await sandbox.succeed(on: "A", ["account", "status"]) == "Not signed in; ideas stay on this device.\n")

        let waiting = try await sandbox.add("While signed out", on: "A")
        try await sandbox.succeed(on: "A", ["edit", waiting, "--description", "still local"])
        try await sandbox.succeed(on: "A", ["done", before])
        #expect(try await sandbox.succeed(on: "A", ["search", "signed out"]).contains("While signed out"))
        try await sandbox.expectRejection(on: "A", ["sync"], message: SyncMessage.notSignedIn)
        let status = try await sandbox.status("A")
        #expect(status.account == nil && status.pendingCount == 2 && status.boundAccount == "default")
        #expect(try await sandbox.succeed(on: "A", ["status"]).contains("account: not signed in\n"))

        #expect(try await sandbox.succeed(on: "A", ["account", "sign-in", "default"]) == "Signed in as default.\n")
        let resumed = try await sandbox.sync("A")
        #expect(resumed.sent == 2 && resumed.received == 0 && resumed.pending == 0)
        #expect(try await sandbox.sync("B").received == 2)
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
    }

    @Test func ideasMadeBeforeTheFirstSignInUploadThen() async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["account", "sign-out"])
        var ids: [String] = []
        for number in 1...3 { ids.append(try await sandbox.add("Offline life \(number)", on: "A")) }
        try await sandbox.expectRejection(on: "A", ["sync"], message: SyncMessage.notSignedIn)
        #expect(try await sandbox.status("A").boundAccount == nil, "no account yet")
        try await sandbox.succeed(on: "A", ["account", "sign-in", "default"])
        #expect(try await sandbox.sync("A").sent == 3)
        #expect(try await sandbox.status("A").boundAccount == "default")
        try await sandbox.sync("B")
        #expect(try await sandbox.ideas(on: "B").map(\.idString) == ids.reversed())
    }

    /// docs/serve.md's order: ideas made in the embedded account `default`, then a sign-in to an
    /// account of one's own: they go along, and `default` keeps its copy.
    @Test func theFirstSignInToAnotherAccountCarriesTheIdeasAlong() async throws {
        let sandbox = try Sandbox()
        var ideas: [String] = []
        for title in ["Typed before signing in", "早於登入的靈感"] { ideas.append(try await sandbox.add(title, on: "A")) }
        try await sandbox.sync("A")

        #expect(try await sandbox.succeed(on: "A", ["account", "sign-in", "me"]) == """
            Signed in as me.
            This profile's 2 ideas go to me with the next sync, merged with its ideas; default keeps its copy.

            """)
        #expect(try await sandbox.status("A").boundAccount == "me")
        #expect(try await sandbox.sync("A").sent == 2)
        try await sandbox.succeed(on: "C", ["account", "sign-in", "me"])
        #expect(try await sandbox.sync("C").received == 2)
        #expect(try await sandbox.ideas(on: "C").map(\.idString) == ideas.reversed())
        #expect(try await sandbox.sync("B").received == 2, "default keeps its copy")

        // An edit on either side of the new account reaches the other.
        try await sandbox.succeed(on: "C", ["edit", ideas[0], "--title", "Edited on C"])
        try await sandbox.sync("C")
        try await sandbox.sync("A")
        #expect(try await sandbox.syncedState(of: "A") == sandbox.syncedState(of: "C"))
    }

    /// Two accounts that both hold ideas a person made: without a terminal to ask on, the
    /// ideas stay apart until `--merge`; merged, neither side is dropped.
    @Test func aSwitchBetweenAccountsThatBothHoldIdeasTakesAFlagAndDropsNeitherSide() async throws {
        let sandbox = try Sandbox()
        let shared = try await sandbox.add("Belongs to default", on: "A")
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        try await sandbox.succeed(on: "C", ["account", "sign-in", "work"])
        let work = try await sandbox.add("Made in work", on: "C")
        try await sandbox.sync("C")

        #expect(try await sandbox.succeed(on: "B", ["account", "sign-in", "work"]) == """
            Signed in as work.
            This profile's ideas belong to default; they don't sync while signed in as work. \
            To bring them into work, merged: ideabox account sign-in work --merge

            """)
        #expect(try await sandbox.succeed(on: "B", ["account", "status", "--json"]) == """
            {
              "account" : "work",
              "boundAccount" : "default",
              "device" : "B"
            }

            """)
        let madeOnB = try await sandbox.add("Made on B while signed in as work", on: "B")
        let refusal = "Signed in as work, but these ideas belong to default; sign in as default to sync them, "
            + "or bring them into work with ideabox account sign-in work --merge."
        try await sandbox.expectRejection(on: "B", ["sync"], message: refusal)
        try await sandbox.expectRejection(on: "B", ["sync", "--overwrite-remote", "--yes"], message: refusal)
        #expect(try await sandbox.sync("C").received == 0)

        #expect(try await sandbox.succeed(on: "B", ["account", "sign-in", "work", "--merge"]) == """
            Signed in as work.
            This profile's 2 ideas go to work with the next sync, merged with its ideas; default keeps its copy.

            """)
        let merged = try await sandbox.sync("B")
        #expect(merged.sent == 2 && merged.received == 1)
        #expect(try await sandbox.sync("C").received == 2)
        #expect(try await sandbox.ideas(on: "C").map(\.idString).sorted() == [madeOnB, shared, work].sorted())
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "C"))
        #expect(try await sandbox.sync("A").received == 0, "default gets nothing of work")
        #expect(try await sandbox.ideas(on: "A").map(\.idString) == [shared])
    }

    @Test func keepApartLeavesTheIdeasWithTheirAccountEvenWhenTheNewOneIsEmpty() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("Stays with default", on: "A")
        try await sandbox.sync("A")
        #expect(try await sandbox.succeed(on: "A", ["account", "sign-in", "empty", "--keep-apart"]).hasSuffix("sign-in empty --merge\n"))
        #expect(try await sandbox.status("A").boundAccount == "default")
        try await sandbox.expectRejection(
            on: "A", ["account", "sign-in", "empty", "--merge", "--keep-apart"],
            message: "--merge and --keep-apart do not go together. (see `ideabox help`)")
        try await sandbox.succeed(on: "A", ["account", "sign-in", "default"])
        #expect(try await sandbox.sync("A") == SyncOutcome(sent: 0, received: 0, conflicts: 0, pending: 0, syncedAt: sandbox.status("A").lastSyncAt))
    }

    @Test func plainHTTPIsForThisMachineOnlyUnlessTheUserAllowsIt() async throws {
        let sandbox = try Sandbox()
        let server = "profiles/default/server.json"
        for url in ["http://192.0.2.1:8420", "http://ideas.example:8420", "http://[2001:db8::1]:8420"] {
            let refused = try await sandbox.run(["account", "sign-in", "alice", "--server", url, "--token", "ibx_x"])
            #expect(refused.status != 0 && refused.stderr.contains("over http://: plain HTTP to another machine would send"), "\(refused)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.appendingPathComponent(server).path), "\(url) was kept")
        }
        for url in ["http://127.0.0.1:8420", "http://127.8.9.10:8420", "http://[::1]:8420", "http://localhost:8420"] {
            // Nothing listens there: the sign-in is kept unchecked (--no-check), and checked it is
            // refused for that, not for plain HTTP.
            let unanswered = try await sandbox.run(["account", "sign-in", "alice", "--server", url, "--token", "ibx_x"])
            #expect(unanswered.status != 0 && unanswered.stderr.contains("(connection refused); the sign-in before is kept."), "\(unanswered)")
            #expect(try await sandbox.succeed(["account", "sign-in", "alice", "--server", url, "--token", "ibx_x", "--no-check"]).hasPrefix("Signed in as alice"))
        }
        #expect(try await sandbox.succeed([
            "account", "sign-in", "alice", "--server", "http://192.0.2.1:8420", "--token", "ibx_x", "--allow-insecure-http", "--no-check",
        ]).hasPrefix("Signed in as alice"))
        let kept = try String(contentsOf: sandbox.dataRoot.appendingPathComponent(server), encoding: .utf8)
        #expect(kept.contains("\"allowsInsecureHTTP\" : true"), "\(kept)")
    }

    @Test func aCertificateAuthorityMustBeAPEMCertificateForAnHTTPSServer() async throws {
        let sandbox = try Sandbox()
        let notPEM = try sandbox.file("ca.pem", "not a certificate\n")
        try await sandbox.expectRejection(
            ["account", "sign-in", "alice", "--server", "https://ideas.example", "--token", "ibx_x", "--ca-cert", notPEM],
            message: "--ca-cert \(notPEM) holds no PEM certificate (-----BEGIN CERTIFICATE-----). (see `ideabox help`)")
        try await sandbox.expectRejection(
            ["account", "sign-in", "alice", "--server", "https://ideas.example", "--token", "ibx_x", "--ca-cert", "/nonexistent/ca.pem"],
            message: "Cannot read the --ca-cert file /nonexistent/ca.pem. (see `ideabox help`)")
        try await sandbox.expectRejection(
            ["account", "sign-in", "alice", "--ca-cert", notPEM],
            message: "--token, --api-token, --container, --ca-cert, --allow-insecure-http and --no-check go with --server. (see `ideabox help`)")
    }

    @Test func anAccountNameIsOneLine() async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(
            on: "A", ["account", "sign-in", "  "],
            message: "The account name must be one line and not empty (or sign in to iCloud with --icloud). (see `ideabox help`)")
        try await sandbox.expectRejection(
            on: "A", ["account", "sign-in", "two\nlines"],
            message: "The account name must be one line and not empty (or sign in to iCloud with --icloud). (see `ideabox help`)")
        #expect(try await sandbox.succeed(on: "A", ["account", "status"]) == "Signed in as default.\n")
    }

    @Test func anICloudSignInRefusesWhatDoesNotGoWithItAndChangesNothing() async throws {
        let sandbox = try Sandbox()
        let refused: [(arguments: [String], message: String)] = [
            (["alice", "--icloud"], "--icloud takes no account name: the account is the Apple ID you sign in with."),
            (["--icloud", "--server", "http://127.0.0.1:8420"],
             "--server, --container, --ca-cert, --allow-insecure-http and --no-check do not go with --icloud."),
            (["--icloud", "--environment", "staging"], "--environment must be production or development, not \"staging\"."),
            (["--icloud", "--api-token", "not-a-token"],
             "--api-token must be the 64 hex digits CloudKit Dashboard shows for the container's API token."),
            (["alice", "--environment", "development"], "--environment and --callback-port go with --icloud."),
        ]
        for (arguments, message) in refused {
            try await sandbox.expectRejection(on: "A", ["account", "sign-in"] + arguments, message: message + " (see `ideabox help`)")
        }
        #expect(try await sandbox.succeed(on: "A", ["account", "status"]) == "Signed in as default.\n")
    }
}
