import Foundation
import ProcessTestSupport
import Testing

/// Issue 34's paths that silently destroyed a person's work, from the command line, through
/// the embedded remote (two profiles of one data root) and through `ideabox serve` (two data
/// roots signed in to one account). Each failed before field stamps, the samples' order and
/// the hybrid clock's reading of the overwrite's listing.
@Suite("Sync never destroys what a person did", .serialized, .takesTurns)
struct SyncKeepsWorkTests {
    /// Where the two devices' ideas meet.
    enum Remote: String, CaseIterable, CustomStringConvertible {
        case embedded, served
        var description: String { rawValue }
    }

    /// A new device reverts nothing: it adopts the account's samples (in the account's
    /// language, not its own), reports no conflict for them, and brings no deleted sample back.
    @Test(arguments: Remote.allCases)
    func aNewDeviceKeepsWhatWasDoneToTheSamples(remote: Remote) async throws {
        let devices = try await Devices(remote, samples: true)
        try await devices.sync(0)
        try await devices.run(0, ["edit", "1dea0001", "--title", "My own plan"])
        try await devices.run(0, ["done", "1dea0003"])
        try await devices.run(0, ["rm", "1dea0002"])
        try await devices.sync(0)

        // The second device starts under a Chinese locale: its own samples would be Chinese.
        let joined = try await devices.run(1, ["sync", "--json"], environment: ["LANG": "zh_TW.UTF-8"])
        #expect(joined.contains("\"conflicts\" : 0"), "\(joined)")
        try await devices.sync(0)
        for device in 0..<2 {
            #expect(try await devices.run(device, ["show", "1dea0001"]).contains("title: My own plan"))
            #expect(try await devices.run(device, ["show", "1dea0003"]).contains("completed: yes"))
            let list = try await devices.run(device, ["list"])
            #expect(!list.contains("1dea0002"), "a deleted sample came back on device \(device): \(list)")
            #expect(list.contains("Design the app icon") && !list.contains("設計"), "\(list)")
        }
    }

    /// A done-mark made offline and a later rename on the other device both survive.
    @Test(arguments: Remote.allCases)
    func editsOfDifferentFieldsMadeApartBothSurvive(remote: Remote) async throws {
        let devices = try await Devices(remote)
        let id = try await devices.run(0, ["add", "Plan the trip"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try await devices.sync(0)
        try await devices.sync(1)
        try await devices.run(0, ["remote", "offline", "on"])
        try await devices.run(0, ["done", id])
        // The rename comes later, by the other device's clock too.
        try await devices.run(1, ["edit", id, "--title", "Plan the trip to Tainan"], environment: ["IDEABOX_CLOCK_OFFSET_MS": "2000"])
        try await devices.sync(1)
        try await devices.run(0, ["remote", "offline", "off"])
        try await devices.sync(0)
        try await devices.sync(1)
        for device in 0..<2 {
            let shown = try await devices.run(device, ["show", id])
            #expect(shown.contains("title: Plan the trip to Tainan") && shown.contains("completed: yes"), "device \(device): \(shown)")
        }
        // Nothing a person wrote is gone: the first device's history holds the old title.
        #expect(try await devices.run(0, ["history", id]).contains("title: Plan the trip\n"))
    }

    /// `sync --overwrite-remote` deletes what only the remote holds after everything its
    /// listing showed, even a record from a device whose clock runs 5 s ahead.
    @Test(arguments: Remote.allCases)
    func anOverwriteOutranksWhatItDeleted(remote: Remote) async throws {
        let devices = try await Devices(remote)
        let kept = try await devices.run(0, ["add", "Kept"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try await devices.sync(0)
        try await devices.sync(1)
        let ahead = ["IDEABOX_CLOCK_OFFSET_MS": "5000"]
        let stray = try await devices.run(1, ["add", "From the fast clock"], environment: ahead).trimmingCharacters(in: .whitespacesAndNewlines)
        try await devices.sync(1, environment: ahead)
        try await devices.run(0, ["sync", "--overwrite-remote", "--yes"])
        try await devices.sync(1, environment: ahead)
        try await devices.sync(0)
        for device in 0..<2 {
            let list = try await devices.run(device, ["list"])
            #expect(!list.contains("From the fast clock") && list.contains("Kept"), "device \(device): \(list)")
        }
        #expect(try await devices.run(0, ["show", kept]).contains("title: Kept"))
        #expect(try await devices.execute(1, ["show", stray]).status != 0)
    }
}

/// Two devices of one account: two profiles of one data root on the embedded remote, or two
/// data roots signed in to one `ideabox serve`.
final class Devices {
    private let server: ServeProcess?
    private let roots: [DeviceProcess]
    private let remote: SyncKeepsWorkTests.Remote

    init(_ remote: SyncKeepsWorkTests.Remote, samples: Bool = false) async throws {
        self.remote = remote
        switch remote {
        case .embedded:
            server = nil
            roots = [try DeviceProcess(samples: samples)]
        case .served:
            let server = try ServeProcess()
            let token = try await server.addAccount("alice")
            try await server.start()
            self.server = server
            roots = [try DeviceProcess(samples: samples), try DeviceProcess(samples: samples)]
            for root in roots {
                try await root.run(["account", "sign-in", "alice", "--server", try server.url, "--token", token])
            }
        }
    }

    deinit {
        server?.close()
    }

    /// Runs `ideabox arguments…` on device `index`, which must succeed; returns its output.
    @discardableResult
    func run(_ index: Int, _ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let (root, profile) = place(index)
        return try await root.run(arguments + profile, environment: environment)
    }

    /// Runs `ideabox arguments…` on device `index`; returns its status and output.
    func execute(_ index: Int, _ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        let (root, profile) = place(index)
        return try await root.execute(arguments + profile)
    }

    /// `ideabox sync` on device `index`.
    func sync(_ index: Int, environment: [String: String] = [:]) async throws {
        try await run(index, ["sync"], environment: environment)
    }

    private func place(_ index: Int) -> (DeviceProcess, [String]) {
        switch remote {
        case .embedded: (roots[0], ["--profile", "device\(index)"])
        case .served: (roots[index], [])
        }
    }
}
