import Foundation
import ProcessTestSupport
import Testing

/// `ideabox rm ID`.
@Suite(.takesTurns) struct RemoveCommandTests {
    @Test func removesTheIdeaAndPrintsItsLine() async throws {
        let sandbox = try Sandbox()
        let keep = try await sandbox.add("keep")
        let id = try await sandbox.add("Remove 靈感", done: true)
        #expect(try await sandbox.succeed(["rm", String(id.prefix(8))]) == "\(id.prefix(8))  [x] Remove 靈感\n")
        #expect(try await sandbox.succeed(["list"]) == "\(keep.prefix(8))  [ ] keep\n")
        #expect(try await sandbox.succeed(["list", "--completed"]) == "")
        try await sandbox.expectRejection(["show", id], message: "No idea has the id \"\(id)\".")
        try await sandbox.expectRejection(["rm", id], message: "No idea has the id \"\(id)\".")
    }

    @Test func aPrefixThatWasAmbiguousBecomesUniqueAfterRemoving() async throws {
        let sandbox = try Sandbox(samples: true)
        for index in 1...6 {
            try await sandbox.succeed(["rm", "1dea000\(index)"])
        }
        #expect(try await sandbox.succeed(["show", "1dea", "--json"]).contains("\"title\" : \"Plan a weekly review of ideas\""))
        #expect(try await sandbox.succeed(["list"]) == "1dea0007  [ ] Plan a weekly review of ideas\n")
    }

    @Test func aRemovedIdeaDoesNotComeBackFromAnOlderExport() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Gone for good")
        let exportFile = try await sandbox.file("before-rm.json", try sandbox.succeed(["export"]))
        try await sandbox.succeed(["rm", id])
        #expect(try await sandbox.succeed(["import", exportFile]) == "Imported 0 new, 0 updated, 1 unchanged.\n")
        #expect(try await sandbox.succeed(["list"]) == "")
    }
}
