import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

extension Timestamp: DatabaseValueConvertible {
    /// Stored as INTEGER milliseconds: exact, and sorted by SQLite as numbers.
    public var databaseValue: DatabaseValue { milliseconds.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Timestamp? {
        Int64.fromDatabaseValue(dbValue).map(Timestamp.init(milliseconds:))
    }
}

extension Idea: FetchableRecord {
    /// The SELECT list that reads an idea, leaving out the search copies of its text.
    /// `init(row:)` reads these first nine columns by position, which is markedly faster
    /// than by name when a list prints tens of thousands of ideas.
    static let selectedColumns = "id, title, description, isCompleted, createdAt, updatedAt, deviceId, version, lastSyncedAt"

    public init(row: Row) throws {
        let idText: String = row[0]
        guard let id = UUID(hexText: idText) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "idea id \(idText) is not a UUID")
        }
        self.init(
            id: id,
            title: row[1],
            description: row[2],
            isCompleted: row[3],
            createdAt: row[4],
            updatedAt: row[5],
            deviceId: row[6],
            version: row[7],
            lastSyncedAt: row[8]
        )
    }
}

extension FieldStamps {
    /// The six columns that hold an idea's field stamps, in the order `init(row:at:of:)`
    /// reads them.
    static let columns = "titleAt, titleBy, descriptionAt, descriptionBy, completedAt, completedBy"

    /// Reads the stamp columns from position `index` of `row`. A row written before field
    /// stamps existed (NULL columns), or by an older IdeaBox since (stamps that no longer
    /// fit the row), reads as every field stamped at the idea's `updatedAt`.
    init(row: Row, at index: Int, of idea: Idea) {
        func order(_ position: Int) -> SyncOrder? {
            guard let time: Int64 = row[position], let device: String = row[position + 1] else { return nil }
            return SyncOrder(timestamp: Timestamp(milliseconds: time), deviceId: device)
        }
        let legacy = FieldStamps(legacy: idea)
        self = FieldStamps(
            title: order(index) ?? legacy.title,
            description: order(index + 2) ?? legacy.description,
            isCompleted: order(index + 4) ?? legacy.isCompleted
        ).checked(for: idea)
    }

    /// The values of `columns`, for a statement.
    var databaseValues: [(any DatabaseValueConvertible)?] {
        [title.timestamp, title.deviceId, description.timestamp, description.deviceId,
         isCompleted.timestamp, isCompleted.deviceId]
    }
}
