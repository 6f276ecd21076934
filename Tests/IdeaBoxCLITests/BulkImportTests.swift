import Foundation
import IdeaBoxFoundation
import IdeaModel
import ProcessTestSupport
import Testing

/// `ideabox import` of a file big enough to be a bulk load into a new profile, through the real
/// binary: its search indexes are built on threads and temporary databases of their own and
/// copied in (`SearchIndexBuild`). Every kind of query finds exactly the ideas that hold it,
/// `repair` finds the database whole, and later writes keep the indexes right.
@Suite(.takesTurns) struct BulkImportTests {
    /// More than `IdeaRepository.bulkImportSize`; every third idea holds `靈感 … workshop`.
    private static let ideas = (0..<1_500).map { (number: Int) -> Idea in
        let title = number % 3 == 0 ? "靈感 \(number) workshop" : "idea \(number)"
        let description = number % 5 == 0 ? "café ☕️" : ""
        let createdAt = Timestamp(milliseconds: 1_790_000_000_000 + Int64(number) * 1000)
        let id = UUID(uuidString: String(format: "abc00000-0000-4000-8000-%012x", number))!
        return Idea(id: id, title: title, description: description, createdAt: createdAt, deviceId: "elsewhere")
    }

    /// The id of the idea at `index`, whole: the ideas share their first eight digits.
    private static func id(_ index: Int) -> String {
        ideas[index].id.uuidString.lowercased()
    }

    /// How many ideas `search query --all` prints.
    private static func hits(_ query: String, _ sandbox: Sandbox) async throws -> Int {
        try await sandbox.succeed(["search", query, "--all"]).split(separator: "\n").count
    }

    @Test func aBulkImportFindsWhatItHoldsAndTakesLaterWrites() async throws {
        let sandbox = try Sandbox()
        let export = try JSONEncoder().encode(Self.ideas)
        #expect(try await sandbox.succeed(["import", "-"], input: export) == "Imported 1500 new, 0 updated, 0 unchanged.\n")
        // One and two characters (the short-gram index), three, and more (the trigram index).
        for query in ["靈", "靈感", "shop", "workshop", "WORKSHOP"] {
            #expect(try await Self.hits(query, sandbox) == 500, "\(query)")
        }
        #expect(try await Self.hits("café", sandbox) == 300)
        #expect(try await Self.hits("☕️", sandbox) == 300)
        #expect(try await sandbox.succeed(["search", "idea 1499"]) == "abc00000  [ ] idea 1499\n")
        #expect(try await sandbox.succeed(["repair"]).contains("is healthy"))

        let added = try await sandbox.add("靈感 after the import")
        try await sandbox.succeed(["rm", Self.id(0)])
        try await sandbox.succeed(["edit", Self.id(3), "--title", "coffee"])
        #expect(try await Self.hits("靈感", sandbox) == 499)
        #expect(try await Self.hits("coffee", sandbox) == 1)
        #expect(try await sandbox.succeed(["search", "after the"]).hasPrefix(added.prefix(8)))
        #expect(try await sandbox.succeed(["repair"]).contains("is healthy"))
    }
}
