import Foundation
import Glibc
import IdeaBoxFoundation
import LibrarySync
import ProcessTestSupport
import Testing

/// `LibraryFolder`'s files on disk (its sync is `LibrarySessionTests`').
@Suite("LibraryFolder")
struct LibraryFolderTests {
    @Test("What the library writes is its owner's alone: folders 0700, files 0600, whatever the umask")
    func writesAreOwnerOnly() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("LibraryFolderTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let root = parent.appendingPathComponent("RawLibrary")
        let earlier = umask(0o022)
        defer { umask(earlier) }
        let folder = LibraryFolder(root: root)
        try folder.write(Data("{}".utf8), at: LibraryPath("Items/繁體.json"), modified: TestTime.start)
        try folder.write(Data("{}".utf8), at: LibraryPath("Favorite.json"), modified: TestTime.start)
        #expect(try Self.mode(of: root) == 0o700)
        #expect(try Self.mode(of: root.appendingPathComponent("Items")) == 0o700)
        #expect(try Self.mode(of: root.appendingPathComponent("Items/繁體.json")) == 0o600)
        #expect(try Self.mode(of: root.appendingPathComponent("Favorite.json")) == 0o600)
    }

    private static func mode(of url: URL) throws -> mode_t {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return info.st_mode & 0o777
    }
}
