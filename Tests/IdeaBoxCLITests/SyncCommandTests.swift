import Foundation
import Testing

/// `ideabox sync` between two profiles (two devices of one account) under one data root.
@Suite struct SyncCommandTests {
    @Test func watchSyncsEachChangeOfAnotherDeviceAsItHappensAndStopsOnSIGTERM() async throws {
        let sandbox = try Sandbox()
        let watch = try sandbox.startWatch(on: "B")
        try await watch.waitUntil("B listens") { watch.printed.contains("Listening: changes of other devices arrive live.") }
        #expect(try sandbox.succeed(on: "B", ["status"]).contains("changes arrive: live (a long poll is held)\n"))

        let id = try sandbox.add("從 A 來的", on: "A")
        try sandbox.sync("A")
        try await watch.waitUntil("B has A's idea") { try sandbox.succeed(on: "B", ["list"]).contains("\(id.prefix(8))  [ ] 從 A 來的") }
        try await watch.waitUntil("the watch says so") { watch.printed.contains("Synced: 0 sent, 1 received, 0 conflicts.") }
        #expect(watch.printed.split(separator: "\n").allSatisfy { $0.hasPrefix("20") }, "every line starts with its time")

        #expect(try watch.stop(SIGTERM) == 0)
        #expect(try sandbox.succeed(on: "B", ["status"]).contains("changes arrive: when synced"))
        #expect(try sandbox.run(on: "B", ["sync", "--watch", "--overwrite-remote", "--yes"]).status != 0)
    }

    @Test func anIdeaAddedOnAAppearsOnB() throws {
        let sandbox = try Sandbox()
        let id = try sandbox.add("Seen everywhere", on: "A")
        #expect(try sandbox.succeed(on: "A", ["sync"]) == SyncMessage.synced(sent: 1, received: 0))
        #expect(try sandbox.succeed(on: "B", ["sync"]) == SyncMessage.synced(sent: 0, received: 1))
        #expect(try sandbox.succeed(on: "B", ["list"]) == "\(id.prefix(8))  [ ] Seen everywhere\n")
        #expect(try sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
    }

    @Test func aCompletionOnAReachesB() throws {
        let sandbox = try Sandbox()
        let id = try sandbox.add("Finish me", on: "A")
        try sandbox.sync("A")
        try sandbox.sync("B")
        try sandbox.succeed(on: "A", ["done", id])
        #expect(try sandbox.sync("A").sent == 1)
        #expect(try sandbox.sync("B").received == 1)
        #expect(try sandbox.succeed(on: "B", ["list", "--completed"]) == "\(id.prefix(8))  [x] Finish me\n")
        #expect(try sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
    }

    @Test func syncPrintsJSON() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.add("One", on: "A")
        let output = try sandbox.succeed(on: "A", ["sync", "--json"])
        let lastSync = try #require(try sandbox.status("A").lastSyncAt)
        #expect(output == """
            {
              "conflicts" : 0,
              "pending" : 0,
              "received" : 0,
              "sent" : 1,
              "syncedAt" : "\(lastSync)"
            }

