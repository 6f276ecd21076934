import Foundation
import ProcessTestSupport
import Testing

/// Issue 57 part 6 through `serve`: two devices hold `Favorite.json`, a 2 MB file (an asset)
/// and a Chinese-named one in `Items/`, and one in `FavoriteItems/`. Encryption turned on, the
/// key rotated, then reset, then encryption turned off: after each, and a `library sync` on
/// both, both folders hold every file with the same bytes and nothing was received or
/// deleted; a new device then gets all four from the server.
@Suite(.takesTurns) struct ServedEncryptedLibraryTests {
    private static let fast = ["IDEABOX_TEST_SCRYPT": "fast"]
    private static let files: [String: Data] = [
        "Favorite.json": Data(#"["一號","two"]"#.utf8),
        "Items/靈感筆記.json": Data(#"{"title":"靈感筆記"}"#.utf8),
        "Items/large.json": Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 13) }),
        "FavoriteItems/fav.json": Data(#"{"favorite":true}"#.utf8),
    ]
    private static let nothingDone = "Library synced: 0 sent, 0 deleted remotely, 0 received, 0 deleted here, 0 conflicts.\n"

    @Test func enableRotateResetAndDisableKeepEveryFileOnBothDevicesAndTheServer() async throws {
        let (server, token, url) = try await ServeProcess.running(withAccount: "alice")
        defer { server.close() }
        let c = try DeviceProcess()
        let d = try DeviceProcess()
        for device in [c, d] { try await device.run(["account", "sign-in", "alice", "--server", url, "--token", token]) }
        try Self.write(Self.files, into: Self.library(of: c))
        try await c.run(["library", "sync"])
        try await d.run(["library", "sync"])
        #expect(try Self.contents(of: Self.library(of: d)) == Self.files)

        try await c.run(["account", "encryption", "enable"], environment: Self.fast, input: "first words at dawn\nfirst words at dawn\n")
        #expect(try await c.run(["library", "sync"]) == Self.nothingDone)
        try await d.run(["account", "unlock"], environment: Self.fast, input: "first words at dawn\n")
        try await expectBothKeepEveryFile(c, d, after: "enable")

        try await c.run(["account", "encryption", "rotate"], environment: Self.fast, input: "first words at dawn\n")
        #expect(try await c.run(["library", "sync"]) == Self.nothingDone)
        try await expectBothKeepEveryFile(c, d, after: "rotate")

        try await c.run(["account", "encryption", "reset", "--yes"], environment: Self.fast, input: "新的 words 與新的路\n新的 words 與新的路\n")
        #expect(try await c.run(["library", "sync"]) == Self.nothingDone)
        try await d.run(["account", "unlock"], environment: Self.fast, input: "新的 words 與新的路\n")
        try await expectBothKeepEveryFile(c, d, after: "reset")

        try await c.run(["account", "encryption", "disable"], environment: Self.fast, input: "新的 words 與新的路\n")
        #expect(try await c.run(["library", "sync"]) == Self.nothingDone)
        try await d.run(["account", "encryption", "disable"], environment: Self.fast)
        try await expectBothKeepEveryFile(c, d, after: "disable")

        let e = try DeviceProcess()
        try await e.run(["account", "sign-in", "alice", "--server", url, "--token", token])
        #expect(try await e.run(["library", "sync"])
            == "Library synced: 0 sent, 0 deleted remotely, 4 received, 0 deleted here, 0 conflicts.\n")
        #expect(try Self.contents(of: Self.library(of: e)) == Self.files)
    }

    /// D's `library sync` does nothing, and both folders hold every file as it was.
    private func expectBothKeepEveryFile(
        _ c: DeviceProcess, _ d: DeviceProcess, after change: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(try await d.run(["library", "sync"]) == Self.nothingDone, "after \(change)", sourceLocation: sourceLocation)
        for (name, device) in [("C", c), ("D", d)] {
            #expect(
                try Self.contents(of: Self.library(of: device)) == Self.files, "\(name)'s library after \(change)",
                sourceLocation: sourceLocation)
        }
    }

    private static func library(of device: DeviceProcess) -> URL {
        device.dataRoot.appendingPathComponent("profiles/default/RawLibrary", isDirectory: true)
    }

    private static func write(_ files: [String: Data], into library: URL) throws {
        for (path, data) in files {
            let url = library.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }

    /// Every file of the synced layout in `library` (none hidden), by path.
    private static func contents(of library: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        if let favorite = FileManager.default.contents(atPath: library.appendingPathComponent("Favorite.json").path) {
            files["Favorite.json"] = favorite
        }
        for folder in ["Items", "FavoriteItems"] {
            let url = library.appendingPathComponent(folder)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where !name.hasPrefix(".") {
                files["\(folder)/\(name)"] = try Data(contentsOf: url.appendingPathComponent(name))
            }
        }
        return files
    }
}
