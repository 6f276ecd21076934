import Foundation
import GRDB
import IdeaBoxFoundation

extension IdeaRepository {
    /// Remembers the names of the remote records that carry some ideas, where a client other
    /// than this one may have named them (the IdeaBox app's records in iCloud): this device's
    /// saves and deletes of those ideas go to those records.
    public func rememberRecordNames(_ names: [UUID: String]) throws {
        guard !names.isEmpty else { return }
        try connection.write { db in
            for (id, name) in names {
                try db.run(
                    sql: """
                        INSERT INTO remoteRecordName (ideaId, name) VALUES (?, ?)
                        ON CONFLICT (ideaId) DO UPDATE SET name = excluded.name
                        """,
                    arguments: [id.lowercasedString, name])
            }
        }
    }

    /// The remembered record name of each of `ids` that has one.
    public func recordNames(of ids: [UUID]) throws -> [UUID: String] {
        guard !ids.isEmpty else { return [:] }
        return try connection.read { db in
            var names: [UUID: String] = [:]
            for id in ids {
                if let name = try db.cachedValue(
                    String.self, sql: "SELECT name FROM remoteRecordName WHERE ideaId = ?", arguments: [id.lowercasedString])
                {
                    names[id] = name
                }
            }
            return names
        }
    }

    /// The idea each of `names` was remembered for (`rememberRecordNames`), if any.
    public func ideaIds(ofRecordNames names: [String]) throws -> [String: UUID] {
        guard !names.isEmpty else { return [:] }
        return try connection.read { db in
            var ids: [String: UUID] = [:]
            for name in names {
                if let text = try db.cachedValue(
                    String.self, sql: "SELECT ideaId FROM remoteRecordName WHERE name = ?", arguments: [name]),
                    let id = UUID(hexText: text)
                {
                    ids[name] = id
                }
            }
            return ids
        }
    }
}
