import ArgumentParser
import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxFoundation
import LibrarySync

/// `ideabox-bench library`: a library folder's first sync up and down, of many small files
/// and of a few large ones (sent as assets), and a sync with nothing to do (how long the
/// scan takes), through the embedded remote or `ideabox serve`.
struct LibraryBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "Benchmark library sync: first sync up and down (small files, large files), and a no-change sync.")

    @Option(help: "How many small files.") var files = 1_000
    @Option(help: "The size of each small file, in bytes.") var bytes = 2_048
    @Option(help: "How many large files (over 1 MB, so sent as assets).") var largeFiles = 20
    @Option(help: "The size of each large file, in bytes.") var largeBytes = 5 << 20
    @Option(help: "How many first syncs to run, each with new folders and a new remote.") var rounds = 3
    @Option(help: "How many no-change syncs to time.") var idle = 30
    @OptionGroup var server: BenchServer.Options

    func run() async throws {
        let served = try server.store.map { try BenchServer(store: $0) }
        defer { served?.stop() }
        var ups: [Rate] = [], downs: [Rate] = [], largeUps: [Rate] = [], largeDowns: [Rate] = []
        var idleSync = Measurement(name: "no-change sync of \(files) files (scan + one change fetch)")
        var scan = Measurement(name: "scan of the folder (\(files) files, no reads)")
        for round in 0..<rounds {
            let root = URL(fileURLWithPath: NSTemporaryDirectory() + "ideabox-bench-library-\(getpid())-\(round)")
            try? FileManager.default.removeItem(at: root)
            defer { try? FileManager.default.removeItem(at: root) }
            let remotes: (any CloudDatabase, any CloudDatabase)
            if let served {
                let account = try served.newAccount("library-\(getpid())-\(round)")
                remotes = (try served.client(account), try served.client(account))
            } else {
                let cloud = try SimulatedCloud.open(directory: root, clock: .system)
                remotes = (cloud.database(forDevice: "a"), cloud.database(forDevice: "b"))
            }
            let a = LibrarySession(root: root.appendingPathComponent("a"), database: remotes.0, clock: .system)
            let b = LibrarySession(root: root.appendingPathComponent("b"), database: remotes.1, clock: .system)
            var generator = SeededRandomNumberGenerator(seed: UInt64(round))
            var paths = (0..<files).map { index in (index.isMultiple(of: 2) ? "Items" : "FavoriteItems") + "/item-\(index).json" }
            for path in paths {
                let body = String(repeating: "x", count: max(0, bytes - 40))
                let text = #"{"n":\#(UInt32.random(in: .min ... .max, using: &generator)),"t":"\#(body)"}"#
                try a.folder.write(Data(text.utf8.prefix(bytes)), at: LibraryPath(path), modified: .init(Date()))
            }
            let (up, down) = try await Self.firstSync(a, b, files: files, bytes: bytes)
            ups.append(up)
            downs.append(down)
            if round == rounds - 1 {
                _ = try await b.sync()
                for _ in 0..<idle {
                    let report = try await idleSync.time { try await b.sync() }
                    guard report == LibraryReport() else { throw ValidationError("a no-change sync did something: \(report)") }
                    try scan.time { _ = try b.folder.scan() }
                }
            }
            guard largeFiles > 0 else { continue }
            paths = (0..<largeFiles).map { "Items/large-\($0).json" }
            for path in paths {
                let data = Data((0..<largeBytes / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } })
                try a.folder.write(data, at: LibraryPath(path), modified: .init(Date()))
            }
            let (largeUp, largeDown) = try await Self.firstSync(a, b, files: largeFiles, bytes: largeBytes)
            largeUps.append(largeUp)
            largeDowns.append(largeDown)
        }
        print("remote: \(server.store.map { "ideabox serve over HTTP, store \($0)" } ?? "embedded SQLite file")")
        print("first sync of \(files) files of \(bytes) bytes, \(rounds) rounds: median (slowest–fastest)")
        print("  A → remote: \(Self.summary(ups.map(\.files))) files/s, \(Self.summary(ups.map(\.megabytes), digits: 2)) MB/s")
        print("  remote → B: \(Self.summary(downs.map(\.files))) files/s, \(Self.summary(downs.map(\.megabytes), digits: 2)) MB/s")
        if largeFiles > 0 {
            print("first sync of \(largeFiles) files of \(largeBytes) bytes (assets), \(rounds) rounds: median (slowest–fastest)")
            print("  A → remote: \(Self.summary(largeUps.map(\.files), digits: 1)) files/s, \(Self.summary(largeUps.map(\.megabytes), digits: 1)) MB/s")
            print("  remote → B: \(Self.summary(largeDowns.map(\.files), digits: 1)) files/s, \(Self.summary(largeDowns.map(\.megabytes), digits: 1)) MB/s")
        }
        print(idleSync.report)
        print(scan.report)
    }

    private typealias Rate = (files: Double, megabytes: Double)

    /// Times A's sync of `files` new files of `bytes` each, then B's, and checks that all went across.
    private static func firstSync(_ a: LibrarySession, _ b: LibrarySession, files: Int, bytes: Int) async throws -> (up: Rate, down: Rate) {
        let total = Double(files * bytes) / 1_048_576
        let clock = ContinuousClock()
        var start = clock.now
        let up = try await a.sync()
        let upSeconds = seconds(clock.now - start)
        start = clock.now
        let down = try await b.sync()
        let downSeconds = seconds(clock.now - start)
        guard up.uploaded == files, down.downloaded == files, up.refused.isEmpty, down.refused.isEmpty else {
            throw ValidationError("sent \(up.uploaded) and received \(down.downloaded) of \(files) files; refused \(up.refused + down.refused)")
        }
        return ((Double(files) / upSeconds, total / upSeconds), (Double(files) / downSeconds, total / downSeconds))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func summary(_ values: [Double], digits: Int = 0) -> String {
        let sorted = values.sorted()
        func text(_ value: Double) -> String { String(format: "%.\(digits)f", value) }
        return "\(text(sorted[sorted.count / 2])) (\(text(sorted[0]))–\(text(sorted[sorted.count - 1])))"
    }
}
