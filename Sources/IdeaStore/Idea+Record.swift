import Foundation
import GRDB
import IdeaBoxCore

extension Timestamp: DatabaseValueConvertible {
    /// Stored as INTEGER milliseconds: exact, and sorted by SQLite as numbers.
    public var databaseValue: DatabaseValue { milliseconds.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Timestamp? {
        Int64.fromDatabaseValue(dbValue).map(Timestamp.init(milliseconds:))
    }
}

extension Idea: FetchableRecord {
    /// The columns of the `idea` table that make an `Idea`.
    enum Columns {
        static let localId = Column("localId")
        static let id = Column("id")
        static let title = Column("title")
        static let description = Column("description")
        static let isCompleted = Column("isCompleted")
        static let createdAt = Column("createdAt")
        static let updatedAt = Column("updatedAt")
        static let deviceId = Column("deviceId")
        static let version = Column("version")
        static let lastSyncedAt = Column("lastSyncedAt")
        static let foldedTitle = Column("foldedTitle")
        static let foldedDescription = Column("foldedDescription")
    }

    /// The SELECT list that reads an idea, leaving out the search copies of its text.
    static let selectedColumns = "id, title, description, isCompleted, createdAt, updatedAt, deviceId, version, lastSyncedAt"

    public init(row: Row) throws {
        let idText: String = row[Columns.id]
        guard let id = UUID(uuidString: idText) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "idea id \(idText) is not a UUID")
        }
        self.init(
            id: id,
            title: row[Columns.title],
            description: row[Columns.description],
            isCompleted: row[Columns.isCompleted],
            createdAt: row[Columns.createdAt],
            updatedAt: row[Columns.updatedAt],
            deviceId: row[Columns.deviceId],
            version: row[Columns.version],
            lastSyncedAt: row[Columns.lastSyncedAt]
        )
    }
}
