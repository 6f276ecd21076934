import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

extension IdeaRepository {
    /// The state of each of `ids` that this device holds with no change of its own waiting
    /// to be sent: an idea with its field stamps, or a delete. Such a state is the last
    /// version this device and the remote agreed on (what it sent and had acknowledged, or
    /// what it received), so the sync layer can tell a remote version older than it (a
    /// replay) from news. One query for a whole page.
    public func settledStates(of ids: [UUID]) throws -> [UUID: RemoteChange] {
        guard !ids.isEmpty else { return [:] }
        // Ids are hex and dashes: the JSON array needs no escaping.
        let list = "[\"" + ids.map(\.lowercasedString).joined(separator: "\",\"") + "\"]"
        return try connection.read { db in
            var states: [UUID: RemoteChange] = [:]
            let ideas = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT \(Idea.selectedColumns), \(FieldStamps.columns) FROM idea
                    WHERE id IN (SELECT value FROM json_each(?))
                      AND NOT EXISTS (SELECT 1 FROM outbox WHERE outbox.ideaId = idea.id)
                    """),
                arguments: [list])
            while let row = try ideas.next() {
                let idea = try Idea(row: row)
                states[idea.id] = .saved(idea, FieldStamps(row: row, at: 9, of: idea))
            }
            let tombstones = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT ideaId, deletedAt, deviceId FROM tombstone
                    WHERE ideaId IN (SELECT value FROM json_each(?))
                      AND NOT EXISTS (SELECT 1 FROM outbox WHERE outbox.ideaId = tombstone.ideaId)
                    """),
                arguments: [list])
            while let row = try tombstones.next() {
                let idText: String = row["ideaId"]
                guard let id = UUID(hexText: idText) else { continue }
                states[id] = .deleted(ideaId: id, order: SyncOrder(timestamp: row["deletedAt"], deviceId: row["deviceId"]))
            }
            return states
        }
    }
}
