import Foundation
import GRDB
@testable import IdeaStore
import Testing

/// `PageSalvage`: the rows of the ideas table found on every page of a file by their shape,
/// rows written before the last columns were added among them; on the ideas' pages, a cell
/// that does not read as an idea is counted as one that could not be read.
@Suite struct PageSalvageTests {
    private static let ids = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"]

    @Test func everyIdeaIsFoundByItsShapeAndNothingElse() throws {
        let (file, layout) = try Self.database()
        let salvage = Self.read(file, layout: layout)
        #expect(salvage.rows.keys.sorted() == [1, 2])
        #expect(salvage.rows[1]?["title"] == "Written before the field stamps".databaseValue)
        #expect(salvage.rows[1]?["titleAt"] == .null)
        #expect(salvage.rows[2]?["titleAt"] == 5.databaseValue)
        #expect(salvage.rows[2]?["localId"] == 2.databaseValue)
        #expect(salvage.unreadable.isEmpty)
    }

    @Test func aCellOfAnIdeasPageThatIsNoIdeaCouldNotBeRead() throws {
        var (file, layout) = try Self.database()
        let id = Array(Self.ids[1].utf8)
        let at = try #require((0...file.count - id.count).first { Array(file[$0..<$0 + id.count]) == id })
        file[at] = UInt8(ascii: "Z")
        let salvage = Self.read(file, layout: layout)
        #expect(salvage.rows.keys.sorted() == [1])
        #expect(salvage.unreadable == [2])
    }

    private static func read(_ file: [UInt8], layout: [String]) -> PageSalvage {
        PageSalvage.read(
            DatabaseFilePages(file: file, wal: []), layout: layout, rowidAlias: "localId",
            required: (layout.firstIndex(of: "description") ?? 0) + 1
        ) { row in Salvage.isWellFormedIdea { row[$0] ?? .null } }
    }

    /// An IdeaBox database (no WAL) with an idea written before the field stamps were added,
    /// one written after, and a history row, which has as many columns as an old idea; and the
    /// ideas table's columns in the order its rows store them.
    private static func database() throws -> (file: [UInt8], layout: [String]) {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("ideabox.sqlite").path
            let queue = try DatabaseQueue(path: path)
            let migrator = IdeaSchema.migrator
            try migrator.migrate(queue, upTo: IdeaSchema.Migration.outboxOrder.rawValue)
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO idea (localId, id, createdAt, updatedAt, deviceId, title) VALUES (1, ?, 1, 1, 'd', 'Written before the field stamps')
                    """, arguments: [ids[0]])
            }
            try migrator.migrate(queue)
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO idea (localId, id, createdAt, updatedAt, deviceId, title, titleAt, titleBy) VALUES (2, ?, 1, 5, 'd', 'After', 5, 'd');
                    INSERT INTO ideaHistory (ideaId, recordedAt, reason, writtenAt, writtenBy, fields, isCompleted, title, description)
                    VALUES (?, 1, 'edit', 1, 'd', 'title', 0, 'Before', '')
                    """, arguments: [ids[1], ids[0]])
            }
            let layout = try queue.read(Salvage.ideaLayout(of:))
            try queue.close()
            return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), layout)
        }
    }
}
