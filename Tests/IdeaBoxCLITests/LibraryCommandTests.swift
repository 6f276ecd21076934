import Foundation
import ProcessTestSupport
import Testing

/// `ideabox library sync | status | overwrite-remote` between two profiles of one data root.
@Suite(.takesTurns) struct LibraryCommandTests {
    @Test func aFileOnAReachesBAndOverwriteRemoteNeedsYes() async throws {
        let sandbox = try Sandbox()
        let libraryA = sandbox.dataRoot.appendingPathComponent("profiles/A/RawLibrary")
        let libraryB = sandbox.dataRoot.appendingPathComponent("profiles/B/RawLibrary")
        try FileManager.default.createDirectory(at: libraryA.appendingPathComponent("Items"), withIntermediateDirectories: true)
        try Data(#"{"名稱":"一"}"#.utf8).write(to: libraryA.appendingPathComponent("Items/one.json"))

        #expect(try await sandbox.succeed(on: "A", ["library", "sync"])
            == "Library synced: 1 sent, 0 deleted remotely, 0 received, 0 deleted here, 0 conflicts.\n")
        #expect(try await sandbox.succeed(on: "B", ["library", "sync"])
            == "Library synced: 0 sent, 0 deleted remotely, 1 received, 0 deleted here, 0 conflicts.\n")
        #expect(try Data(contentsOf: libraryB.appendingPathComponent("Items/one.json")) == Data(#"{"名稱":"一"}"#.utf8))

        let status = try await sandbox.succeed(on: "B", ["library", "status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
        #expect(json["files"] as? Int == 1 && json["pendingUploads"] as? Int == 0 && json["pendingDownloads"] as? Int == 0)

        let refused = try await sandbox.run(on: "A", ["library", "overwrite-remote"])
        #expect(refused.status != 0 && refused.stderr.contains("add --yes") && refused.stderr.contains("library folder"))
        try FileManager.default.removeItem(at: libraryA.appendingPathComponent("Items/one.json"))
        try await sandbox.succeed(on: "A", ["library", "overwrite-remote", "--yes"])
        try await sandbox.succeed(on: "B", ["library", "sync"])
        #expect(!FileManager.default.fileExists(atPath: libraryB.appendingPathComponent("Items/one.json").path))
    }
}
