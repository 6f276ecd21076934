import Foundation
import ProcessTestSupport
import Testing

/// `ideabox status`: account, network, pending changes, last sync and its error.
@Suite(.takesTurns) struct StatusCommandTests {
    @Test func aNewProfile() async throws {
        let sandbox = try Sandbox()
        try await sandbox.launch()
        #expect(try await sandbox.succeed(["status"]) == """
            device: default
            remote: embedded (on this machine)
            account: signed in as default
            network: online
            pending changes: 0
            stale changes: 0
            changes arrive: when synced (no app or sync --watch is running)
            last sync: never
            last error: none
            ideas belong to: no account yet
            encryption: off

            """)
        #expect(try await sandbox.succeed(["status", "--json"]) == """
            {
              "account" : "default",
              "boundAccount" : null,
              "changeDelivery" : null,
              "clockAheadOfRemoteMs" : null,
              "container" : null,
              "device" : "default",
              "encryption" : "off",
              "environment" : null,
              "isOffline" : false,
              "lastSyncAt" : null,
              "lastSyncError" : null,
              "pendingCount" : 0,
              "remote" : "embedded",
              "server" : null,
              "staleCount" : 0
            }

            """)
    }

    @Test func afterASyncAndAFailedOne() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("One", on: "A")
        try await sandbox.sync("A")
        let lastSync = try #require(try await sandbox.status("A").lastSyncAt)
        _ = try await sandbox.add("Two", on: "A")
        try await sandbox.succeed(on: "A", ["remote", "offline", "on"])
        _ = try await sandbox.run(on: "A", ["sync"])
        #expect(try await sandbox.succeed(on: "A", ["status"]) == """
            device: A
            remote: embedded (on this machine)
            account: signed in as default
            network: offline
            pending changes: 1
            stale changes: 0
            changes arrive: not while offline (ideabox remote offline off, or o in the app)
            last sync: \(lastSync)
            last error: \(SyncMessage.offline)
            ideas belong to: default
            encryption: off

            """)
        #expect(try await sandbox.succeed(on: "A", ["status", "--json"]) == """
            {
              "account" : "default",
              "boundAccount" : "default",
              "changeDelivery" : null,
              "clockAheadOfRemoteMs" : null,
              "container" : null,
              "device" : "A",
              "encryption" : "off",
              "environment" : null,
              "isOffline" : true,
              "lastSyncAt" : "\(lastSync)",
              "lastSyncError" : "\(SyncMessage.offline)",
              "pendingCount" : 1,
              "remote" : "embedded",
              "server" : null,
              "staleCount" : 0
            }

            """)
        #expect(try await sandbox.succeed(on: "A", ["status"], environment: ["LANG": "zh_TW.UTF-8"]) == """
            裝置: A
            遠端: 內建（在這台機器上）
            帳號: 已登入 default
            網路: 離線
            待送出變更: 1
            逾期未確認: 0
            變更送達: 離線時不會送達（ideabox remote offline off，或在介面中按 o）
            上次同步: \(lastSync)
            上次錯誤: 網路已關閉；變更暫存在這台裝置
            靈感所屬帳號: default
            加密: 關閉

            """)
    }

    @Test func aChangeTheRemoteHasNotConfirmedFor30DaysIsStaleKeptAndStillSent() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("Synced", on: "A")
        try await sandbox.sync("A")
        try await sandbox.succeed(on: "A", ["remote", "offline", "on"])
        let waiting = try await sandbox.add("Waiting", on: "A")
        let days29 = ["IDEABOX_CLOCK_OFFSET_MS": String(29 * 86_400_000)]
        let days31 = ["IDEABOX_CLOCK_OFFSET_MS": String(31 * 86_400_000)]
        #expect(try await sandbox.succeed(on: "A", ["status"], environment: days29).contains("stale changes: 0\n"))
        #expect(try await sandbox.succeed(on: "A", ["status"], environment: days31).contains(
            "stale changes: 1 (not confirmed by the remote for 30 days; kept and still sent)\n"))
        #expect(try await sandbox.succeed(on: "A", ["status", "--json"], environment: days31).contains(#""staleCount" : 1"#))
        // Editing it again does not make the first change any younger.
        try await sandbox.succeed(on: "A", ["edit", waiting, "--title", "Waiting, edited"], environment: days29)
        #expect(try await sandbox.succeed(on: "A", ["status", "--json"], environment: days31).contains(#""staleCount" : 1"#))
        try await sandbox.succeed(on: "A", ["remote", "offline", "off"])
        _ = try await sandbox.run(on: "A", ["sync"], environment: days31)
        #expect(try await sandbox.succeed(on: "A", ["status", "--json"], environment: days31).contains(#""staleCount" : 0"#))
        try await sandbox.sync("B")
        #expect(try await sandbox.succeed(on: "B", ["list"]).contains("Waiting, edited"))
    }

    @Test func signedOut() async throws {
        let sandbox = try Sandbox()
        try await sandbox.launch()
        try await sandbox.succeed(["account", "sign-out"])
        #expect(try await sandbox.succeed(["status"]).hasPrefix("device: default\nremote: embedded (on this machine)\naccount: not signed in\nnetwork: online\n"))
        #expect(try await sandbox.status("default").account == nil)
    }
}
