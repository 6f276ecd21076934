import Foundation
import IdeaBoxFoundation
import IdeaModel
@testable import IdeaStore
import Testing

/// The lists of `IdeaFilter`: All Ideas, Completed and Search, their counts and pages.
@Suite struct IdeaQueriesTests {
    // MARK: All Ideas and Completed

    @Test func allIdeasAreNewestFirstByCreation() throws {
        let store = try StoreFixture()
        var added: [Idea] = []
        for index in 0..<5 {
            added.append(try store.repository.addIdea(title: "Idea \(index)", isCompleted: index.isMultiple(of: 2)))
            store.clock.advance(by: 1000)
        }
        // Editing an old idea moves its updatedAt, not its place in the list.
        _ = try store.repository.editIdea(id: added[0].id, IdeaChanges(title: "Idea 0, edited"))
        let all = try store.repository.ideas(.all, limit: 100)
        #expect(all.map(\.id) == added.reversed().map(\.id))
        #expect(all.last?.title == "Idea 0, edited")
        let completed = try store.repository.ideas(.completed, limit: 100)
        #expect(completed.map(\.id) == [added[4].id, added[2].id, added[0].id])
        #expect(completed.allSatisfy { $0.isCompleted })
    }

    @Test func aNewIdeaAppearsAtTheTop() throws {
        let store = try StoreFixture(seedsSamples: true)
        let samples = try store.repository.ideas(.all, limit: 100)
        #expect(samples.map(\.id) == SampleIdeas.ideas(in: .english).reversed().map(\.id))
        let new = try store.repository.addIdea(title: "Brand new")
        #expect(try store.repository.ideas(.all, limit: 1) == [new])
    }

    @Test func importedIdeasTakeTheirPlaceByCreationTime() throws {
        let store = try StoreFixture()
        let now = try store.repository.addIdea(title: "Now")
        let old = Idea(
            id: uuid("abc00000-0000-4000-8000-000000000001"), title: "Old but recently edited",
            createdAt: StoreFixture.start.adding(milliseconds: -86_400_000),
            updatedAt: StoreFixture.start.adding(milliseconds: 86_400_000), deviceId: "other")
        _ = try store.repository.importIdeas([old])
        #expect(try store.repository.ideas(.all, limit: 10).map(\.id) == [now.id, old.id])
    }

    @Test func ideasMadeInTheSameMillisecondListLastAddedFirst() throws {
        let store = try StoreFixture()
        let same = StoreFixture.start
        let ideas = (1...3).map { index in
            Idea(id: uuid("abc00000-0000-4000-8000-00000000000\(index)"), title: "Same \(index)", createdAt: same, deviceId: "d")
        }
        _ = try store.repository.importIdeas(ideas)
        #expect(try store.repository.ideas(.all, limit: 10).map(\.title) == ["Same 3", "Same 2", "Same 1"])
    }

    @Test func counts() throws {
        let store = try StoreFixture()
        #expect(try store.repository.counts() == IdeaCounts(all: 0, completed: 0))
        var ids: [UUID] = []
        for index in 0..<10 {
            ids.append(try store.repository.addIdea(title: "Idea \(index)", isCompleted: index < 3).id)
        }
        #expect(try store.repository.counts() == IdeaCounts(all: 10, completed: 3))
        #expect(try store.repository.count(.all) == 10)
        #expect(try store.repository.count(.completed) == 3)
        _ = try store.repository.toggleCompleted(id: ids[9])
        _ = try store.repository.deleteIdea(id: ids[0])
        #expect(try store.repository.counts() == IdeaCounts(all: 9, completed: 3))
        #expect(try store.repository.count(.search("idea")) == 9)
    }

    @Test("Pages put together are the whole list", arguments: [IdeaFilter.all, .completed, .search("idea"), .search("靈")])
    func paging(filter: IdeaFilter) throws {
        let store = try StoreFixture()
        for index in 0..<23 {
            _ = try store.repository.addIdea(title: "Idea \(index) 靈感", isCompleted: index % 3 == 0)
            store.clock.advance(by: 10)
        }
        let whole = try store.repository.ideas(filter, limit: 1000)
        #expect(whole.count == (filter == .completed ? 8 : 23))
        for pageSize in [1, 5, 7, 23, 50] {
            var pages: [Idea] = []
            var offset = 0
            while true {
                let page = try store.repository.ideas(filter, offset: offset, limit: pageSize)
                #expect(page.count <= pageSize)
                pages += page
                if page.count < pageSize { break }
                offset += pageSize
            }
            #expect(pages == whole, "page size \(pageSize)")
        }
        #expect(try store.repository.ideas(filter, offset: 1000, limit: 10).isEmpty)
        #expect(try store.repository.ideas(filter, offset: 0, limit: 0).isEmpty)
    }