            """)
    }

    @Test func offlineSyncFailsWithTheReasonAndADeleteMadeOfflineArrivesLater() throws {
        let sandbox = try Sandbox()
        let kept = try sandbox.add("Kept", on: "A")
        let doomed = try sandbox.add("Deleted offline", on: "A")
        try sandbox.sync("A")
        try sandbox.sync("B")

        #expect(try sandbox.succeed(on: "A", ["remote", "offline", "on"]) == "Profile A is offline.\n")
        try sandbox.succeed(on: "A", ["rm", doomed])
        let added = try sandbox.add("Added offline", on: "A")
        try sandbox.expectRejection(on: "A", ["sync"], message: SyncMessage.offline)
        try sandbox.expectRejection(on: "A", ["sync", "--json"], message: SyncMessage.offline)
        let status = try sandbox.status("A")
        #expect(status.isOffline && status.pendingCount == 2 && status.lastSyncError == SyncMessage.offline)
        #expect(try sandbox.succeed(on: "A", ["status"]).contains("network: offline\npending changes: 2\n"))
        #expect(try sandbox.sync("B") == SyncOutcome(sent: 0, received: 0, conflicts: 0, pending: 0, syncedAt: sandbox.status("B").lastSyncAt))

        #expect(try sandbox.succeed(on: "A", ["remote", "offline", "off"]) == "Profile A is online.\n")
        let resumed = try sandbox.sync("A")
        #expect(resumed.sent == 2 && resumed.received == 0 && resumed.pending == 0)
        #expect(try sandbox.status("A").lastSyncError == nil)
        #expect(try sandbox.sync("B").received == 2)
        #expect(try sandbox.ideas(on: "B").map(\.idString) == [added, kept])
    }

    @Test func aRemoteErrorFailsTheSyncLosesNothingAndTheNextSyncWorks() throws {
        let sandbox = try Sandbox()
        let first = try sandbox.add("Survives an outage", on: "A")
        try sandbox.succeed(on: "A", ["remote", "fault", "script", "serviceUnavailable"])
        try sandbox.expectRejection(on: "A", ["sync"], message: "The remote failed: service unavailable.")
        #expect(try sandbox.status("A").pendingCount == 1)

        let second = try sandbox.add("Waits for a push", on: "A")
        try sandbox.succeed(on: "A", ["remote", "fault", "script", "zoneBusy", "--operation", "modify"])
        try sandbox.expectRejection(on: "A", ["sync"], message: "The remote failed: zone busy (retry after 60 s).")
        #expect(try sandbox.status("A").pendingCount == 2)
        #expect(try sandbox.ideas(on: "A").map(\.idString) == [second, first])

        #expect(try sandbox.succeed(on: "A", ["sync"]) == SyncMessage.synced(sent: 2, received: 0))
        #expect(try sandbox.sync("B").received == 2)
        #expect(try sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
    }

    @Test func aFullQuotaIsLocalModeWithANotice() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(on: "A", ["remote", "quota", "1"])
        _ = try sandbox.add("Fits", on: "A")
        _ = try sandbox.add("Doesn't fit", on: "A")
        try sandbox.expectRejection(on: "A", ["sync"], message: SyncMessage.quotaExceeded)
        let status = try sandbox.status("A")
        #expect(status.pendingCount == 1 && status.lastSyncError == SyncMessage.quotaExceeded)
        #expect(try sandbox.ideas(on: "A").count == 2)
        _ = try sandbox.add("Still works locally", on: "A")

        #expect(try sandbox.succeed(on: "A", ["remote", "quota", "off"]) == "Account default: no quota.\n")
        #expect(try sandbox.sync("A").sent == 2)
        #expect(try sandbox.sync("B").received == 3)
    }

    @Test func overwriteRemoteNeedsYes() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.add("Mine", on: "A")
        try sandbox.expectRejection(
            on: "A", ["sync", "--overwrite-remote"],
            message: "--overwrite-remote replaces the ideas of every device of the account with this profile's; add --yes to do it.")
        try sandbox.expectRejection(
            on: "A", ["sync", "--overwrite-remote"],
            message: "--overwrite-remote 會用這台裝置的靈感取代帳號下所有裝置的靈感；確定要執行請加上 --yes",
            environment: ["LANG": "zh_TW.UTF-8"])
        try sandbox.expectRejection(
            on: "A", ["sync", "--yes"], message: "--yes only confirms --overwrite-remote. (see `ideabox help`)")
        #expect(try sandbox.status("A").lastSyncAt == nil, "nothing was synced")
        #expect(try sandbox.sync("B").received == 0)
    }

    @Test func overwriteRemoteLeavesAsIdeasAndBFollows() throws {
        let sandbox = try Sandbox()
        let x = try sandbox.add("X", on: "A")
        let y = try sandbox.add("Y", on: "A")
        try sandbox.sync("A")
        try sandbox.sync("B")
        let z = try sandbox.add("Z from B", on: "B")
        try sandbox.succeed(on: "B", ["edit", y, "--title", "Y renamed on B"])
        try sandbox.sync("B")

        let output = try sandbox.succeed(on: "A", ["sync", "--overwrite-remote", "--yes"])
        #expect(output.hasPrefix("Overwrote the remote with this profile's ideas: 3 sent, "), "\(output)")
        #expect(try sandbox.ideas(on: "A").map(\.title) == ["Y", "X"])
        try sandbox.sync("B")
        #expect(try sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
        #expect(try sandbox.ideas(on: "B").map(\.idString) == [y, x])
        try sandbox.expectRejection(on: "B", ["show", z], message: "No idea has the id \"\(z)\".")
        #expect(try sandbox.succeed(on: "B", ["log"]).contains("warning") == false, "B only followed")
        #expect(try sandbox.succeed(on: "A", ["log"]).contains("  warning   overwriting the remote with this device's 2 ideas\n"))
    }

    /// An overwrite that fails is not carried out by the next plain sync: A's newer title and
    /// A's edit newer than B's delete survive it. The next overwrite starts again.
    @Test func aFailedOverwriteChangesNothingAndTheNextOverwriteStartsAgain() throws {
        let sandbox = try Sandbox()
        let x = try sandbox.add("X", on: "A")
        let y = try sandbox.add("Y", on: "A")
        try sandbox.sync("A")
        try sandbox.sync("B")
        try sandbox.succeed(on: "B", ["rm", y])
        try sandbox.succeed(on: "A", ["edit", x, "--title", "X renamed on A"])
        try sandbox.succeed(on: "A", ["edit", y, "--title", "Y renamed on A after B's delete"])
        try sandbox.sync("A")

        try sandbox.succeed(on: "B", ["remote", "fault", "script", "networkFailure", "--operation", "modify"])
        #expect(try sandbox.run(on: "B", ["sync", "--overwrite-remote", "--yes"]).status != 0)
        #expect(try sandbox.succeed(on: "B", ["log"]).contains("the overwrite of the remote did not finish"))
        try sandbox.sync("B")
        try sandbox.sync("A")
        #expect(try sandbox.ideas(on: "B").map(\.title) == ["Y renamed on A after B's delete", "X renamed on A"])
        #expect(try sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))

        try sandbox.succeed(on: "B", ["rm", x])
        try sandbox.succeed(on: "B", ["remote", "fault", "script", "networkFailure", "--operation", "modify"])
        #expect(try sandbox.run(on: "B", ["sync", "--overwrite-remote", "--yes"]).status != 0)
        let output = try sandbox.succeed(on: "B", ["sync", "--overwrite-remote", "--yes"])
        #expect(output.hasPrefix("Overwrote the remote with this profile's ideas: "), "\(output)")
        try sandbox.sync("A")
        #expect(try sandbox.ideas(on: "A").map(\.idString) == [y])
    }

    @Test func samplesSeededOnTwoDevicesSyncToSevenNotFourteen() throws {
        let sandbox = try Sandbox(samples: true)
        try sandbox.sync("A")
        try sandbox.sync("B")
        try sandbox.sync("A")
        #expect(try sandbox.succeed(on: "A", ["list"]) == SampleIdeasTests.englishList)
        #expect(try sandbox.succeed(on: "B", ["list"]) == SampleIdeasTests.englishList)
        #expect(try sandbox.succeed(on: "B", ["remote", "status"]).contains("\nrecords: 7\n"))
        #expect(try sandbox.status("A").pendingCount == 0 && sandbox.status("B").pendingCount == 0)
    }

    @Test func theReasonIsInTheUsersLanguage() throws {
        let sandbox = try Sandbox(language: "zh_TW.UTF-8")
        _ = try sandbox.add("離線時新增", on: "A")
        #expect(try sandbox.succeed(on: "A", ["remote", "offline", "on"]) == "設定檔 A 已離線\n")
        try sandbox.expectRejection(on: "A", ["sync"], message: "網路已關閉；變更暫存在這台裝置")
        try sandbox.succeed(on: "A", ["remote", "offline", "off"])
        #expect(try sandbox.succeed(on: "A", ["sync"]) == "已同步：送出 1 筆、收到 0 筆、衝突 0 筆\n")
    }
}
