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
