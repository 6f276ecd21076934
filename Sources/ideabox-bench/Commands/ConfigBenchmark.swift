import ArgumentParser
import Foundation
import IdeaBoxConfig

/// `ideabox-bench config`: what a config file adds to the app's launch. The app reads the
/// file once, before the first frame (`ConfigFile.load`); the same call is timed here without
/// a file and with one that sets every setting (docs/app.md's), each run reading and parsing
/// it anew. Build it in release mode.
struct ConfigBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Benchmark the launch's reading of config.toml: without a file, and with one setting everything.")

    @Option(help: "How many timed loads of each.") var runs = 200

    func validate() throws {
        guard (1...100_000).contains(runs) else { throw ValidationError("--runs is 1 to 100000.") }
    }

    func run() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-bench-config-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let empty = home.appendingPathComponent("empty")
        let full = home.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: full.appendingPathComponent("ideabox"), withIntermediateDirectories: true)
        var config = AppConfig()
        config.editor = "vim"
        try config.fileText.write(to: full.appendingPathComponent("ideabox/config.toml"), atomically: true, encoding: .utf8)
        guard ConfigFile.load(environment: ["XDG_CONFIG_HOME": full.path]).problems.isEmpty else {
            throw ValidationError("the full config file has problems")
        }
        var without = Measurement(name: "config read, no file")
        var with = Measurement(name: "config read, full file")
        for _ in 0..<runs {
            without.time { _ = ConfigFile.load(environment: ["XDG_CONFIG_HOME": empty.path]) }
            with.time { _ = ConfigFile.load(environment: ["XDG_CONFIG_HOME": full.path]) }
        }
        print(without.report)
        print(with.report)
    }
}
