import Foundation
import ProcessTestSupport
import Testing

/// `ideabox search QUERY [--json] [--limit N]`.
@Suite(.takesTurns) struct SearchCommandTests {
    @Test(arguments: ["rust", "RUST", "RuSt", "  rust  "])
    func ignoresCaseAndMatchesTitleOrDescription(query: String) async throws {
        let sandbox = try Sandbox()
        let title = try await sandbox.add("Learn Rust")
        _ = try await sandbox.add("Bake bread", description: "nothing here")
        let description = try await sandbox.add("Sourdough", description: "A RUSTIC loaf\nwith seeds")
        #expect(try await sandbox.succeed(["search", query]) == """
            \(description.prefix(8))  [ ] Sourdough
            \(title.prefix(8))  [ ] Learn Rust

            """)
    }

    @Test func oneAndTwoChineseCharacters() async throws {
        let sandbox = try Sandbox()
        let notes = try await sandbox.add("靈感筆記")
        let code = try await sandbox.add("寫程式", description: "記下一個新的靈感")
        let thanks = try await sandbox.add("感謝卡", done: true)

        #expect(try await sandbox.succeed(["search", "靈"]) == "\(code.prefix(8))  [ ] 寫程式\n\(notes.prefix(8))  [ ] 靈感筆記\n")
        #expect(try await sandbox.succeed(["search", "靈感"]) == "\(code.prefix(8))  [ ] 寫程式\n\(notes.prefix(8))  [ ] 靈感筆記\n")
        #expect(try await sandbox.succeed(["search", "感"]) == """
            \(thanks.prefix(8))  [x] 感謝卡
            \(code.prefix(8))  [ ] 寫程式
            \(notes.prefix(8))  [ ] 靈感筆記

            """)
        #expect(try await sandbox.succeed(["search", "感謝"]) == "\(thanks.prefix(8))  [x] 感謝卡\n")
        #expect(try await sandbox.succeed(["search", "新的靈感"]) == "\(code.prefix(8))  [ ] 寫程式\n")
        #expect(try await sandbox.searchFindsNothing("筆記本"))
        #expect(try await sandbox.searchFindsNothing("感靈"))
    }

    @Test func oneAndTwoLatinCharactersAndEmoji() async throws {
        let sandbox = try Sandbox()
        let thumbs = try await sandbox.add("Nice 👍🏽 work")
        let go = try await sandbox.add("Go", description: "x")
        #expect(try await sandbox.succeed(["search", "👍🏽"]) == "\(thumbs.prefix(8))  [ ] Nice 👍🏽 work\n")
        #expect(try await sandbox.succeed(["search", "gO"]) == "\(go.prefix(8))  [ ] Go\n")
        #expect(try await sandbox.succeed(["search", "X"]) == "\(go.prefix(8))  [ ] Go\n")
        #expect(try await sandbox.succeed(["search", "o"]) == "\(go.prefix(8))  [ ] Go\n\(thumbs.prefix(8))  [ ] Nice 👍🏽 work\n")
    }

    @Test func noHitPrintsNothingSaysSoOnStandardErrorAndSucceeds() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("Something")
        let result = try await sandbox.run(["search", "nothing like it"])
        #expect(result.status == 0)
        #expect(result.stdout == "")
        #expect(result.stderr == "No idea matches \"nothing like it\".\n")
        let chinese = try await sandbox.run(["search", "沒有", "--limit", "3"], environment: ["LANG": "zh_TW.UTF-8"])
        #expect(chinese.status == 0 && chinese.stdout == "")
        #expect(chinese.stderr == "沒有符合「沒有」的靈感\n")
        #expect(try await sandbox.succeed(["search", "nothing like it", "--json"]) == "[]\n")
    }

    @Test(arguments: ["", "   ", "\n"])
    func emptyQueryIsRefused(query: String) async throws {
        let sandbox = try Sandbox()
        try await sandbox.expectRejection(["search", query], message: "The search query is empty.")
        try await sandbox.expectRejection(["search", query], message: "搜尋字串不能為空", environment: ["LANG": "zh_TW.UTF-8"])
    }

    @Test func jsonPrintsEveryFieldOfEachHit() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.idea(try sandbox.add("靈感 one", description: "multi\nline"))
        _ = try await sandbox.add("other")
        let second = try await sandbox.idea(try sandbox.add("Two 靈感", done: true))
        #expect(try await sandbox.succeed(["search", "靈感", "--json"]) == Expected.jsonArray([second, first]))
        #expect(try await sandbox.succeed(["search", "靈感", "--json", "--limit", "1"]) == Expected.jsonArray([second]))
    }

    @Test func followsEditsAndDeletes() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("Old name", description: "靈感")
        try await sandbox.succeed(["edit", id, "--title", "New name", "-d", "想法"])
        #expect(try await sandbox.searchFindsNothing("old"))
        #expect(try await sandbox.searchFindsNothing("靈"))
        #expect(try await sandbox.searchFindsNothing("靈感"))
        #expect(try await sandbox.succeed(["search", "new"]) == "\(id.prefix(8))  [ ] New name\n")
        #expect(try await sandbox.succeed(["search", "想"]) == "\(id.prefix(8))  [ ] New name\n")
        try await sandbox.succeed(["rm", id])
        #expect(try await sandbox.searchFindsNothing("new"))
        #expect(try await sandbox.searchFindsNothing("想"))
        #expect(try await sandbox.searchFindsNothing("想法"))
    }

    @Test(arguments: ["\"", "d\"", "\"quoted\"", "AND", "(x)", "*", "x)", "near", "é", "ÉCOLE", "e\u{301}cole"])
    func searchSyntaxInTheQueryIsPlainText(query: String) async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.add("école \"quoted\" AND (x) * near")
        _ = try await sandbox.add("unrelated")
        #expect(try await sandbox.succeed(["search", query]) == "\(id.prefix(8))  [ ] école \"quoted\" AND (x) * near\n")
    }

    @Test(arguments: ["\"\"", "NOT", "OR", "-", "^"])
    func searchSyntaxThatIsNotInTheTextFindsNothing(query: String) async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("école \"quoted\" AND (x) * near")
        #expect(try await sandbox.searchFindsNothing(query))
    }
}

extension Sandbox {
    /// Whether `search query` found nothing, and said so: nothing on stdout, the note on
    /// stderr, exit status 0.
    fileprivate func searchFindsNothing(_ query: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Bool {
        let result = try await run(["search", query])
        let found = result.status == 0 && result.stdout == "" && result.stderr == "No idea matches \"\(query)\".\n"
        #expect(found, "search \(query.debugDescription):\n\(result)", sourceLocation: sourceLocation)
        return found
    }
}
