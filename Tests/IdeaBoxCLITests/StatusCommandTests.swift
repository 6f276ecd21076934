import Foundation
import IdeaBoxCore
import Testing

/// `ideabox status`: account, network, pending changes, last sync and its error.
@Suite struct StatusCommandTests {
    @Test func aNewProfile() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.succeed(["status"]) == """
            device: default
            account: signed in as default
            network: online
            pending changes: 0
            last sync: never
            last error: none
            ideas belong to: no account yet

            """)
        #expect(try sandbox.succeed(["status", "--json"]) == """
            {
              "account" : "default",
              "boundAccount" : null,
              "device" : "default",
              "isOffline" : false,
              "lastSyncAt" : null,
              "lastSyncError" : null,
              "pendingCount" : 0
            }

            """)
    }

    @Test func afterASyncAndAFailedOne() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.add("One", on: "A")
        try sandbox.sync("A")
        let lastSync = try #require(try sandbox.status("A").lastSyncAt)
        _ = try sandbox.add("Two", on: "A")
        try sandbox.succeed(on: "A", ["remote", "offline", "on"])
        _ = try sandbox.run(on: "A", ["sync"])
        #expect(try sandbox.succeed(on: "A", ["status"]) == """
            device: A
            account: signed in as default
            network: offline
            pending changes: 1
            last sync: \(lastSync)
            last error: \(SyncMessage.offline)
            ideas belong to: default

            """)
        #expect(try sandbox.succeed(on: "A", ["status", "--json"]) == """
            {
              "account" : "default",
              "boundAccount" : "default",
              "device" : "A",
              "isOffline" : true,
              "lastSyncAt" : "\(lastSync)",
              "lastSyncError" : "\(SyncMessage.offline)",
              "pendingCount" : 1
            }

            """)
        #expect(try sandbox.succeed(on: "A", ["status"], environment: ["LANG": "zh_TW.UTF-8"]) == """
            裝置: A
            帳號: 已登入 default
            網路: 離線
            待送出變更: 1
            上次同步: \(lastSync)
            上次錯誤: \(SyncMessage.offline)
            靈感所屬帳號: default

            """)
    }

    @Test func signedOut() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["account", "sign-out"])
        #expect(try sandbox.succeed(["status"]).hasPrefix("device: default\naccount: not signed in\nnetwork: online\n"))
        #expect(try sandbox.status("default").account == nil)
    }
}
