import ArgumentParser
import CloudKitModel
import Foundation
import IdeaBoxFoundation
import Synchronization

/// `ideabox-bench uploads`: several large assets uploaded to one `ideabox serve` at once,
/// each from a thread and a connection of its own: how long each took, and the server's
/// resident memory before and at its peak (the question being whether an upload in flight
/// costs memory in proportion to its size). Every asset is then downloaded and compared.
struct UploadBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uploads", abstract: "Benchmark the server's memory: large asset uploads at once, peak RSS, time each.")

    @Option(help: "How many uploads run at once.") var count = 8
    @Option(help: "The size of each, in MiB (at most 64).") var megabytes = 64
    @Option(
        name: .customLong("server"),
        help: ArgumentHelp("The store behind `ideabox serve`: `sqlite` (a new file) or `postgres://…`.", valueName: "store"))
    var store = "sqlite"

    func validate() throws {
        guard (1...64).contains(megabytes), (1...64).contains(count) else { throw ValidationError("--megabytes is 1 to 64 and --count 1 to 64.") }
    }

    func run() async throws {
        let server = try BenchServer(store: store)
        defer { server.stop() }
        let owner = try server.newAccount("uploads-\(ProcessInfo.processInfo.processIdentifier)")
        // Bytes no compression or deduplication helps with, different for each upload.
        var generator = SystemRandomNumberGenerator()
        let assets = (0..<count).map { _ in
            var data = Data(count: megabytes << 20)
            data.withUnsafeMutableBytes { bytes in
                for offset in stride(from: 0, to: bytes.count, by: 8) { bytes.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self) }
            }
            return data
        }
        let before = server.usage().residentMiB

        let times = Locked<[Duration]>([])
        let references = Locked<[Int: AssetReference]>([:])
        let failures = Locked<[String]>([])
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, data) in assets.enumerated() {
                let database = try server.client(owner)
                group.addTask {
                    let start = ContinuousClock.now
                    do {
                        let reference = try await database.uploadAsset(data)
                        times.withLock { $0.append(ContinuousClock.now - start) }
                        references.withLock { $0[index] = reference }
                    } catch {
                        failures.withLock { $0.append(String(describing: error)) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        let peak = server.peakResidentMiB

        var intact = 0
        let reader = try server.client(owner)
        for (index, data) in assets.enumerated() {
            guard let reference = references.withLock({ $0[index] }) else { continue }
            if (try? await reader.fetchAsset(reference)) == data { intact += 1 }
        }

        var measurement = Measurement(name: "upload of \(megabytes) MiB (\(count) at once)")
        times.withLock { $0 }.forEach { measurement.record($0) }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("ideabox serve, store \(store): \(count) uploads of \(megabytes) MiB at once, all done in \(String(format: "%.1f", seconds)) s")
        if !measurement.samples.isEmpty { print("  \(measurement.report)") }
        print("  server RSS before: \(before) MiB; peak while receiving (VmHWM): \(peak) MiB")
        print("  downloaded back intact: \(intact) of \(count)")
        let failed = failures.withLock { $0 }
        print("  failed uploads: \(failed.count)" + failed.map { "\n    \($0)" }.joined())
        guard failed.isEmpty, intact == count else { throw ExitCode(1) }
    }
}
