import Foundation
import IdeaBoxFoundation
import Testing

/// What IdeaBox writes is its user's alone, whatever the umask.
@Suite struct OwnerOnlyTests {
    /// A new folder to play in, removed afterwards.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-owner-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    @Test func missingFoldersAre0700AndAnExistingOneKeepsItsMode() throws {
        let folder = try Folder()
        chmod(folder.url.path, 0o755)
        let deep = folder.url.appendingPathComponent("a/b/c")
        try OwnerOnly.createDirectory(deep)
        for path in ["a", "a/b", "a/b/c"] {
            #expect(Self.mode(folder.url.appendingPathComponent(path).path) == 0o700, "\(path)")
        }
        #expect(Self.mode(folder.url.path) == 0o755, "a folder it did not make is the user's")
        try OwnerOnly.createDirectory(deep)
    }

    @Test func aNewDatabaseIs0600AndAnOldWideOneIsNarrowedWithItsWALAndSHM() throws {
        let folder = try Folder()
        let new = folder.url.appendingPathComponent("new.sqlite")
        try OwnerOnly.prepareDatabase(new)
        #expect(Self.mode(new.path) == 0o600)

        let old = folder.url.appendingPathComponent("old.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            FileManager.default.createFile(atPath: old.path + suffix, contents: Data([1]))
            chmod(old.path + suffix, 0o644)
        }
        try OwnerOnly.prepareDatabase(old)
        for suffix in ["", "-wal", "-shm"] {
            #expect(Self.mode(old.path + suffix) == 0o600, "\(suffix)")
        }
        #expect(try Data(contentsOf: old) == Data([1]), "narrowing keeps the contents")
    }
}
