import Foundation
import Testing

/// `ideabox rm ID`.
@Suite struct RemoveCommandTests {
    @Test func removesTheIdeaAndPrintsItsLine() throws {
        let sandbox = try Sandbox()
        let keep = try sandbox.add("keep")
        let id = try sandbox.add("Remove 靈感", done: true)
        #expect(try sandbox.succeed(["rm", String(id.prefix(8))]) == "\(id.prefix(8))  [x] Remove 靈感\n")
        #expect(try sandbox.succeed(["list"]) == "\(keep.prefix(8))  [ ] keep\n")
        #expect(try sandbox.succeed(["list", "--completed"]) == "")
        try sandbox.expectRejection(["show", id], message: "No idea has the id \"\(id)\".")
        try sandbox.expectRejection(["rm", id], message: "No idea has the id \"\(id)\".")
    }

    @Test func aPrefixThatWasAmbiguousBecomesUniqueAfterRemoving() throws {
        let sandbox = try Sandbox(samples: true)
        for index in 1...6 {
            try sandbox.succeed(["rm", "1dea000\(index)"])
        }
        #expect(try sandbox.succeed(["show", "1dea", "--json"]).contains("\"title\" : \"Plan a weekly review of ideas\""))
        #expect(try sandbox.succeed(["list"]) == "1dea0007  [ ] Plan a weekly review of ideas\n")
    }

    @Test func aRemovedIdeaDoesNotComeBackFromAnOlderExport() throws {
        let sandbox = try Sandbox()
        let id = try sandbox.add("Gone for good")
        let exportFile = try sandbox.file("before-rm.json", try sandbox.succeed(["export"]))
        try sandbox.succeed(["rm", id])
        #expect(try sandbox.succeed(["import", exportFile]) == "Imported 0 new, 0 updated, 1 unchanged.\n")
        #expect(try sandbox.succeed(["list"]) == "")
    }
}
