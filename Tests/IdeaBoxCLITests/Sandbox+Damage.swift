import DatabaseDamage
import Foundation
import IdeaBoxFoundation
import IdeaModel
import Testing

/// A sandbox profile whose database is damaged in the middle, and what the commands say of it.
extension Sandbox {
    /// Imports `count` ideas into `profile` (each a second newer than the one before, with a
    /// description long enough that an export of them fills many 64 KB writes) and returns
    /// them.
    func importIdeas(count: Int = 2_000, profile: String = "default") async throws -> [Idea] {
        let start = try #require(Timestamp(iso8601: "2026-01-01T00:00:00.000Z"))
        let ideas = (0..<count).map { number in
            let created = start.adding(milliseconds: Int64(number) * 1000)
            let hex = String(number + 1, radix: 16)
            return Idea(
                id: UUID(uuidString: "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex)!,
                title: "Idea \(number)", description: "A description of idea \(number), long enough to fill a line or two.",
                createdAt: created, updatedAt: created, deviceId: "cli-test-device", version: 0)
        }
        let file = try self.file("import-\(profile).json", Expected.jsonArray(ideas))
        try await succeed(["import", file, "--profile", profile])
        return ideas
    }

    /// Overwrites the middle leaf page of `profile`'s ideas, and returns the ids of the
    /// ideas that were on it.
    func damageIdeas(profile: String = "default") throws -> Set<String> {
        let database = databaseFile(profile: profile)
        let pages = try DatabaseDamage.leafPages(of: "idea", in: database)
        let page = pages[pages.count / 2]
        let lost = Set(try DatabaseDamage.values(of: "id", in: "idea", onLeafPage: page, of: database))
        try DatabaseDamage.overwrite(pages: [page], of: database)
        return lost
    }

    /// The sentence every command says of the damaged database of `profile`, naming the
    /// repair with `options`.
    func damagedSentence(profile: String = "default", options: String = "") -> String {
        """
        \(databaseFile(profile: profile).path) is damaged: run `ideabox repair\(options)`, which keeps every idea it can \
        still read and sets the damaged file aside; the next sync brings back the rest.
        """
    }
}
