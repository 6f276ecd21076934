import IdeaBoxViewModels
import IdeaModel
import IdeaStore
import Testing

/// A list that scrolls through many ideas with only a window of them in memory.
@Suite struct IdeaListModelTests {
    /// Checks what a screen relies on after every move: the selection is on screen, and the
    /// rows on screen are exactly the ideas at those positions in the store.
    private static func expectConsistent(
        _ list: IdeaListModel, _ repository: IdeaRepository, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(list.selectedIndex >= 0, sourceLocation: sourceLocation)
        #expect(list.selectedIndex < max(1, list.totalCount), sourceLocation: sourceLocation)
        #expect(list.scrollTop >= 0, sourceLocation: sourceLocation)
        if list.totalCount > 0 {
            #expect((list.scrollTop..<list.scrollTop + list.viewportHeight).contains(list.selectedIndex),
                    "selected \(list.selectedIndex), top \(list.scrollTop), height \(list.viewportHeight)",
                    sourceLocation: sourceLocation)
        }
        let expected = try repository.ideas(list.filter, offset: list.scrollTop, limit: list.viewportHeight)
        let rows = list.visibleRows
        #expect(rows.map(\.index) == Array(list.scrollTop..<list.scrollTop + expected.count), sourceLocation: sourceLocation)
        #expect(rows.map(\.idea) == expected, sourceLocation: sourceLocation)
        let selectedInStore = try repository.ideas(list.filter, offset: list.selectedIndex, limit: 1).first
        #expect(list.selectedIdea?.id == selectedInStore?.id, sourceLocation: sourceLocation)
    }

    @Test func anEmptyListHasNothingSelectedAndNoRows() throws {
        let fixture = try ViewModelFixture()
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.reload()
        #expect(list.totalCount == 0)
        #expect(list.selectedIndex == 0)
        #expect(list.selectedIdea == nil)
        #expect(list.visibleRows.isEmpty)
        #expect(list.idea(at: 0) == nil)
        list.moveSelection(by: 1)
        list.page(1)
        list.select(5)
        list.page(-1)
        list.moveSelection(by: -3)
        #expect(list.selectedIndex == 0)
        #expect(list.scrollTop == 0)
        #expect(list.selectedIdea == nil)
    }

    @Test func listsNewestFirstAndMovesWithinTheEnds() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(5)
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.reload()
        #expect(list.totalCount == 5)
        #expect(list.visibleRows.map(\.idea.title) == ["Idea 5", "Idea 4", "Idea 3", "Idea 2", "Idea 1"])
        #expect(list.selectedIdea == ideas[4])
        list.moveSelection(by: -1)
        #expect(list.selectedIndex == 0)
        list.moveSelection(by: 2)
        #expect(list.selectedIdea?.title == "Idea 3")
        list.moveSelection(by: 10)
        #expect(list.selectedIndex == 4)
        #expect(list.selectedIdea == ideas[0])
        list.select(-7)
        #expect(list.selectedIndex == 0)
        try Self.expectConsistent(list, fixture.repository)
    }

    @Test func thousandsOfIdeasScrollInWindows() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(1000)
        let repository = fixture.repository
        let list = IdeaListModel(repository: repository, filter: .all)
        list.setViewportHeight(20)
        try list.reload()
        #expect(list.totalCount == 1000)
        try Self.expectConsistent(list, repository)

        list.select(list.totalCount - 1)
        #expect(list.selectedIndex == 999)
        #expect(list.scrollTop == 980)
        #expect(list.selectedIdea?.title == "Idea 1")
        #expect(list.visibleRows.last?.idea.title == "Idea 1")
        try Self.expectConsistent(list, repository)

        for _ in 0..<60 {
            list.page(-1)
            try Self.expectConsistent(list, repository)
        }
        #expect(list.selectedIndex == 0)
        #expect(list.scrollTop == 0)
        #expect(list.selectedIdea?.title == "Idea 1000")

        for _ in 0..<25 {
            list.page(1)
            try Self.expectConsistent(list, repository)
        }
        #expect(list.selectedIndex == 25 * 19)
        for _ in 0..<150 {
            list.moveSelection(by: 1)
        }
        try Self.expectConsistent(list, repository)
        #expect(list.selectedIdea?.title == "Idea \(1000 - list.selectedIndex)")
        for _ in 0..<40 {
            list.page(1)
            try Self.expectConsistent(list, repository)
        }
        #expect(list.selectedIndex == 999)
        for _ in 0..<70 {
            list.moveSelection(by: -7)
            try Self.expectConsistent(list, repository)
        }
        #expect(list.selectedIndex == 509)
        #expect(list.selectedIdea?.title == "Idea 491")
    }

    @Test func jumpsFarAndBackReadTheRightRows() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(1000)
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.reload()
        for index in [999, 0, 500, 130, 870, 61, 940, 1] {
            list.select(index)
            #expect(list.selectedIdea?.title == "Idea \(1000 - index)")
            try Self.expectConsistent(list, fixture.repository)
        }
        #expect(list.idea(at: 1000) == nil)
        #expect(list.idea(at: -1) == nil)
        #expect(list.idea(at: 0)?.title == "Idea 1000")
        #expect(list.idea(at: 999)?.title == "Idea 1")
    }

    @Test func resizingKeepsTheSelectionOnScreen() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(300)
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.reload()
        list.setViewportHeight(30)
        list.select(200)
        try Self.expectConsistent(list, fixture.repository)
        for height in [5, 1, 0, 60, 400, 2, 17] {
            list.setViewportHeight(height)
            #expect(list.viewportHeight == max(1, height))
            try Self.expectConsistent(list, fixture.repository)
            #expect(list.selectedIndex == 200)
        }
        list.setViewportHeight(400)
        #expect(list.scrollTop == 0, "everything fits: no scrolling")
        #expect(list.visibleRows.count == 300)
    }

    @Test func reloadKeepsTheSelectedIdeaAfterAnInsertAbove() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(200)
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.reload()
        list.select(150)
        let selected = try #require(list.selectedIdea)
        #expect(selected == ideas[49])

        _ = try fixture.otherProcess().addIdea(title: "Inserted above")
        _ = try fixture.repository.addIdea(title: "Also above")
        try list.reload()
        #expect(list.totalCount == 202)
        #expect(list.selectedIdea?.id == selected.id)
        #expect(list.selectedIndex == 152)
        try Self.expectConsistent(list, fixture.repository)
        #expect(try fixture.repository.ideas(.all, limit: 1).first?.title == "Also above")
    }

    @Test func reloadAfterTheSelectedIdeaIsDeletedSelectsItsNeighbour() throws {
        let fixture = try ViewModelFixture()
        let ideas = try fixture.addIdeas(10)
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.reload()
        list.select(9)
        #expect(list.selectedIdea == ideas[0])
        _ = try fixture.repository.deleteIdea(id: ideas[0].id)
        try list.reload()
        #expect(list.totalCount == 9)
        #expect(list.selectedIndex == 8)
        #expect(list.selectedIdea == ideas[1])
        try Self.expectConsistent(list, fixture.repository)
        for idea in ideas[1...] {
            _ = try fixture.repository.deleteIdea(id: idea.id)
        }
        try list.reload()
        #expect(list.totalCount == 0)
        #expect(list.selectedIdea == nil)
        #expect(list.visibleRows.isEmpty)
    }

    @Test func setFilterShowsTheNewListFromItsTop() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(30, completedEvery: 3)
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.reload()
        list.select(20)
        try list.setFilter(.completed)
        #expect(list.filter == .completed)
        #expect(list.totalCount == 10)
        #expect(list.selectedIndex == 0)
        #expect(list.scrollTop == 0)
        #expect(list.selectedIdea?.title == "Idea 30")
        #expect(list.visibleRows.allSatisfy { $0.idea.isCompleted })
        try Self.expectConsistent(list, fixture.repository)

        try list.setFilter(.search("Idea 1"))
        #expect(list.totalCount == 11, "Idea 1 and Idea 10 … Idea 19")
        #expect(list.visibleRows.map(\.idea.title) == (10...19).reversed().map { "Idea \($0)" })
        list.select(10)
        #expect(list.selectedIdea?.title == "Idea 1")
        try Self.expectConsistent(list, fixture.repository)

        try list.setFilter(.search("nothing like it"))
        #expect(list.totalCount == 0)
        #expect(list.selectedIdea == nil)
        try list.setFilter(.search(""))
        #expect(list.totalCount == 0)
        #expect(list.visibleRows.isEmpty)
    }

    @Test func setFilterStartsAtTheTopEvenIfTheOldTopIsFurtherDown() throws {
        let fixture = try ViewModelFixture()
        _ = try fixture.repository.addIdea(title: "apple")
        _ = try fixture.repository.addIdea(title: "banana")
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.setFilter(.search("apple"))
        #expect(list.selectedIdea?.title == "apple")
        try list.setFilter(.search("a"))
        #expect(list.visibleRows.map(\.idea.title) == ["banana", "apple"])
        #expect(list.selectedIndex == 0)
        #expect(list.selectedIdea?.title == "banana")
    }

    @Test func setFilterTakesAGivenCount() throws {
        let fixture = try ViewModelFixture()
        try fixture.addIdeas(30)
        let list = IdeaListModel(repository: fixture.repository, filter: .all)
        try list.setFilter(.search("Idea"), count: 12)
        #expect(list.totalCount == 12)
        list.select(100)
        #expect(list.selectedIndex == 11)
    }
}