    @Test func forEachIdeaWalksTheListInOrder() throws {
        let store = try StoreFixture()
        for index in 0..<12 {
            _ = try store.repository.addIdea(title: "Idea \(index)")
            store.clock.advance(by: 10)
        }
        let whole = try store.repository.ideas(.all, limit: 100)
        var visited: [Idea] = []
        try store.repository.forEachIdea(.all) { visited.append($0) }
        #expect(visited == whole)
        visited = []
        try store.repository.forEachIdea(.all, limit: 5) { visited.append($0) }
        #expect(visited == Array(whole.prefix(5)))
        visited = []
        try store.repository.forEachIdea(.search("idea 1"), limit: 2) { visited.append($0) }
        #expect(visited.map(\.title) == ["Idea 11", "Idea 10"])
        visited = []
        try store.repository.forEachIdea(.search("  ")) { visited.append($0) }
        #expect(visited.isEmpty)
    }

    @Test("forEachIdeaBytes hands out every idea in the index's order, whether or not the table is in that order")
    func forEachIdeaBytesKeepsTheListOrder() throws {
        let store = try StoreFixture()
        /// Whether `forEachIdeaBytes` may walk the table, and its JSON of every idea against
        /// `forEachIdea`'s (which reads them through the index).
        func check(walksTable: Bool, _ comment: Comment) throws {
            let tableInOrder = try store.database.writer.read { try IdeaRepository.tableIsNewestFirst($0) }
            #expect(tableInOrder == walksTable, comment)
            var ideas: [Idea] = []
            try store.repository.forEachIdea(.all) { ideas.append($0) }
            var bytes: [UInt8] = []
            try store.repository.forEachIdeaBytes(.all) { $0.writeJSON(to: &bytes, indent: "  ") }
            #expect(bytes == ideas.reduce(into: []) { $0 += $1.jsonText(indent: "  ").utf8 }, comment)
        }
        try check(walksTable: true, "no idea")
        for index in 0..<6 {
            _ = try store.repository.addIdea(title: "Idea \(index)")
            store.clock.advance(by: 10)
        }
        try check(walksTable: true, "added in the order they were made")
        try store.database.writer.write { db in
            try db.execute(sql: "UPDATE idea SET createdAt = (SELECT min(createdAt) FROM idea) + 20 WHERE title IN ('Idea 3', 'Idea 4')")
        }
        try check(walksTable: true, "three made at the same millisecond: the row id breaks the tie both ways")
        try store.database.writer.write { db in
            try db.execute(sql: "UPDATE idea SET createdAt = createdAt - 1000 WHERE title = 'Idea 5'")
        }
        try check(walksTable: false, "the newest row made before the rows before it (another device's clock behind)")
        try store.database.writer.write { db in
            try db.execute(sql: "UPDATE idea SET createdAt = createdAt + 5000, updatedAt = updatedAt + 5000 WHERE title = 'Idea 0'")
        }
        try check(walksTable: false, "the oldest row made after all the others")
        var made = try store.repository.ideas(.all, limit: 1)[0]
        made.id = UUID(uuidString: "00000000-0000-4000-8000-0000000000AA")!
        made.title = "Imported, same time"
        var older = made
        older.id = UUID(uuidString: "00000000-0000-4000-8000-0000000000BB")!
        older.title = "Imported, older"
        older.createdAt = Timestamp(milliseconds: made.createdAt.milliseconds - 50_000)
        _ = try store.repository.importIdeas([made, older])
        try check(walksTable: false, "imported ideas made long ago")
    }

