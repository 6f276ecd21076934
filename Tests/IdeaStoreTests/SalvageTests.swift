import GRDB
@testable import IdeaStore
import Testing

/// `Salvage.addIdeas`: the ideas found on the pages of a damaged file join those SQLite's walk
/// of the table read, never over one of them, and never one that was deleted.
@Suite struct SalvageTests {
    private static let columns = ["localId", "id", "title"]

    @Test func ideasFoundOnPagesJoinTheWalkedOnesButNotTheDeletedOnes() {
        var salvage = Salvage()
        salvage.tables["idea"] = TableSalvage(columns: Self.columns, rows: [Self.row(1, "a", "Walked")], isComplete: false)
        salvage.tables["tombstone"] = TableSalvage(
            columns: ["ideaId", "deletedAt", "deviceId"], rows: [["c".databaseValue, 5.databaseValue, "d".databaseValue]], isComplete: true)
        salvage.namedIdeas = [1, 2, 3]
        var found = PageSalvage()
        found.rows = [
            1: Self.found(1, "a", "Another copy"),
            2: Self.found(2, "b", "Below a damaged page").merging(["foldedTitle": "below a damaged page".databaseValue]) { $1 },
            3: Self.found(3, "c", "Deleted"),
        ]
        found.unreadable = [4]
        salvage.addIdeas(found, columns: Self.columns)
        #expect(salvage.tables["idea"]?.rows == [Self.row(1, "a", "Walked"), Self.row(2, "b", "Below a damaged page")])
        #expect(salvage.tables["idea"]?.isComplete == false)
        #expect(salvage.namedIdeas == [1, 2, 3, 4])
    }

    /// A file SQLite could not open: nothing was walked, and the pages give every idea.
    @Test func withNothingWalkedThePagesGiveEveryIdea() {
        var salvage = Salvage()
        var found = PageSalvage()
        found.rows = [7: Self.found(7, "g", "Found")]
        salvage.addIdeas(found, columns: Self.columns)
        #expect(salvage.tables["idea"]?.columns == Self.columns)
        #expect(salvage.tables["idea"]?.rows == [Self.row(7, "g", "Found")])
    }

    /// A walked row's values, in `columns` order.
    private static func row(_ localId: Int, _ id: String, _ title: String) -> [DatabaseValue] {
        [localId.databaseValue, id.databaseValue, title.databaseValue]
    }

    /// A row found on a page, by column.
    private static func found(_ localId: Int, _ id: String, _ title: String) -> [String: DatabaseValue] {
        Dictionary(uniqueKeysWithValues: zip(columns, row(localId, id, title)))
    }
}
