import Foundation
import IdeaBoxFoundation
import IdeaModel
import Testing

/// `IDEABOX_CLOCK_OFFSET_MS`: a device whose clock is wrong.
@Suite struct ClockOffsetTests {
    @Test(arguments: [86_400_000, -86_400_000, 3_153_600_000_000 as Int64])
    func offsetShiftsCreatedAt(offset: Int64) throws {
        let sandbox = try Sandbox()
        let before = Timestamp(Date()).adding(milliseconds: offset)
        let output = try sandbox.succeed(["add", "skewed", "--json"], environment: ["IDEABOX_CLOCK_OFFSET_MS": String(offset)])
        let after = Timestamp(Date()).adding(milliseconds: offset)
        let idea = try JSONDecoder().decode(Idea.self, from: Data(output.utf8))
        #expect(before <= idea.createdAt && idea.createdAt <= after, "createdAt \(idea.createdAt) not in \(before)...\(after)")
        #expect(idea.updatedAt == idea.createdAt)
    }

    @Test func anEditNeverGoesBackInTimeUnderASlowerClock() throws {
        let sandbox = try Sandbox()
        let id = try sandbox.succeed(["add", "future"], environment: ["IDEABOX_CLOCK_OFFSET_MS": "86400000"])
            .trimmingCharacters(in: .newlines)
        let created = try sandbox.idea(id).createdAt
        try sandbox.succeed(["edit", id, "--title", "edited now"])
        let edited = try sandbox.idea(id)
        #expect(edited.updatedAt > created)
        let newer = try sandbox.idea(try sandbox.add("after"))
        #expect(newer.createdAt > edited.updatedAt)
        #expect(try sandbox.succeed(["list"]) == "\(newer.idString.prefix(8))  [ ] after\n\(id.prefix(8))  [ ] edited now\n")
    }

    /// A day fast once: its edit reaches the other device ordered no later than the remote
    /// received it; afterwards neither device stamps in the future, and of two edits made
    /// apart the later one wins.
    @Test func aClockADayFastPoisonsNoDevice() throws {
        let sandbox = try Sandbox()
        let id = try sandbox.add("X", on: "A")
        try sandbox.sync("A")
        try sandbox.sync("B")
        let dayAhead = ["IDEABOX_CLOCK_OFFSET_MS": "86400000"]
        try sandbox.succeed(on: "A", ["edit", id, "--title", "From a fast clock"], environment: dayAhead)
        try sandbox.succeed(on: "A", ["sync"], environment: dayAhead)
        try sandbox.sync("B")
        try sandbox.sync("A")
        for profile in ["A", "B"] {
            let idea = try shown(id, on: profile, sandbox)
            #expect(idea.title == "From a fast clock")
            #expect(idea.updatedAt <= Timestamp(Date()), "\(profile) shows a time in the future: \(idea.updatedAt)")
        }
        #expect(try sandbox.succeed(on: "A", ["status"], environment: dayAhead).contains("\nclock: this machine's is 1 d ahead of the remote's;"))
        #expect(try sandbox.succeed(on: "A", ["status"]).contains("clock:") == false, "the clock was set right: the estimate went back")

        // Apart and offline: B edits, then A three seconds later; the later edit wins.
        try sandbox.succeed(on: "B", ["edit", id, "--title", "B, earlier"])
        let bEdit = try shown(id, on: "B", sandbox)
        #expect(bEdit.updatedAt <= Timestamp(Date()))
        try sandbox.succeed(on: "A", ["edit", id, "--title", "A, three seconds later"], environment: ["IDEABOX_CLOCK_OFFSET_MS": "3000"])
        try sandbox.sync("B")
        try sandbox.sync("A")
        try sandbox.sync("B")
        #expect(try shown(id, on: "B", sandbox).title == "A, three seconds later")
        #expect(try sandbox.syncedState(of: "A") == sandbox.syncedState(of: "B"))
    }

    /// Stamps a fast clock left before this device knew better (offline, never told) are
    /// ordered where the remote received them, on both devices, and lose no later edit.
    @Test func futureStampsLeftBehindAreOrderedWhereTheyArrived() throws {
        let sandbox = try Sandbox()
        let dayAhead = ["IDEABOX_CLOCK_OFFSET_MS": "86400000"]
        let id = try sandbox.succeed(on: "A", ["add", "Written a day ahead"], environment: dayAhead).trimmingCharacters(in: .newlines)
        #expect(try shown(id, on: "A", sandbox).createdAt > Timestamp(Date()).adding(milliseconds: 3_600_000))
        try sandbox.sync("A")
        try sandbox.sync("B")
        for profile in ["A", "B"] {
            let idea = try shown(id, on: profile, sandbox)
            #expect(idea.createdAt <= Timestamp(Date()) && idea.updatedAt <= Timestamp(Date()), "\(profile): \(idea)")
        }
        try sandbox.succeed(on: "B", ["edit", id, "--title", "Edited on B after"])
        try sandbox.sync("B")
        try sandbox.sync("A")
        #expect(try shown(id, on: "A", sandbox).title == "Edited on B after")
    }

    private func shown(_ id: String, on profile: String, _ sandbox: Sandbox) throws -> Idea {
        try JSONDecoder().decode(Idea.self, from: Data(sandbox.succeed(on: profile, ["show", id, "--json"]).utf8))
    }

    @Test(arguments: ["abc", "1.5", "10ms", " 5", "99999999999999999999"])
    func aNonNumberIsRefused(value: String) throws {
        let sandbox = try Sandbox()
        try sandbox.expectRejection(
            ["add", "never written"],
            message: "IDEABOX_CLOCK_OFFSET_MS must be a whole number of milliseconds, not \"\(value)\".",
            environment: ["IDEABOX_CLOCK_OFFSET_MS": value])
        try sandbox.expectRejection(
            ["list"], message: "IDEABOX_CLOCK_OFFSET_MS 必須是整數毫秒，而不是「\(value)」",
            environment: ["IDEABOX_CLOCK_OFFSET_MS": value, "LANG": "zh_TW.UTF-8"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path))
    }

    @Test func emptyMeansNoOffset() throws {
        let sandbox = try Sandbox()
        let before = Timestamp(Date())
        let output = try sandbox.succeed(["add", "now", "--json"], environment: ["IDEABOX_CLOCK_OFFSET_MS": ""])
        let idea = try JSONDecoder().decode(Idea.self, from: Data(output.utf8))
        #expect(before <= idea.createdAt && idea.createdAt <= Timestamp(Date()))
    }
}
