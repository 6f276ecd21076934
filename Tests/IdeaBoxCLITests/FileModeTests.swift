import Foundation
import ProcessTestSupport
import Testing

/// Under the usual umask (022), what IdeaBox writes is readable by its user only: the
/// folders it makes are 0700, its databases with their WAL and SHM, its locks and its
/// settings 0600; files an earlier version left 0644 are narrowed on the next run.
@Suite(.takesTurns) struct FileModeTests {
    static func mode(_ url: URL) -> mode_t {
        var status = stat()
        return stat(url.path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    init() {
        // Every run starts from the common umask (a child inherits this process's).
        umask(0o022)
    }

    @Test func aDevicesFoldersDatabaseAndRemoteAreTheUsersAlone() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("私人的想法", on: "A")
        // A process that stays keeps the WAL and SHM files (the last to close removes them).
        let watch = try sandbox.startWatch(on: "A")
        try await watch.waitUntil("A has sent its idea") { watch.printed.contains("Synced: 1 sent") }
        let root = sandbox.dataRoot
        for folder in ["", "profiles", "profiles/A"] {
            #expect(Self.mode(root.appendingPathComponent(folder)) == 0o700, "folder \(folder)")
        }
        for file in [
            "profiles/A/ideabox.sqlite", "profiles/A/ideabox.sqlite-wal", "profiles/A/ideabox.sqlite-shm", "profiles/A/ideabox.lock",
            "profiles/A/delivery", "remote.sqlite", "remote.sqlite-wal", "remote.sqlite-shm", "remote.lock", "remote.sqlite-changes",
        ] {
            let url = root.appendingPathComponent(file)
            #expect(FileManager.default.fileExists(atPath: url.path), "\(file) is missing")
            #expect(Self.mode(url) == 0o600, "\(file) is \(String(Self.mode(url), radix: 8))")
        }
        #expect(try await watch.stop(SIGTERM) == 0)
    }

    @Test func filesAnEarlierVersionLeftReadableAreNarrowedOnTheNextRun() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("older", on: "A")
        let database = sandbox.databaseFile(profile: "A")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database.path + suffix) {
            chmod(database.path + suffix, 0o644)
        }
        _ = try await sandbox.succeed(on: "A", ["list"])
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database.path + suffix) {
            #expect(Self.mode(URL(fileURLWithPath: database.path + suffix)) == 0o600, "ideabox.sqlite\(suffix)")
        }
    }

    @Test func theServersStoreIsTheOperatorsAlone() async throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory.appendingPathComponent("server")
        let added = try await sandbox.run(["serve", "account", "add", "alice", "--store", "sqlite:" + folder.appendingPathComponent("store.sqlite").path])
        #expect(added.status == 0, "\(added)")
        #expect(Self.mode(folder) == 0o700)
        for file in ["store.sqlite", "store.lock"] {
            #expect(Self.mode(folder.appendingPathComponent(file)) == 0o600, "\(file)")
        }
        for file in ["store.sqlite-wal", "store.sqlite-shm"] where FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path) {
            #expect(Self.mode(folder.appendingPathComponent(file)) == 0o600, "\(file)")
        }
    }
}
