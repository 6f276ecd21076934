import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import LibrarySync
import Testing

/// The library's convergence property: three devices create, change, delete and rename
/// files at random and sync now and then, while the remote fails requests, before or after
/// carrying them out. Once the faults stop and every device has synced twice, every folder
/// holds the same files with the same bytes, and the remote holds exactly those files.
// Serialized: each case keeps a thread busy for a while, and the end-to-end tests that run
// beside it need the other one to watch their terminals.
@Suite("Library convergence", .serialized)
struct LibraryConvergenceTests {
    @Test("Three devices with faults and lost answers converge", arguments: 0..<24)
    func converges(seed: UInt64) async throws {
        var run = try Run(seed: seed)
        defer { try? FileManager.default.removeItem(at: run.directory) }
        try await run.play(steps: 90)
        try await run.settle()
        let folders = try run.devices.map { try $0.snapshot() }
        let remote = try await run.remoteSnapshot()
        for (index, folder) in folders.enumerated() {
            #expect(folder == remote, "seed \(seed): device \(index) differs from the remote\n\(run.log.joined(separator: "\n"))")
        }
    }
}

private struct Run {
    let directory: URL
    let clock = ManualClock(start: Timestamp(milliseconds: 1_700_000_000_000))
    let cloud: SimulatedCloud
    var devices: [Device] = []
    var random: SeededRandomNumberGenerator
    var log: [String] = []

    /// The names files get: few, so devices often touch the same ones.
    static let paths = ["Favorite.json", "Items/a.json", "Items/b.json", "Items/c.json", "FavoriteItems/a.json", "FavoriteItems/繁.json"]

    init(seed: UInt64) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("library-property-\(UUID().uuidString)")
        random = SeededRandomNumberGenerator(seed: seed)
        cloud = try SimulatedCloud.inMemory(
            clock: clock.wallClock, random: SeededRandomNumberGenerator(seed: seed &+ 7_919), maximumRecordsPerRequest: 400)
        for name in ["a", "b", "c"] {
            let root = directory.appendingPathComponent(name)
            devices.append(Device(
                name: name, folder: LibraryFolder(root: root),
                session: LibrarySession(root: root, database: cloud.database(forDevice: name), clock: clock.wallClock)))
        }
    }

    mutating func play(steps: Int) async throws {
        for _ in 0..<steps {
            clock.advance(by: Int64.random(in: 1...3_000, using: &random))
            let index = Int.random(in: 0..<devices.count, using: &random)
            let device = devices[index]
            let path = try LibraryPath(Self.paths.randomElement(using: &random)!)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<30:
                let text = "{\"by\":\"\(device.name)\",\"n\":\(Int.random(in: 0..<1_000_000, using: &random))}"
                try device.folder.write(Data(text.utf8), at: path, modified: clock.now)
                log.append("\(device.name): write \(path) \(text)")
            case 30..<40:
                try device.folder.delete(path)
                log.append("\(device.name): delete \(path)")
            case 40..<46:
                let target = try LibraryPath(Self.paths.randomElement(using: &random)!)
                guard target != path, let data = try? device.folder.read(path) else { continue }
                try device.folder.write(data, at: target, modified: clock.now)
                try device.folder.delete(path)
                log.append("\(device.name): rename \(path) → \(target)")
            case 46..<54:
                let errors = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    ScriptedError(
                        [CloudError.networkFailure, .internalError, .zoneBusy(retryAfter: 1)].randomElement(using: &random)!,
                        failsAfterApplying: Bool.random(using: &random))
                }
                try cloud.network.scriptErrors(errors, device: device.name)
                log.append("\(device.name): scripted \(errors.map { "\($0.error)\($0.failsAfterApplying ? " after applying" : "")" })")
            case 54..<58:
                let probability = Double.random(in: 0.1...0.5, using: &random)
                try cloud.network.addErrorRate(ErrorRate(probability: probability, error: .networkFailure), device: device.name)
                log.append("\(device.name): error rate \(probability)")
            case 58..<62:
                try cloud.network.clearErrorRates(device: device.name)
                log.append("\(device.name): error rates cleared")
            default:
                log.append("\(device.name): sync → \(await device.sync())")
            }
        }
    }

    /// Stops every fault, then every device syncs twice, in turn.
    mutating func settle() async throws {
        for device in devices {
            try cloud.network.clearErrorRates(device: device.name)
            try cloud.network.clearScriptedErrors(device: device.name)
        }
        for round in 0..<2 {
            for device in devices {
                clock.advance(by: 1_000)
                log.append("settle \(round) \(device.name): sync → \(await device.sync())")
            }
        }
    }

    /// The remote's files: path → bytes.
    func remoteSnapshot() async throws -> [String: Data] {
        var files: [String: Data] = [:]
        for record in try await cloud.database(forDevice: "a").records(in: LibrarySession.zone, ofType: LibrarySession.recordType) {
            guard case .string(let path)? = record.fields["path"], case .bytes(let data)? = record.fields["filedata"] else { continue }
            files[path] = data
        }
        return files
    }
}

private struct Device {
    let name: String
    let folder: LibraryFolder
    let session: LibrarySession

    func sync() async -> String {
        do {
            let report = try await session.sync()
            return "up \(report.uploaded), del-remote \(report.deletedRemotely), down \(report.downloaded), "
                + "del-here \(report.deletedLocally), conflicts \(report.conflicts)"
        } catch {
            return "failed: \(error)"
        }
    }

    /// The synced files: path → bytes.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try folder.scan().files.keys {
            files[path.text] = try folder.read(path)
        }
        return files
    }
}
