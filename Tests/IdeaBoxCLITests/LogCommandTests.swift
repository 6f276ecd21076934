import Foundation
import IdeaModel
import ProcessTestSupport
import Testing

/// `ideabox log [--conflicts]`: what sync did, and how conflicts were settled.
@Suite(.takesTurns) struct LogCommandTests {
    /// A ("laptop") and B ("desk") both edit one idea; B's edit is a minute newer, so it
    /// wins everywhere.
    private static func conflict() async throws -> (sandbox: Sandbox, id: String) {
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["device", "name", "laptop"])
        try await sandbox.succeed(on: "B", ["device", "name", "desk"])
        let id = try await sandbox.add("Original", on: "A")
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        try await sandbox.succeed(on: "A", ["edit", id, "--title", "Edited on A"])
        try await sandbox.succeed(on: "B", ["edit", id, "--title", "Edited on B"], environment: ["IDEABOX_CLOCK_OFFSET_MS": "60000"])
        try await sandbox.sync("A")
        #expect(try await sandbox.sync("B") == SyncOutcome(
            sent: 1, received: 0, conflicts: 1, pending: 0, syncedAt: sandbox.status("B").lastSyncAt))
        #expect(try await sandbox.sync("A").received == 1)
        return (sandbox, id)
    }

    @Test func linesAreTranslatedUnderAChineseLocaleAndStoredInEnglish() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("Original", on: "A")
        try await sandbox.sync("A")
        let english = try await sandbox.succeed(on: "A", ["log"])
        #expect(english.contains("  upload    sent 1 change(s)\n"), "\(english)")
        let chinese = try await sandbox.succeed(on: "A", ["log"], environment: ["LANG": "zh_TW.UTF-8"])
        #expect(chinese.contains("  上傳  已送出 1 筆變更\n"), "\(chinese)")
        #expect(!chinese.contains("change(s)") && !chinese.contains("upload"))
        #expect(try await sandbox.succeed(on: "A", ["log", "--json"], environment: ["LANG": "zh_TW.UTF-8"]).contains("sent 1 change(s)"))
    }

    /// A failure is kept with both languages' words: a server that is not there is named
    /// in Chinese, host and cause, with no English left in the line.
    @Test func aFailureIsLoggedInBothLanguages() async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["account", "sign-in", "alice", "--server", "http://127.0.0.1:1", "--token", "ibx_x", "--no-check"])
        let failed = try await sandbox.run(on: "A", ["sync"], environment: ["LANG": "zh_TW.UTF-8"])
        #expect(failed.status != 0 && failed.stderr == "ideabox: 遠端發生錯誤：127.0.0.1:1 沒有服務在聽（連線被拒）\n", "\(failed)")
        let chinese = try await sandbox.succeed(on: "A", ["log"], environment: ["LANG": "zh_TW.UTF-8"])
        #expect(chinese.hasSuffix("  錯誤  遠端發生錯誤：127.0.0.1:1 沒有服務在聽（連線被拒）\n"), "\(chinese)")
        let english = try await sandbox.succeed(on: "A", ["log"])
        #expect(english.hasSuffix("  error     The remote failed: nothing listens at 127.0.0.1:1 (connection refused).\n"), "\(english)")
    }

    @Test func bothEditTheNewestWinsSilentlyAndTheConflictIsLogged() async throws {
        let (sandbox, id) = try await Self.conflict()
        #expect(try await sandbox.idea(id, on: "A").title == "Edited on B")
        #expect(try await sandbox.syncedState(of: "B") == sandbox.syncedState(of: "A"))

        let output = try await sandbox.succeed(on: "B", ["log", "--conflicts", "--json"])
        let conflicts = try JSONDecoder().decode([ConflictOutput].self, from: Data(output.utf8))
        try #require(conflicts.count == 1)
        let conflict = conflicts[0]
        #expect(conflict.ideaId == id && conflict.resolution == "Local")
        let local = try #require(conflict.local)
        let remote = try #require(conflict.remote)
        #expect(local.title == "Edited on B" && remote.title == "Edited on A")
        #expect(local.updatedAt > remote.updatedAt)
        #expect(output.contains("\"ideaId\" : \"\(id)\""), "ids in lower case like every idea's")

        #expect(try await sandbox.succeed(on: "B", ["log", "--conflicts"]) == """
            \(conflict.occurredAt)  \(id)  kept: "Edited on B" on this device \(local.updatedAt.iso8601) (the later edit)  \
            lost: "Edited on A" on laptop \(remote.updatedAt.iso8601)  fields: title from this device

            """)
        #expect(try await sandbox.succeed(on: "B", ["log", "--conflicts"], environment: ["LANG": "zh_TW.UTF-8"]) == """
            \(conflict.occurredAt)  \(id)  保留："Edited on B" 在這台裝置上 \(local.updatedAt.iso8601)（較晚的編輯）  \
            落敗："Edited on A" 在 laptop 上 \(remote.updatedAt.iso8601)  欄位：標題取自這台裝置

            """)
        #expect(output.contains("\"fields\" : {\n      \"title\" : \"Local\"\n    }"), "\(output)")
        // A had sent its edit when B's newer one, made without seeing it, came: A's log
        // names the conflict from the losing side.
        let conflictsOnA = try await sandbox.succeed(on: "A", ["log", "--conflicts"])
        #expect(conflictsOnA.split(separator: "\n").count == 1, "\(conflictsOnA)")
        #expect(conflictsOnA.contains("  kept: \"Edited on B\" on desk ") && conflictsOnA.contains("lost: \"Edited on A\" on this device "))
        #expect(try await sandbox.succeed(on: "A", ["log"]).contains("conflict  “Edited on A” (\(id.prefix(8))): kept desk's title (the later edit)"))
        try await sandbox.sync("C")
        #expect(try await sandbox.succeed(on: "C", ["log", "--conflicts", "--json"]) == "[]\n")
    }

    @Test func theSyncLogNewestFirst() async throws {
        let (sandbox, id) = try await Self.conflict()
        let entries = try await JSONDecoder().decode(
            [SyncLogOutput].self, from: Data(sandbox.succeed(on: "B", ["log", "--json"]).utf8))
        #expect(entries.map(\.kind) == ["upload", "conflict", "download"])
        let conflictLine = "“Edited on B” (\(id.prefix(8))): kept this device's title (the later edit)"
        #expect(entries.map(\.message) == ["sent 1 change(s)", conflictLine, "applied 1 remote change(s)"])
        #expect(entries.map(\.occurredAt) == entries.map(\.occurredAt).sorted(by: >))
        #expect(try await sandbox.succeed(on: "B", ["log"]) == """
            \(entries[0].occurredAt)  upload    sent 1 change(s)
            \(entries[1].occurredAt)  conflict  \(conflictLine)
            \(entries[2].occurredAt)  download  applied 1 remote change(s)

            """)
        #expect(try await sandbox.succeed(on: "B", ["log"], environment: ["LANG": "zh_TW.UTF-8"]).contains(
            "  衝突  「Edited on B」（\(id.prefix(8))）的衝突：保留這台裝置的標題（較晚的編輯）\n"))
        #expect(try await sandbox.succeed(on: "B", ["log", "--limit", "1"]) == "\(entries[0].occurredAt)  upload    sent 1 change(s)\n")
    }

    @Test func aFailedSyncIsLogged() async throws {
        let sandbox = try Sandbox()
        try await sandbox.launch()
        #expect(try await sandbox.succeed(["log"]) == "")
        #expect(try await sandbox.succeed(["log", "--json"]) == "[]\n")
        try await sandbox.succeed(["account", "sign-out"])
        _ = try await sandbox.run(["sync"])
        let entries = try await JSONDecoder().decode([SyncLogOutput].self, from: Data(sandbox.succeed(["log", "--json"]).utf8))
        #expect(entries.map(\.kind) == ["error"] && entries.map(\.message) == [SyncMessage.notSignedIn])
        #expect(try await sandbox.succeed(["log"]) == "\(entries[0].occurredAt)  error     \(SyncMessage.notSignedIn)\n")
    }

    @Test func theLimitIsAtLeastOne() async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(["log", "--limit", "0"], message: "--limit must be at least 1. (see `ideabox help`)")
        try await sandbox.expectRejection(
            ["log", "--conflicts", "--limit", "0"], message: "--limit must be at least 1. (see `ideabox help`)")
    }
}

extension Sandbox {
    /// `ideabox show ID --json --profile profile`, decoded.
    fileprivate func idea(_ id: String, on profile: String) async throws -> Idea {
        try await JSONDecoder().decode(Idea.self, from: Data(succeed(on: profile, ["show", id, "--json"]).utf8))
    }
}
