import Foundation
import ProcessTestSupport
import Testing

/// `ideabox remote …`: the simulated network, latency, errors and quota of a profile.
@Suite(.takesTurns) struct RemoteCommandTests {
    private static let codes = """
        networkUnavailable, networkFailure, untrustedServer, serverUnreachable, notAuthenticated, tokenRefused, quotaExceeded, zoneBusy, requestRateLimited, \
        serviceUnavailable, serverDatabaseUnavailable, internalError, partialFailure, limitExceeded, unknownItem, zoneNotFound, \
        changeTokenExpired, serverRecordChanged, badRequest, encryptionChanged
        """

    @Test func aNewProfileHasNoFaults() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.succeed(on: "A", ["remote", "status"]) == """
            device: A
            remote: embedded (on this machine)
            account: default
            network: online
            latency: 0 ms
            error rates: none
            scripted errors: none
            quota: none
            records: 0

            """)
    }

    /// In Chinese, only the code name (as the command takes it) stays English.
    @Test func faultsInChinese() async throws {
        let sandbox = try Sandbox()
        let added = try await sandbox.run(
            on: "A", ["remote", "fault", "add", "serviceUnavailable", "--retry-after", "5", "--operation", "modify"],
            environment: ["LANG": "zh_TW.UTF-8"])
        #expect(added.stdout == "設定檔 A：100% 的 modify 請求以 serviceUnavailable（5 秒後重試） 失敗\n", "\(added)")
    }

    @Test func faultsAreShownAndCleared() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.succeed(
            on: "A", ["remote", "fault", "add", "serviceunavailable", "--rate", "0.25", "--retry-after", "5", "--operation", "modify"])
            == "Profile A: 25% of modify requests fail with serviceUnavailable (retry after 5 s).\n")
        #expect(try await sandbox.succeed(on: "A", ["remote", "fault", "add", "internalError", "--rate", "0.125"])
            == "Profile A: 12.5% of requests fail with internalError.\n")
        #expect(try await sandbox.succeed(on: "A", ["remote", "fault", "script", "zoneBusy", "networkFailure"])
            == "Profile A: the next 2 requests fail with zoneBusy (retry after 60 s), networkFailure, in order.\n")
        #expect(try await sandbox.succeed(on: "A", ["remote", "fault", "script", "internalError", "--operation", "fetchChanges"])
            == "Profile A: the next fetchChanges request fails with internalError.\n")
        #expect(try await sandbox.succeed(on: "A", ["remote", "latency", "250"]) == "Profile A: 250 ms added to each request.\n")
        #expect(try await sandbox.succeed(on: "A", ["remote", "quota", "40"]) == "Account default: at most 40 records.\n")
        #expect(try await sandbox.succeed(on: "A", ["remote", "status"]) == """
            device: A
            remote: embedded (on this machine)
            account: default
            network: online
            latency: 250 ms
            error rates:
              25% of modify requests fail with serviceUnavailable (retry after 5 s)
              12.5% of requests fail with internalError
            scripted errors:
              zoneBusy (retry after 60 s)
              networkFailure
              internalError (fetchChanges only)
            quota: 40 records
            records: 0

            """)
        #expect(try await sandbox.succeed(on: "A", ["remote", "status", "--json"]) == """
            {
              "account" : "default",
              "container" : null,
              "device" : "A",
              "environment" : null,
              "errorRates" : [
                {
                  "code" : "serviceUnavailable",
                  "operation" : "modify",
                  "probability" : 0.25,
                  "retryAfter" : 5
                },
                {
                  "code" : "internalError",
                  "operation" : null,
                  "probability" : 0.125,
                  "retryAfter" : null
                }
              ],
              "isOffline" : false,
              "latencyMilliseconds" : 250,
              "quota" : 40,
              "recordCount" : 0,
              "remote" : "embedded",
              "scriptedErrors" : [
                {
                  "code" : "zoneBusy",
                  "operation" : null,
                  "retryAfter" : 60
                },
                {
                  "code" : "networkFailure",
                  "operation" : null,
                  "retryAfter" : null
                },
                {
                  "code" : "internalError",
                  "operation" : "fetchChanges",
                  "retryAfter" : null
                }
              ],
              "server" : null,
              "usage" : null,
              "usageError" : null
            }

            """)
        #expect(try await sandbox.succeed(on: "B", ["remote", "status"]).contains("error rates: none\nscripted errors: none\nquota: 40 records\n"),
                "faults belong to a device, the quota to the account")

        #expect(try await sandbox.succeed(on: "A", ["remote", "fault", "clear"]) == "Profile A: no error faults.\n")
        #expect(try await sandbox.succeed(on: "A", ["remote", "latency", "0"]) == "Profile A: no added latency.\n")
        #expect(try await sandbox.succeed(on: "A", ["remote", "status"]).contains("latency: 0 ms\nerror rates: none\nscripted errors: none\n"))
    }

    @Test func offlineIsPerProfile() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("From B", on: "B")
        try await sandbox.succeed(on: "A", ["remote", "offline", "on"])
        #expect(try await sandbox.succeed(on: "A", ["remote", "status"]).contains("\nnetwork: offline\n"))
        #expect(try await sandbox.sync("B").sent == 1)
        try await sandbox.expectRejection(on: "A", ["sync"], message: SyncMessage.offline)
        try await sandbox.succeed(on: "A", ["remote", "offline", "off"])
        #expect(try await sandbox.sync("A").received == 1)
    }

    @Test func aRateOfOneFailsEverySyncUntilCleared() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("Patient", on: "A")
        try await sandbox.succeed(on: "A", ["remote", "fault", "add", "requestRateLimited", "--retry-after", "2"])
        try await sandbox.expectRejection(on: "A", ["sync"], message: "The remote failed: request rate limited (retry after 2 s).")
        try await sandbox.expectRejection(on: "A", ["sync"], message: "The remote failed: request rate limited (retry after 2 s).")
        try await sandbox.succeed(on: "A", ["remote", "fault", "clear"])
        #expect(try await sandbox.sync("A").sent == 1)
    }

    @Test func mistakesSayWhatIsAllowed() async throws {
        let sandbox = try Sandbox()
        let seeHelp = " (see `ideabox help`)"
        try await sandbox.expectRejection(
            ["remote", "fault", "add", "boom"], message: "Unknown error code \"boom\"; use one of: \(Self.codes)." + seeHelp)
        try await sandbox.expectRejection(
            ["remote", "fault", "script", "zoneBusy", "boom"],
            message: "Unknown error code \"boom\"; use one of: \(Self.codes)." + seeHelp)
        try await sandbox.expectRejection(
            ["remote", "fault", "add", "internalError", "--retry-after", "3"],
            message: "--retry-after only goes with zoneBusy, requestRateLimited, serviceUnavailable, serverDatabaseUnavailable." + seeHelp)
        try await sandbox.expectRejection(
            ["remote", "fault", "add", "internalError", "--operation", "upload"],
            message: "Unknown operation \"upload\"; use one of: createZone, deleteZone, modify, fetchChanges, query, uploadAsset, fetchAsset." + seeHelp)
        try await sandbox.expectRejection(
            ["remote", "fault", "add", "internalError", "--rate", "1.5"],
            message: "--rate must be more than 0 and at most 1, such as 0.25." + seeHelp)
        try await sandbox.expectRejection(["remote", "latency", "70000"], message: "Latency must be 0 to 60000 ms, not 70000." + seeHelp)
        try await sandbox.expectRejection(
            ["remote", "quota", "lots"], message: "The quota must be a number of records (0 or more) or `off`, not \"lots\"." + seeHelp)
        #expect(try await sandbox.succeed(["remote", "status"]).contains("error rates: none\nscripted errors: none\nquota: none\n"))

        try await sandbox.succeed(on: "A", ["account", "sign-out"])
        try await sandbox.expectRejection(
            on: "A", ["remote", "quota", "5"], message: "Profile A is not signed in; sign in first, the quota belongs to an account.")
    }

    /// Issue 59: a profile signed in to a server says which server, container and
    /// environment its requests reach, and what the server holds of its account — not the
    /// embedded remote's account and its count of 0 — or that it could not ask, and why.
    @Test func aServedProfileTellsTheServerItReachesAndWhatTheServerHoldsOfItsAccount() async throws {
        let (server, token, url) = try await ServeProcess.running(withAccount: "me")
        defer { server.close() }
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["account", "sign-in", "me", "--server", url, "--token", token])
        for title in ["One", "Two", "Three"] { _ = try await sandbox.add(title, on: "A") }
        try await sandbox.sync("A")
        let quota = try await server.command(["account", "quota", "me", "500"])
        let match = try #require(quota.firstMatch(of: /records (\d+) \/ 500/), "\(quota)")
        let held = try #require(Int(match.1))
        #expect(held >= 3)

        let answered = try await Self.object(try sandbox.succeed(on: "A", ["remote", "status", "--json"]))
        #expect(answered["remote"] as? String == "server" && answered["account"] as? String == "me")
        #expect((answered["server"] as? String)?.hasPrefix(url) == true)
        #expect((answered["container"] as? String)?.hasPrefix("iCloud.") == true && answered["environment"] as? String == "production")
        #expect(answered["recordCount"] as? Int == held && answered["quota"] as? Int == 500)
        #expect((answered["usage"] as? [String: Any])?["maxRecords"] as? Int == 500 && answered["usageError"] is NSNull)
        let text = try await sandbox.succeed(on: "A", ["remote", "status"])
        #expect(text.contains("remote: server \(url)") && text.contains("\naccount: me\n"), "\(text)")
        #expect(text.contains("\nquota: 500 records\nrecords: \(held) (as the server counts them)\n"), "\(text)")
        let status = try await Self.object(try sandbox.succeed(on: "A", ["status", "--json"]))
        #expect(status["remote"] as? String == "server" && status["container"] as? String == answered["container"] as? String)

        // Offline, it does not ask; with the server gone, it says it could not.
        try await sandbox.succeed(on: "A", ["remote", "offline", "on"])
        #expect(try await sandbox.succeed(on: "A", ["remote", "status"]).contains("records: unknown (the server could not be asked: "))
        try await sandbox.succeed(on: "A", ["remote", "offline", "off"])
        _ = try await server.stop()
        let unasked = try await Self.object(try sandbox.succeed(on: "A", ["remote", "status", "--json"]))
        #expect(unasked["recordCount"] is NSNull && unasked["usage"] is NSNull && unasked["quota"] is NSNull)
        #expect((unasked["usageError"] as? String)?.isEmpty == false, "\(unasked)")
        let chinese = try await sandbox.succeed(on: "A", ["remote", "status"], environment: ["LANG": "zh_TW.UTF-8"])
        #expect(chinese.contains("遠端: 伺服器 \(url)") && chinese.contains("記錄數: 不明（無法詢問伺服器："), "\(chinese)")
    }

    /// The JSON object `output` holds.
    private static func object(_ output: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }
}
