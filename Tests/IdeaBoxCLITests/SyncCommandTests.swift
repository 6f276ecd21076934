import Foundation
import ProcessTestSupport
import Testing

/// `ideabox sync` between two profiles (two devices of one account) under one data root.
@Suite(.takesTurns) struct SyncCommandTests {
    @Test func watchSyncsEachChangeOfAnotherDeviceAsItHappensAndStopsOnSIGTERM() async throws {
        let sandbox = try Sandbox()
        let watch = try sandbox.startWatch(on: "B")
        try await watch.waitUntil("B listens") { watch.printed.contains("Listening: changes of other devices arrive live.") }
        #expect(try await sandbox.succeed(on: "B", ["status"]).contains("changes arrive: live (a long poll is held)\n"))

        let id = try await sandbox.add("從 A 來的", on: "A")
        try await sandbox.sync("A")
        try await watch.waitUntil("B has A's idea") { try await sandbox.succeed(on: "B", ["list"]).contains("\(id.prefix(8))  [ ] 從 A 來的") }
        try await watch.waitUntil("the watch says so") { watch.printed.contains("Synced: 0 sent, 1 received, 0 conflicts.") }
        #expect(watch.printed.split(separator: "\n").allSatisfy { $0.hasPrefix("20") }, "every line starts with its time")

        #expect(try await watch.stop(SIGTERM) == 0)
        #expect(try await sandbox.succeed(on: "B", ["status"]).contains("changes arrive: when synced"))
        #expect(try await sandbox.run(on: "B", ["sync", "--watch", "--overwrite-remote", "--yes"]).status != 0)
    }

