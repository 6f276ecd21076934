import Foundation
import IdeaBoxFoundation
import IdeaModel
import ProcessTestSupport
import Testing

/// `IDEABOX_CLOCK_OFFSET_MS`: a device whose clock is wrong.
@Suite(.takesTurns) struct ClockOffsetTests {
    @Test(arguments: [86_400_000, -86_400_000, 3_153_600_000_000 as Int64])
    func offsetShiftsCreatedAt(offset: Int64) async throws {
        let sandbox = try Sandbox()
        let before = Timestamp(Date()).adding(milliseconds: offset)
        let output = try await sandbox.succeed(["add", "skewed", "--json"], environment: ["IDEABOX_CLOCK_OFFSET_MS": String(offset)])
        let after = Timestamp(Date()).adding(milliseconds: offset)
        let idea = try JSONDecoder().decode(Idea.self, from: Data(output.utf8))
        #expect(before <= idea.createdAt && idea.createdAt <= after, "createdAt \(idea.createdAt) not in \(before)...\(after)")
        #expect(idea.updatedAt == idea.createdAt)
    }

    @Test func anEditNeverGoesBackInTimeUnderASlowerClock() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.succeed(["add", "future"], environment: ["IDEABOX_CLOCK_OFFSET_MS": "86400000"])
            .trimmingCharacters(in: .newlines)
        let created = try await sandbox.idea(id).createdAt
        try await sandbox.succeed(["edit", id, "--title", "edited now"])
        let edited = try await sandbox.idea(id)
        #expect(edited.updatedAt > created)
        let newer = try await sandbox.idea(try sandbox.add("after"))
        #expect(newer.createdAt > edited.updatedAt)
        #expect(try await sandbox.succeed(["list"]) == "\(newer.idString.prefix(8))  [ ] after\n\(id.prefix(8))  [ ] edited now\n")
    }

    /// A day fast once: its edit reaches the other device ordered no later than the remote
    /// received it; afterwards neither device stamps in the future, and of two edits made
    /// apart the later one wins.
    @Test func aClockADayFastPoisonsNoDevice() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("X", on: "A")
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        let dayAhead = ["IDEABOX_CLOCK_OFFSET_MS": "86400000"]
        try await sandbox.succeed(on: "A", ["edit", id, "--title", "From a fast clock"], environment: dayAhead)
        try await sandbox.succeed(on: "A", ["sync"], environment: dayAhead)
        try await sandbox.sync("B")
        try await sandbox.sync("A")
        for profile in ["A", "B"] {
            let idea = try await shown(id, on: profile, sandbox)
            #expect(idea.title == "From a fast clock")
            #expect(idea.updatedAt <= Timestamp(Date()), "\(profile) shows a time in the future: \(idea.updatedAt)")
        }
        #expect(try await sandbox.succeed(on: "A", ["status"], environment: dayAhead).contains("\nclock: this machine's is 1 d ahead of the remote's;"))
        #expect(try await sandbox.succeed(on: "A", ["status"]).contains("clock:") == false, "the clock was set right: the estimate went back")

        // Apart and offline: B edits, then A three seconds later; the later edit wins.
        try await sandbox.succeed(on: "B", ["edit", id, "--title", "B, earlier"])
        let bEdit = try await shown(id, on: "B", sandbox)
        #expect(bEdit.updatedAt <= Timestamp(Date()))
        try await sandbox.succeed(on: "A", ["edit", id, "--title", "A, three seconds later"], environment: ["IDEABOX_CLOCK_OFFSET_MS": "3000"])
        try await sandbox.sync("B")
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        #expect(try await shown(id, on: "B", sandbox).title == "A, three seconds later")
        #expect(try await sandbox.syncedState(of: "A") == sandbox.syncedState(of: "B"))
    }

    /// Stamps a fast clock left before this device knew better (offline, never told) are
    /// ordered where the remote received them, on both devices, and lose no later edit.
    @Test func futureStampsLeftBehindAreOrderedWhereTheyArrived() async throws {
        let sandbox = try Sandbox()
        let dayAhead = ["IDEABOX_CLOCK_OFFSET_MS": "86400000"]
        let id = try await sandbox.succeed(on: "A", ["add", "Written a day ahead"], environment: dayAhead).trimmingCharacters(in: .newlines)
        #expect(try await shown(id, on: "A", sandbox).createdAt > Timestamp(Date()).adding(milliseconds: 3_600_000))
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        for profile in ["A", "B"] {
            let idea = try await shown(id, on: profile, sandbox)
            #expect(idea.createdAt <= Timestamp(Date()) && idea.updatedAt <= Timestamp(Date()), "\(profile): \(idea)")
        }
        try await sandbox.succeed(on: "B", ["edit", id, "--title", "Edited on B after"])
        try await sandbox.sync("B")
        try await sandbox.sync("A")
        #expect(try await shown(id, on: "A", sandbox).title == "Edited on B after")
    }

    private func shown(_ id: String, on profile: String, _ sandbox: Sandbox) async throws -> Idea {
        try await JSONDecoder().decode(Idea.self, from: Data(sandbox.succeed(on: profile, ["show", id, "--json"]).utf8))
    }

    @Test(arguments: ["abc", "1.5", "10ms", " 5", "99999999999999999999"])
    func aNonNumberIsRefused(value: String) async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(
            ["add", "never written"],
            message: "IDEABOX_CLOCK_OFFSET_MS must be a whole number of milliseconds, not \"\(value)\".",
            environment: ["IDEABOX_CLOCK_OFFSET_MS": value])
        try await sandbox.expectRejection(
            ["list"], message: "IDEABOX_CLOCK_OFFSET_MS 必須是整數毫秒，而不是「\(value)」",
            environment: ["IDEABOX_CLOCK_OFFSET_MS": value, "LANG": "zh_TW.UTF-8"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path))
    }

    @Test func emptyMeansNoOffset() async throws {
        let sandbox = try Sandbox()
        let before = Timestamp(Date())
        let output = try await sandbox.succeed(["add", "now", "--json"], environment: ["IDEABOX_CLOCK_OFFSET_MS": ""])
        let idea = try JSONDecoder().decode(Idea.self, from: Data(output.utf8))
        #expect(before <= idea.createdAt && idea.createdAt <= Timestamp(Date()))
    }
}