    @Test("forEachIdeaBytes hands out the ideas forEachIdea does, byte for byte as JSON, whatever their text")
    func forEachIdeaBytesWritesWhatIdeasWrite() throws {
        let store = try StoreFixture(seedsSamples: true)
        let texts = ["靈感 咖啡", "a \"quoted\" \\ back/slash", "tab\tnew\nline", "", "exactly8", String(repeating: "長", count: 300)]
        for (index, text) in texts.enumerated() {
            let idea = try store.repository.addIdea(title: "Idea \(index) 靈感 \"q\" \\ 咖啡", description: text)
            if index.isMultiple(of: 2) { _ = try store.repository.setCompleted(true, id: idea.id) }
            store.clock.advance(by: 10)
        }
        // An id stored in upper case still comes out as `idString` spells it.
        try store.database.writer.write { db in
            try db.execute(sql: "UPDATE idea SET id = upper(id) WHERE title LIKE 'Idea 1 %'")
        }
        func json(_ ideas: [Idea]) -> [UInt8] { ideas.reduce(into: []) { $0 += $1.jsonText(indent: "  ").utf8 } }
        for (filter, limit) in [(IdeaFilter.all, nil), (.all, 3), (.completed, nil), (.search("咖啡"), nil), (.search("zzz"), nil)] {
            var ideas: [Idea] = []
            try store.repository.forEachIdea(filter, limit: limit) { ideas.append($0) }
            var bytes: [UInt8] = []
            try store.repository.forEachIdeaBytes(filter, limit: limit) { $0.writeJSON(to: &bytes, indent: "  ") }
            #expect(bytes == json(ideas), "\(filter) \(String(describing: limit))")
        }
    }

    // MARK: Search basics

