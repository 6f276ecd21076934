import ChildProcess
import Foundation
import ProcessTestSupport
import Testing

/// kill -9 of `ideabox library sync` in the middle of pulling 500 files, then another
/// sync: no file is truncated or lost, and the manifest agrees with the folder.
@Suite(.takesTurns) struct LibraryCrashTests {
    @Test(.timeLimitFromTurn(.seconds(180)))
    func killNineMidPullLosesAndTruncatesNothing() async throws {
        let sandbox = try Sandbox()
        let libraryA = sandbox.dataRoot.appendingPathComponent("profiles/A/RawLibrary")
        let itemsB = sandbox.dataRoot.appendingPathComponent("profiles/B/RawLibrary/Items")
        try FileManager.default.createDirectory(at: libraryA.appendingPathComponent("Items"), withIntermediateDirectories: true)
        var expected: [String: Data] = [:]
        for index in 0..<500 {
            let data = Data((#"{"index":\#(index),"text":""# + String(repeating: "內容", count: 300 + index) + #""}"#).utf8)
            expected["item-\(index).json"] = data
            try data.write(to: libraryA.appendingPathComponent("Items/item-\(index).json"))
        }
        try await sandbox.succeed(on: "A", ["library", "sync"])

        // Each of B's requests waits 1.5 s, so the kill lands while a later page is on its way.
        try await sandbox.succeed(on: "B", ["remote", "latency", "1500"])
        let library = try ChildProcess.start(
            try IdeaBoxBinary.url().path, ["library", "sync", "--profile", "B"], environment: sandbox.environment,
            output: "/dev/null", error: "/dev/null")
        // The watch runs on a thread of its own, so a busy test pool can't make it late.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                let deadline = ContinuousClock.now + .seconds(60)
                while Self.visibleFiles(in: itemsB).count < 200 && ContinuousClock.now < deadline && kill(library.pid, 0) == 0 {
                    usleep(2_000)
                }
                // The child is not reaped until the stop waits for it, so its pid stays its own.
                _ = try? library.stopAndWaitForExit(SIGKILL)
                done.resume()
            }.start()
        }
        let atKill = Self.visibleFiles(in: itemsB)
        #expect(atKill.count >= 200 && atKill.count < 500, "the kill came at \(atKill.count) of 500 files")
        for name in atKill {
            #expect(try Data(contentsOf: itemsB.appendingPathComponent(name)) == expected[name], "\(name) is not whole")
        }

        try await sandbox.succeed(on: "B", ["remote", "latency", "0"])
        try await sandbox.succeed(on: "B", ["library", "sync"])
        let after = Self.visibleFiles(in: itemsB)
        #expect(after.count == 500)
        for name in after {
            #expect(try Data(contentsOf: itemsB.appendingPathComponent(name)) == expected[name], "\(name) differs")
        }
        let manifestURL = itemsB.deletingLastPathComponent().appendingPathComponent("sync_manifest.json")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        let files = try #require(manifest["files"] as? [String: [String: Any]])
        #expect(files.count == 500)
        for (path, entry) in files {
            #expect(entry["size"] as? Int == expected[String(path.dropFirst("Items/".count))]?.count, "\(path)")
        }
        #expect(try await sandbox.succeed(on: "B", ["library", "status"]).contains("pending up: 0 changed, 0 deleted"))
    }

    /// The synced-looking files in `folder`: not hidden (temporary files are).
    private static func visibleFiles(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }
}