    @Test func anIdeaAddedOnAAppearsOnB() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Seen everywhere", on: "A")
        #expect(try await sandbox.succeed(on: "A", ["sync"]) == SyncMessage.synced(sent: 1, received: 0))
        #expect(try await sandbox.succeed(on: "B", ["sync"]) == SyncMessage.synced(sent: 0, received: 1))
        #expect(try await sandbox.succeed(on: "B", ["list"]) == "\(id.prefix(8))  [ ] Seen everywhere\n")
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
    }

    @Test func aCompletionOnAReachesB() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Finish me", on: "A")
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        try await sandbox.succeed(on: "A", ["done", id])
        #expect(try await sandbox.sync("A").sent == 1)
        #expect(try await sandbox.sync("B").received == 1)
        #expect(try await sandbox.succeed(on: "B", ["list", "--completed"]) == "\(id.prefix(8))  [x] Finish me\n")
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
    }

    @Test func syncPrintsJSON() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("One", on: "A")
        let output = try await sandbox.succeed(on: "A", ["sync", "--json"])
        let lastSync = try #require(try await sandbox.status("A").lastSyncAt)
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

    @Test func offlineSyncFailsWithTheReasonAndADeleteMadeOfflineArrivesLater() async throws {
        let sandbox = try Sandbox()
        let kept = try await sandbox.add("Kept", on: "A")
        let doomed = try await sandbox.add("Deleted offline", on: "A")
        try await sandbox.sync("A")
        try await sandbox.sync("B")

        #expect(try await sandbox.succeed(on: "A", ["remote", "offline", "on"]) == "Profile A is offline.\n")
        try await sandbox.succeed(on: "A", ["rm", doomed])
        let added = try await sandbox.add("Added offline", on: "A")
        try await sandbox.expectRejection(on: "A", ["sync"], message: SyncMessage.offline)
        try await sandbox.expectRejection(on: "A", ["sync", "--json"], message: SyncMessage.offline)
        let status = try await sandbox.status("A")
        #expect(status.isOffline && status.pendingCount == 2 && status.lastSyncError == SyncMessage.offline)
        #expect(try await sandbox.succeed(on: "A", ["status"]).contains("network: offline\npending changes: 2\n"))
        #expect(try await sandbox.sync("B") == SyncOutcome(sent: 0, received: 0, conflicts: 0, pending: 0, syncedAt: sandbox.status("B").lastSyncAt))

        #expect(try await sandbox.succeed(on: "A", ["remote", "offline", "off"]) == "Profile A is online.\n")
        let resumed = try await sandbox.sync("A")
        #expect(resumed.sent == 2 && resumed.received == 0 && resumed.pending == 0)
        #expect(try await sandbox.status("A").lastSyncError == nil)
        #expect(try await sandbox.sync("B").received == 2)
        #expect(try await sandbox.ideas(on: "B").map(\.idString) == [added, kept])
    }

    @Test func aRemoteErrorFailsTheSyncLosesNothingAndTheNextSyncWorks() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.add("Survives an outage", on: "A")
        try await sandbox.succeed(on: "A", ["remote", "fault", "script", "serviceUnavailable"])
        try await sandbox.expectRejection(on: "A", ["sync"], message: "The remote failed: service unavailable.")
        #expect(try await sandbox.status("A").pendingCount == 1)

        let second = try await sandbox.add("Waits for a push", on: "A")
        try await sandbox.succeed(on: "A", ["remote", "fault", "script", "zoneBusy", "--operation", "modify"])
        try await sandbox.expectRejection(on: "A", ["sync"], message: "The remote failed: zone busy (retry after 60 s).")
        #expect(try await sandbox.status("A").pendingCount == 2)
        #expect(try await sandbox.ideas(on: "A").map(\.idString) == [second, first])

        #expect(try await sandbox.succeed(on: "A", ["sync"]) == SyncMessage.synced(sent: 2, received: 0))
        #expect(try await sandbox.sync("B").received == 2)
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
    }

    @Test func aFullQuotaIsLocalModeWithANotice() async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["remote", "quota", "1"])
        _ = try await sandbox.add("Fits", on: "A")
        _ = try await sandbox.add("Doesn't fit", on: "A")
        try await sandbox.expectRejection(on: "A", ["sync"], message: SyncMessage.quotaExceeded)
        let status = try await sandbox.status("A")
        #expect(status.pendingCount == 1 && status.lastSyncError == SyncMessage.quotaExceeded)
        #expect(try await sandbox.ideas(on: "A").count == 2)
        _ = try await sandbox.add("Still works locally", on: "A")

        #expect(try await sandbox.succeed(on: "A", ["remote", "quota", "off"]) == "Account default: no quota.\n")
        #expect(try await sandbox.sync("A").sent == 2)
        #expect(try await sandbox.sync("B").received == 3)
    }

    @Test func overwriteRemoteNeedsYes() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("Mine", on: "A")
        try await sandbox.expectRejection(
            on: "A", ["sync", "--overwrite-remote"],
            message: "--overwrite-remote replaces the ideas of every device of the account with this profile's; add --yes to do it.")
        try await sandbox.expectRejection(
            on: "A", ["sync", "--overwrite-remote"],
            message: "--overwrite-remote 會用這台裝置的靈感取代帳號下所有裝置的靈感；確定要執行請加上 --yes",
            environment: ["LANG": "zh_TW.UTF-8"])
        try await sandbox.expectRejection(
            on: "A", ["sync", "--yes"], message: "--yes only confirms --overwrite-remote. (see `ideabox help`)")
        #expect(try await sandbox.status("A").lastSyncAt == nil, "nothing was synced")
        #expect(try await sandbox.sync("B").received == 0)
    }

    @Test func overwriteRemoteLeavesAsIdeasAndBFollows() async throws {
        let sandbox = try Sandbox()
        let x = try await sandbox.add("X", on: "A")
        let y = try await sandbox.add("Y", on: "A")
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        let z = try await sandbox.add("Z from B", on: "B")
        try await sandbox.succeed(on: "B", ["edit", y, "--title", "Y renamed on B"])
        try await sandbox.sync("B")

        let output = try await sandbox.succeed(on: "A", ["sync", "--overwrite-remote", "--yes"])
        #expect(output.hasPrefix("Overwrote the remote with this profile's ideas: 3 sent, "), "\(output)")
        #expect(try await sandbox.ideas(on: "A").map(\.title) == ["Y", "X"])
        try await sandbox.sync("B")
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))
        #expect(try await sandbox.ideas(on: "B").map(\.idString) == [y, x])
        try await sandbox.expectRejection(on: "B", ["show", z], message: "No idea has the id \"\(z)\".")
        #expect(try await sandbox.succeed(on: "B", ["log"]).contains("warning") == false, "B only followed")
        #expect(try await sandbox.succeed(on: "A", ["log"]).contains("  warning   overwriting the remote with this device's 2 ideas\n"))
    }

    /// An overwrite that fails is not carried out by the next plain sync: A's newer title and
    /// A's edit newer than B's delete survive it. The next overwrite starts again.
    @Test func aFailedOverwriteChangesNothingAndTheNextOverwriteStartsAgain() async throws {
        let sandbox = try Sandbox()
        let x = try await sandbox.add("X", on: "A")
        let y = try await sandbox.add("Y", on: "A")
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        try await sandbox.succeed(on: "B", ["rm", y])
        try await sandbox.succeed(on: "A", ["edit", x, "--title", "X renamed on A"])
        try await sandbox.succeed(on: "A", ["edit", y, "--title", "Y renamed on A after B's delete"])
        try await sandbox.sync("A")

        try await sandbox.succeed(on: "B", ["remote", "fault", "script", "networkFailure", "--operation", "modify"])
        #expect(try await sandbox.run(on: "B", ["sync", "--overwrite-remote", "--yes"]).status != 0)
        #expect(try await sandbox.succeed(on: "B", ["log"]).contains("the overwrite of the remote did not finish"))
        try await sandbox.sync("B")
        try await sandbox.sync("A")
        #expect(try await sandbox.ideas(on: "B").map(\.title) == ["Y renamed on A after B's delete", "X renamed on A"])
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))

        try await sandbox.succeed(on: "B", ["rm", x])
        try await sandbox.succeed(on: "B", ["remote", "fault", "script", "networkFailure", "--operation", "modify"])
        #expect(try await sandbox.run(on: "B", ["sync", "--overwrite-remote", "--yes"]).status != 0)
        let output = try await sandbox.succeed(on: "B", ["sync", "--overwrite-remote", "--yes"])
        #expect(output.hasPrefix("Overwrote the remote with this profile's ideas: "), "\(output)")
        try await sandbox.sync("A")
        #expect(try await sandbox.ideas(on: "A").map(\.idString) == [y])
    }

    @Test func samplesSeededOnTwoDevicesSyncToSevenNotFourteen() async throws {
        let sandbox = try Sandbox(samples: true)
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        try await sandbox.sync("A")
        #expect(try await sandbox.succeed(on: "A", ["list"]) == SampleIdeasTests.englishList)
        #expect(try await sandbox.succeed(on: "B", ["list"]) == SampleIdeasTests.englishList)
        #expect(try await sandbox.succeed(on: "B", ["remote", "status"]).contains("\nrecords: 7\n"))
        #expect(try await sandbox.status("A").pendingCount == 0)
        #expect(try await sandbox.status("B").pendingCount == 0)
    }

    @Test func theReasonIsInTheUsersLanguage() async throws {
        let sandbox = try Sandbox(language: "zh_TW.UTF-8")
        _ = try await sandbox.add("離線時新增", on: "A")
        #expect(try await sandbox.succeed(on: "A", ["remote", "offline", "on"]) == "設定檔 A 已離線\n")
        try await sandbox.expectRejection(on: "A", ["sync"], message: "網路已關閉；變更暫存在這台裝置")
        try await sandbox.succeed(on: "A", ["remote", "offline", "off"])
        #expect(try await sandbox.succeed(on: "A", ["sync"]) == "已同步：送出 1 筆、收到 0 筆、衝突 0 筆\n")
    }
}