    @Test("Search ignores case", arguments: [
        ("learn", "Learn Swift"), ("LEARN", "learn swift"), ("sWiFt", "Learn SWIFT"), ("S", "swift"), ("sw", "SWIFT"),
        ("ä", "Ärger"), ("Ä", "ärger"), ("är", "ÄRGER"), ("ÄRG", "ärger"), ("über", "ÜBER alles"),
        ("ΣΟΦ", "σοφία"), ("привет", "ПРИВЕТ мир"), ("é", "Cafe\u{301}"), ("cafe\u{301}", "CAFÉ"),
    ])
    func searchIgnoresCase(query: String, title: String) throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: title)
        _ = try store.repository.addIdea(title: "unrelated text")
        #expect(try store.repository.search(query) == [idea])
        #expect(try store.repository.count(.search(query)) == 1)
    }

    @Test func searchFindsSubstringsOfEveryLength() throws {
        let store = try StoreFixture()
        let title = "Attend an iOS workshop"
        let description = "Look for a weekend workshop in Taipei"
        let idea = try store.repository.addIdea(title: title, description: description)
        _ = try store.repository.addIdea(title: "zzz", description: "qqq")
        for text in [title, description] {
            let characters = Array(text)
            for length in 1...characters.count {
                for start in stride(from: 0, through: characters.count - length, by: 3) {
                    let query = String(characters[start..<start + length])
                    guard !query.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                    #expect(try store.repository.search(query) == [idea], "\(query)")
                }
            }
        }
    }

    @Test("Short Chinese queries", arguments: [
        ("靈", ["靈感筆記", "一個靈"]),
        ("靈感", ["靈感筆記"]),
        ("感", ["靈感筆記", "感想"]),
        ("筆記", ["靈感筆記"]),
        ("靈感筆", ["靈感筆記"]),
        ("想", ["感想"]),
        ("感靈", []),
    ])
    func shortChineseQueries(query: String, titles: [String]) throws {
        let store = try StoreFixture()
        for title in ["靈感筆記", "一個靈", "感想", "Other"] {
            _ = try store.repository.addIdea(title: title)
            store.clock.advance(by: 1)
        }
        let found = try store.repository.search(query).map(\.title)
        #expect(Set(found) == Set(titles))
        #expect(try store.repository.count(.search(query)) == titles.count)
    }

    @Test func searchLooksInTheDescriptionToo() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "Title", description: "找一場台北的週末工作坊\nsecond line")
        #expect(try store.repository.search("台") == [idea])
        #expect(try store.repository.search("台北") == [idea])
        #expect(try store.repository.search("週末工作坊") == [idea])
        #expect(try store.repository.search("second") == [idea])
        #expect(try store.repository.search("d l") == [idea])
    }

    @Test("A query never spans the title and the description", arguments: ["ab", "abc", "ab c", "xab", "靈感", "靈感x", "x靈感", "tleDe", "eDes"])
    func queryDoesNotSpanFields(query: String) throws {
        let store = try StoreFixture()
        _ = try store.repository.addIdea(title: "xa", description: "bcx")
        _ = try store.repository.addIdea(title: "x靈", description: "感x")
        _ = try store.repository.addIdea(title: "Title", description: "Description")
        #expect(try store.repository.search(query).isEmpty)
        #expect(try store.repository.count(.search(query)) == 0)
    }

    /// The trigram index holds which ideas have each trigram, not where: an idea with every
    /// trigram of the query, apart or split between its title and description, is not a hit.
    @Test("Every trigram of a query, but not the query, is no hit", arguments: ["abcd", "靈感筆記", "tle d", "abcde"])
    func everyTrigramApartIsNoHit(query: String) throws {
        let store = try StoreFixture()
        _ = try store.repository.addIdea(title: "bcd abc cde", description: "")
        _ = try store.repository.addIdea(title: "abc", description: "bcd cde")
        _ = try store.repository.addIdea(title: "感筆記 靈感筆", description: "")
        _ = try store.repository.addIdea(title: "Title", description: "le d tle")
        #expect(try store.repository.search(query).isEmpty)
        #expect(try store.repository.count(.search(query)) == 0)
        #expect(try store.repository.count(.search(query), upTo: 10) == 0)
    }

    /// Thousands of ideas holding the query's trigrams apart, a few holding the query: the
    /// few are the hits, on every path (the hits counted to choose it are the real ones).
    @Test func manyCandidatesFewHits() throws {
        let store = try StoreFixture()
        let apart = (0..<(IdeaRepository.searchCandidateLimit + 500)).map { index in
            Idea(
                id: Self.corpusId(index), title: "bcd abc \(index)", description: "",
                createdAt: StoreFixture.start.adding(milliseconds: Int64(index * 1000)), deviceId: "corpus")
        }
        _ = try store.repository.importIdeas(apart)
        let hits = try (0..<5).map { try store.repository.addIdea(title: "abcd \($0)") }
        #expect(try store.repository.search("abcd") == hits.reversed())
        #expect(try store.repository.ideas(.search("ABCD"), limit: 2) == Array(hits.reversed().prefix(2)))
        #expect(try store.repository.count(.search("abcd")) == 5)
        #expect(try store.repository.count(.search("abcd"), upTo: 3) == 3)
        #expect(try store.repository.count(.search("abc")) == apart.count + 5, "one trigram: every candidate is a hit")
    }

    @Test func emptyQueryFindsNothing() throws {
        let store = try StoreFixture()
        _ = try store.repository.addIdea(title: "Something")
        for query in ["", " ", "\u{3000}", "\n\t"] {
            #expect(try store.repository.search(query).isEmpty)
            #expect(try store.repository.count(.search(query)) == 0)
        }
    }

    @Test func queryIsTrimmed() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "靈感")
        #expect(try store.repository.search("  靈 ") == [idea])
        #expect(try store.repository.search("\u{3000}靈感\u{3000}") == [idea])
    }

    @Test func searchSeesEditsAndDeletesAtOnce() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "Alpha 靈", description: "first")
        #expect(try store.repository.search("lph") == [idea])
        #expect(try store.repository.search("al") == [idea])
        #expect(try store.repository.search("靈") == [idea])

        let edited = try store.repository.editIdea(id: idea.id, IdeaChanges(title: "Beta 感", description: "second"))
        for gone in ["lph", "al", "靈", "first", "fi"] {
            #expect(try store.repository.search(gone).isEmpty, "\(gone)")
            #expect(try store.repository.count(.search(gone)) == 0, "\(gone)")
        }
        for present in ["eta", "be", "B", "感", "a 感", "second", "se"] {
            #expect(try store.repository.search(present) == [edited], "\(present)")
            #expect(try store.repository.count(.search(present)) == 1, "\(present)")
        }

        let toggled = try store.repository.toggleCompleted(id: idea.id)
        #expect(try store.repository.search("be") == [toggled])
        #expect(try store.repository.search("beta") == [toggled])

        _ = try store.repository.deleteIdea(id: idea.id)
        for gone in ["eta", "be", "感", "second"] {
            #expect(try store.repository.search(gone).isEmpty, "\(gone)")
            #expect(try store.repository.count(.search(gone)) == 0, "\(gone)")
        }
    }

    @Test func searchAfterManyEditsOfTheSameIdea() throws {
        let store = try StoreFixture()
        let idea = try store.repository.addIdea(title: "v0")
        for version in 1...20 {
            _ = try store.repository.editIdea(id: idea.id, IdeaChanges(title: "v\(version) 靈感", description: "d\(version)"))
        }
        #expect(try store.repository.search("v20").count == 1)
        #expect(try store.repository.search("v19").isEmpty)
        #expect(try store.repository.search("d2").count == 1, "d20")
        #expect(try store.repository.search("d1").isEmpty)
        #expect(try store.repository.search("靈感").count == 1)
        #expect(try store.repository.count(.search("v1")) == 0)
    }

    @Test("Emoji queries", arguments: [
        ("🎉", ["Party 🎉 time"]),
        ("🎉 t", ["Party 🎉 time"]),
        ("👍🏽", ["Thumbs 👍🏽 up"]),
        ("👍🏽 up", ["Thumbs 👍🏽 up"]),
        ("👨‍👩‍👧", ["👨‍👩‍👧 family"]),
        ("👨‍👩‍👧 f", ["👨‍👩‍👧 family"]),
        ("🇹🇼", ["Flag 🇹🇼"]),
        ("💡", []),
    ])
    func emojiQueries(query: String, titles: [String]) throws {
        let store = try StoreFixture()
        for title in ["Party 🎉 time", "Thumbs 👍🏽 up", "👨‍👩‍👧 family", "Flag 🇹🇼", "plain"] {
            _ = try store.repository.addIdea(title: title)
        }
        #expect(Set(try store.repository.search(query).map(\.title)) == Set(titles))
        #expect(try store.repository.count(.search(query)) == titles.count)
    }

    @Test("Quotes and FTS syntax in a query are plain text", arguments: [
        "\"", "\"\"", "say \"hi\"", "\"hi", "a\"b", "*", "a*", "OR", "AND", "NOT x", "NEAR(", "(", ")", "-", "^", ":", "'",
        "title:x", "{a b}", "a OR b", "\"靈",
    ])
    func queryWithSpecialCharacters(query: String) throws {
        let store = try StoreFixture()
        let containing = try store.repository.addIdea(title: "Text with \(query) inside")
        _ = try store.repository.addIdea(title: "nothing special here")
        #expect(try store.repository.search(query).contains(containing))
        #expect(try store.repository.count(.search(query)) == store.bruteForceSearch(query).count)
        #expect(try store.repository.search(query) == store.bruteForceSearch(query))
    }

    // MARK: The index path and the scan path agree with plain string search

    /// `count` ideas in a fixed pattern: most hold `靈`, `靈感` and `idea`, a few don't, and
    /// some hold text only across their title and description boundary.
    private static func corpus(count: Int) -> [Idea] {
        (0..<count).map { index in
            let title = switch index % 20 {
            case 0: "Plain \(index)"
            case 1: "感靈 \(index)"
            default: "靈感 idea \(index)"
            }
            let description = if index % 7 == 0 {
                "另一個靈感"
            } else if index % 11 == 0 {
                "Ärger ÜBER \"quoted\" idea"
            } else if index % 13 == 0 {
                "感 starts here"
            } else {
                "desc \(index)"
            }
            return Idea(
                id: corpusId(index),
                title: index % 20 == 0 && index % 13 == 0 ? "Plain ends with 靈" : title,
                description: description, isCompleted: index % 4 == 0,
                createdAt: StoreFixture.start.adding(milliseconds: Int64(index * 1000)), deviceId: "corpus")
        }
    }

    private static func corpusId(_ index: Int) -> UUID {
        let hex = String(index, radix: 16)
        return uuid("abc00000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex)
    }

    private static let corpusQueries = [
        "靈", "靈感", "感", "感靈", "idea", "IDEA", "dea", "id", "i", "plain", "pl", "ärger", "är", "Ä", "über",
        "\"quoted\"", "\"", "desc", "desc 1", "1", "12", "123", "另一個", "另", "s h", "靈 ", " 感", "nowhere", "靈感 idea 2",
    ]

    /// Corpus sizes that put the common queries on each path: sorting the hits, walking the
    /// index with the hits, and (above `searchCandidateLimit`, for small pages) scanning the text.
    static let corpusSizes = [200, 2600, IdeaRepository.searchCandidateLimit + 1000]

    @Test("Search agrees with plain string search on the index paths and on the scan path", arguments: corpusSizes)
    func searchAgreesWithBruteForce(corpusSize: Int) throws {
        let store = try StoreFixture()
        #expect(try store.repository.importIdeas(Self.corpus(count: corpusSize)).inserted == corpusSize)
        var scanned = 0
        for query in Self.corpusQueries {
            let expected = try store.bruteForceSearch(query)
            #expect(try store.repository.search(query).map(\.id) == expected.map(\.id), "\(query)")
            #expect(try store.repository.count(.search(query)) == expected.count, "\(query)")
            var pages: [Idea] = []
            for offset in stride(from: 0, to: IdeaRepository.searchWalkWindow, by: 100) {
                pages += try store.repository.ideas(.search(query), offset: offset, limit: 100)
            }
            #expect(pages == Array(expected.prefix(IdeaRepository.searchWalkWindow)), "\(query)")
            #expect(try store.repository.ideas(.search(query), limit: 7) == Array(expected.prefix(7)), "\(query)")
            var walked: [Idea] = []
            try store.repository.forEachIdea(.search(query), limit: 20) { walked.append($0) }
            #expect(walked == Array(expected.prefix(20)), "\(query)")
            if expected.count > IdeaRepository.searchCandidateLimit {
                scanned += 1
            }
        }
        if corpusSize > IdeaRepository.searchCandidateLimit {
            #expect(scanned >= 6, "the big corpus must take the scan path for the common queries")
            for common in ["靈", "靈感", "idea", "IDEA", "dea", "i"] {
                #expect(try store.bruteForceSearch(common).count > IdeaRepository.searchCandidateLimit)
            }
        } else {
            #expect(scanned == 0)
        }
    }

    @Test func scanPathSeesEditsAndNeverSpansFields() throws {
        let store = try StoreFixture()
        _ = try store.repository.importIdeas(Self.corpus(count: IdeaRepository.searchCandidateLimit + 1000))
        let boundary = try store.repository.addIdea(title: "Boundary 靈", description: "感 boundary")
        #expect(try store.bruteForceSearch("靈感").count > IdeaRepository.searchCandidateLimit)
        #expect(try !store.repository.ideas(.search("靈感"), limit: 50).contains(boundary))
        #expect(try store.repository.ideas(.search("靈"), limit: 50).first == boundary)
        let edited = try store.repository.editIdea(id: boundary.id, IdeaChanges(title: "Boundary 靈感"))
        #expect(try store.repository.ideas(.search("靈感"), limit: 50).first == edited)
        _ = try store.repository.deleteIdea(id: boundary.id)
        #expect(try !store.repository.ideas(.search("靈"), limit: 50).contains { $0.id == boundary.id })
        #expect(try store.repository.count(.search("靈")) == store.bruteForceSearch("靈").count)
    }

    @Test func hugeLimitsDoNotOverflow() throws {
        let store = try StoreFixture()
        let ideas = [try store.repository.addIdea(title: "one 靈"), try store.repository.addIdea(title: "two 靈")]
        for filter in [IdeaFilter.all, .search("靈"), .search("one")] {
            #expect(try store.repository.ideas(filter, offset: 1, limit: Int.max).count == (filter == .search("one") ? 0 : 1))
            #expect(try store.repository.ideas(filter, offset: Int.max, limit: Int.max).isEmpty)
        }
        #expect(try store.repository.ideas(.all, offset: 0, limit: Int.max) == ideas.reversed())
    }
}

extension StoreFixture {
    /// What search should find: every idea whose title or description contains the
    /// trimmed, lower-cased query, newest first.
    func bruteForceSearch(_ query: String) throws -> [Idea] {
        let folded = query.trimmingCharacters(in: .whitespacesAndNewlines)
            .precomposedStringWithCanonicalMapping.lowercased()
        guard !folded.isEmpty else { return [] }
        return try allIdeas().filter { idea in
            idea.title.precomposedStringWithCanonicalMapping.lowercased().contains(folded)
                || idea.description.precomposedStringWithCanonicalMapping.lowercased().contains(folded)
        }
    }
}
