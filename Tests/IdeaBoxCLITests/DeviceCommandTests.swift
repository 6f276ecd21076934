import Foundation
import Glibc
import ProcessTestSupport
import Testing

/// `ideabox device name [NEW]`: the name other devices show for what this one wrote, its
/// default, the config file's `device-name`, and the name travelling with the records.
@Suite(.takesTurns) struct DeviceCommandTests {
    /// The machine's host name as the command makes a default of it.
    private static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "IdeaBox" }
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host.split(separator: ".").first.map(String.init) ?? "IdeaBox"
    }

    @Test func theDefaultIsTheHostNameWithTheProfileBesideItAndReadingCreatesNothing() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.succeed(["device", "name"]) == Self.hostName + "\n")
        #expect(try await sandbox.succeed(on: "B", ["device", "name"]) == "\(Self.hostName) (B)\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataRoot.path), "printing the name makes no data folder")
    }

    @Test func aGivenNameIsKeptAndWinsOverTheConfigFiles() async throws {
        let sandbox = try Sandbox()
        let configHome = sandbox.directory.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: configHome.appendingPathComponent("ideabox"), withIntermediateDirectories: true)
        try "device-name = \"studio\"\n".write(
            to: configHome.appendingPathComponent("ideabox/config.toml"), atomically: true, encoding: .utf8)
        let config: [String: String?] = ["XDG_CONFIG_HOME": configHome.path]
        #expect(try await sandbox.succeed(["device", "name"], environment: config) == "studio\n")
        #expect(try await sandbox.succeed(["config", "show"], environment: config).contains("device-name = \"studio\"\n"))

        #expect(try await sandbox.succeed(["device", "name", "  laptop  "]) == """
            This device is now called laptop; other devices learn it with the next change it sends.

            """)
        #expect(try await sandbox.succeed(["device", "name"], environment: config) == "laptop\n")
        #expect(try await sandbox.succeed(["device", "name", "筆電 👍🏽"], environment: ["LANG": "zh_TW.UTF-8"]) == """
            這台裝置現在叫作 筆電 👍🏽；其他裝置會在它送出下一筆變更時得知

            """)
        #expect(try await sandbox.succeed(["device", "name"]) == "筆電 👍🏽\n")
        #expect(try await sandbox.ideas().isEmpty, "naming a new profile's device seeds no samples")
    }

    @Test(arguments: ["", "   ", "two\nlines", String(repeating: "x", count: 65)])
    func aNameThatCannotBeOneIsRefusedAndChangesNothing(name: String) async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(["device", "name", "laptop"])
        try await sandbox.expectRejection(
            ["device", "name", name],
            message: "\"\(name)\" can't be a device name: use one line of 1 to 64 characters. Nothing was changed.")
        #expect(try await sandbox.succeed(["device", "name"]) == "laptop\n")
        try await sandbox.expectRejection(
            ["device", "name", name], message: "「\(name)」不能當裝置名稱：請使用一行 1 到 64 個字元；沒有任何變更",
            environment: ["LANG": "zh_TW.UTF-8"])
    }

    /// A's name reaches B with A's records: B's `show`, `history` and `log` say "laptop",
    /// never A's id; B says "this device" of its own.
    @Test func theNameTravelsWithTheRecords() async throws {
        let sandbox = try Sandbox()
        try await sandbox.succeed(on: "A", ["device", "name", "laptop"])
        let id = try await sandbox.add("Plan", on: "A")
        try await sandbox.sync("A")
        try await sandbox.sync("B")
        try await sandbox.succeed(on: "B", ["edit", id, "--title", "Plan on B"])
        let shownOnA = try await JSONSerialization.jsonObject(with: Data(sandbox.succeed(on: "A", ["show", id, "--json"]).utf8))
        let deviceA = try #require((shownOnA as? [String: Any])?["deviceId"] as? String)
        let show = try await sandbox.succeed(on: "B", ["show", id])
        #expect(show.contains("\ndevice: this device\n"), "\(show)")
        let history = try await sandbox.succeed(on: "B", ["history", id])
        #expect(history.contains("current  ") && history.contains("  on this device\n"), "\(history)")
        #expect(history.contains("  on laptop  replaced by an edit at "), "\(history)")
        #expect(!history.contains(deviceA.prefix(8)), "\(history)")
        let chinese = try await sandbox.succeed(on: "B", ["history", id], environment: ["LANG": "zh_TW.UTF-8"])
        #expect(chinese.contains("  在 laptop 上  被編輯取代，"), "\(chinese)")
        #expect(try await sandbox.succeed(on: "B", ["history", id, "--json"]).contains("\"deviceName\" : \"laptop\""))
        try await sandbox.sync("B")
        try await sandbox.sync("A")
        #expect(try await sandbox.succeed(on: "A", ["show", id]).contains("\ndevice: \(Self.hostName) (B)\n"))
    }
}
