import Foundation
import GRDB
import IdeaModel
import IdeaStore
import Testing

/// The orders of All Ideas and Completed (`IdeaOrder`): read in SQL through an index, from
/// either end, and remembered per profile.
@Suite struct IdeaOrderTests {
    /// Ideas created a second apart with these titles; the second one changed last.
    private func ideas(_ fixture: StoreFixture, _ titles: [String]) throws -> [Idea] {
        var ideas: [Idea] = []
        for (index, title) in titles.enumerated() {
            fixture.clock.advance(by: 1000)
            ideas.append(try fixture.repository.addIdea(title: title, isCompleted: index.isMultiple(of: 2)))
        }
        fixture.clock.advance(by: 1000)
        ideas[1] = try fixture.repository.editIdea(id: ideas[1].id, IdeaChanges(description: "changed"))
        return ideas
    }

    @Test func eachOrderReadsTheSameFromTheFrontAsFromTheBack() throws {
        let fixture = try StoreFixture()
        let titles = ["delta", "Alpha", "茶", "charlie", "一", "Bravo", "echo", "10 apples", "Ébène"]
        _ = try ideas(fixture, titles)
        let repository = fixture.repository
        for key in IdeaOrder.Key.allCases {
            for reversed in [false, true] {
                let order = IdeaOrder(key, isReversed: reversed)
                for filter in [IdeaFilter.all, .completed] {
                    let total = try repository.count(filter)
                    let whole = try repository.ideas(filter, limit: 100, order: order)
                    // A page past the middle is read from the other end: the same rows.
                    let back = try repository.ideas(filter, offset: total - 2, limit: 2, total: total, order: order)
                    #expect(back == Array(whole.suffix(2)), "\(order) \(filter)")
                    var walked: [Idea] = []
                    try repository.forEachIdea(filter, order: order) { walked.append($0) }
                    #expect(walked == whole)
                }
            }
        }
        let byTitle = try repository.ideas(.all, limit: 100, order: IdeaOrder(.title)).map(\.title)
        #expect(byTitle == ["10 apples", "Alpha", "Bravo", "charlie", "delta", "echo", "Ébène", "一", "茶"])
        let byChange = try repository.ideas(.all, limit: 3, order: IdeaOrder(.updated)).map(\.title)
        #expect(byChange == ["Alpha", "Ébène", "10 apples"])
        let oldest = try repository.ideas(.all, limit: 2, order: IdeaOrder(.created, isReversed: true)).map(\.title)
        #expect(oldest == ["delta", "Alpha"])
    }

    @Test(arguments: [("updatedAt", IdeaOrder.Key.updated), ("foldedTitle", .title), ("createdAt", .created)])
    func eachOrderIsReadThroughAnIndex(column: String, key: IdeaOrder.Key) throws {
        let fixture = try StoreFixture()
        let plan = try fixture.database.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM idea ORDER BY \(column) DESC, localId DESC LIMIT 10")
                .map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("USING INDEX") && !plan.contains("TEMP B-TREE"), "\(key): \(plan)")
    }

    @Test func theOrderIsRememberedAndANewProfileHasNone() throws {
        let fixture = try StoreFixture()
        #expect(try fixture.repository.listOrder() == nil)
        let revision = try fixture.repository.revision()
        try fixture.repository.setListOrder(IdeaOrder(.title, isReversed: true))
        #expect(try fixture.repository.listOrder() == IdeaOrder(.title, isReversed: true))
        #expect(try fixture.repository.revision() == revision, "not a change other processes reload for")
    }

    @Test func storedNamesReadBackAndNothingElseDoes() {
        for key in IdeaOrder.Key.allCases {
            for reversed in [false, true] {
                let order = IdeaOrder(key, isReversed: reversed)
                #expect(IdeaOrder(storedName: order.storedName) == order)
            }
        }
        #expect(IdeaOrder(storedName: "size") == nil)
        #expect(IdeaOrder(storedName: "-reversed") == nil)
        #expect(IdeaOrder(.created).next == IdeaOrder(.updated))
        #expect(IdeaOrder(.title, isReversed: true).next == IdeaOrder(.created))
    }
}
