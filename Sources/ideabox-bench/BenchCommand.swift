import ArgumentParser
import Foundation

/// `ideabox-bench`: prints p50/p95 timings of IdeaBox's hot paths. Build it in release
/// mode: `swift run -c release ideabox-bench store` (or `tui`, `sync`).
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ideabox-bench",
        abstract: "Measure IdeaBox: p50 and p95 of its hot paths at scale.",
        subcommands: [
            StoreBenchmark.self, TUIBenchmark.self, SyncBenchmark.self, LoadBenchmark.self, LibraryBenchmark.self, PeersBenchmark.self,
            PushBenchmark.self, DelayBenchmark.self, UploadBenchmark.self, UnlockBenchmark.self, ConfigBenchmark.self, MillionBenchmark.self,
        ]
    )
}

/// Options shared by the benchmarks: how many ideas, and where their database lives.
struct CorpusOptions: ParsableArguments {
    @Option(help: "How many ideas to generate.") var ideas = 100_000
    @Option(help: "How many timed runs per operation.") var runs = 200
    @Option(name: .customLong("data-dir"), help: "Where to keep the generated data (reused when it already holds the corpus).")
    var dataDirectory: String?

    /// The data root: the given one, or a fixed folder under the system temporary directory.
    var root: URL {
        URL(fileURLWithPath: dataDirectory ?? NSTemporaryDirectory() + "ideabox-bench-\(ideas)", isDirectory: true)
    }
}

/// The directory holding this executable, where `swift build` also puts `ideabox`.
func productsDirectory() -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
}
