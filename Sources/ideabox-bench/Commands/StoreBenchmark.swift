import ArgumentParser
import ChildProcess
import Foundation
import IdeaStore

/// `ideabox-bench store`: the repository's adds, pages, counts and searches at scale, and the
/// whole-process time of `ideabox search` and `ideabox add`.
struct StoreBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store", abstract: "Benchmark the store and the command line at 100,000 ideas.")

    @OptionGroup var corpus: CorpusOptions
    @Option(help: "How many runs of each whole-process command.") var processRuns = 30

    func run() throws {
        let repository = try corpus.openRepository()
        let counts = try repository.counts()
        print("corpus: \(counts.all) ideas (\(counts.completed) completed) in \(corpus.root.path)")
        var results: [Measurement] = []

        var add = Measurement(name: "add one idea")
        var texts = SampleCorpus(seed: 99)
        for _ in 0..<corpus.runs {
            let text = texts.nextText()
            try add.time { _ = try repository.addIdea(title: text.title, description: text.description) }
        }
        results.append(add)

        results.append(try measure("first page of All Ideas (50)") { _ = try repository.ideas(.all, limit: 50) })
        results.append(try measure("first page of Completed (50)") { _ = try repository.ideas(.completed, limit: 50) })
        results.append(try measure("counts (all + completed)") { _ = try repository.counts() })
        results.append(try measure("page at offset 50,000 (50)") { _ = try repository.ideas(.all, offset: 50_000, limit: 50) })

        let searches: [(String, [String])] = [
            ("search, word of 3+ characters", ["workshop", "database", "garden", "資料庫", "終端機", "quiet"]),
            ("search, 1-2 Chinese characters", ["靈感", "茶", "同步", "夜市", "書", "雲"]),
            ("search, no hit", ["zyzzyva", "不存在", "qq", "龘", "xylophone", "🦄"]),
        ]
        for (name, queries) in searches {
            var page = Measurement(name: name + ": first page")
            var count = Measurement(name: name + ": count")
            for run in 0..<corpus.runs {
                let query = queries[run % queries.count]
                try page.time { _ = try repository.ideas(.search(query), limit: 50) }
                try count.time { _ = try repository.count(.search(query)) }
            }
            results.append(page)
            results.append(count)
        }
        for result in results { print(result.report) }

        try measureProcesses()
    }

    private func measure(_ name: String, _ body: () throws -> Void) throws -> Measurement {
        var measurement = Measurement(name: name)
        for _ in 0..<corpus.runs { try measurement.time(body) }
        return measurement
    }

    /// Wall time of whole `ideabox` processes against the corpus, start to exit.
    private func measureProcesses() throws {
        let binary = productsDirectory().appendingPathComponent("ideabox")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            print("skipped whole-process timings: build the ideabox product first (\(binary.path))")
            return
        }
        let commands: [(String, [String])] = [
            ("process: ideabox search workshop", ["search", "workshop"]),
            ("process: ideabox search 夜市", ["search", "夜市"]),
            ("process: ideabox add X", ["add", "X"]),
        ]
        for (name, arguments) in commands {
            var measurement = Measurement(name: name)
            var lines = 0
            for _ in 0..<processRuns {
                let run = try ProcessRunner(binary: binary, root: corpus.root).timed(arguments)
                measurement.record(run.duration)
                lines = run.output.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
            }
            print(measurement.report + "  [\(lines) lines of output]")
        }
    }
}
