import ArgumentParser
import ChildProcess
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// `ideabox-bench million` (issue 65): a million ideas through the real release binary, as a
/// person meets them. It writes the data set once (a JSON file as `export` writes it: the
/// seeded corpus, a third done), then times `import` of it into a fresh data root, `export`
/// (with the peak memory of each), the database's size beside the ideas' text, `repair` and
/// the everyday commands, each a whole process from start to exit. The app's figures come
/// from `ideabox-bench tui --data-dir ROOT/data` on the same data root.
struct MillionBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "million", abstract: "Benchmark import, export, size and the everyday commands at a million ideas.")

    @Option(help: "How many ideas the data set holds.") var ideas = 1_000_000
    @Option(help: "How many runs of each everyday command.") var runs = 20
    @Option(help: "How many runs of export.") var exportRuns = 3
    @Option(name: .customLong("data-dir"), help: "Where to keep the data set and its data root (reused when they exist).")
    var dataDirectory: String?
    @Flag(help: "Import again into a fresh data root even if one exists.") var fresh = false

    private var folder: URL {
        URL(fileURLWithPath: dataDirectory ?? NSTemporaryDirectory() + "ideabox-bench-million-\(ideas)", isDirectory: true)
    }

    /// What a common word, a rare one, one and two Chinese characters and nothing find.
    static let searches: [(String, String)] = [
        ("search, a common English word", "idea"),
        ("search, an English word", "workshop"),
        ("search, one Chinese character", "茶"),
        ("search, two Chinese characters", "靈感"),
        ("search, no hit", "zyzzyva"),
    ]

    func run() throws {
        let binary = productsDirectory().appendingPathComponent("ideabox")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ValidationError("build the ideabox product beside the bench first (\(binary.path))")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("ideas.json")
        let textBytes = try writeDataSet(to: file)
        let root = folder.appendingPathComponent("data", isDirectory: true)
        let runner = ProcessRunner(binary: binary, root: root)

        let database = try DataLocation(root: root).profileDirectory.appendingPathComponent("ideabox.sqlite")
        if fresh || !FileManager.default.fileExists(atPath: database.path) {
            try? FileManager.default.removeItem(at: root)
            let imported = try runner.timed(["import", file.path], sampling: true)
            print(Self.line("import of the data set (once)", imported))
        } else {
            print("reusing the imported data root \(root.path)")
        }

        var export = Measurement(name: "export --output (whole process)")
        var exportPeak = (resident: 0, anonymous: 0)
        let exported = folder.appendingPathComponent("export.json")
        for _ in 0..<exportRuns {
            let run = try runner.timed(["export", "--output", exported.path], sampling: true)
            export.record(run.duration)
            exportPeak = (max(exportPeak.resident, run.peakBytes), max(exportPeak.anonymous, run.peakAnonymousBytes))
        }
        print(export.report + "  peak \(Self.mebibytes(exportPeak.resident)), its own \(Self.mebibytes(exportPeak.anonymous))")
        try? FileManager.default.removeItem(at: exported)

        let size = try Self.bytes(ofFilesBeside: database)
        print("database: \(Self.mebibytes(size)) for \(Self.mebibytes(textBytes)) of titles and descriptions: "
            + String(format: "%.2f", Double(size) / Double(textBytes)) + " times the text")

        try everydayCommands(runner)

        let repair = try runner.timed(["repair"], sampling: true)
        print(Self.line("repair of a whole database (once)", repair))
    }

    /// Times each everyday command `runs` times: add, list, the searches, show, history,
    /// edit, done and rm, the last five on an idea the run added.
    private func everydayCommands(_ runner: ProcessRunner) throws {
        var measurements: [String: Measurement] = [:]
        let names = ["add", "list", "show", "history", "edit --title", "done", "rm"] + Self.searches.map(\.0)
        for name in names { measurements[name] = Measurement(name: "process: " + name) }
        var hits: [String: Int] = [:]
        for run in 0..<runs {
            let added = try runner.timed(["add", "a million and \(run) 靈感"])
            measurements["add"]?.record(added.duration)
            let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
            measurements["list"]?.record(try runner.timed(["list"]).duration)
            for (name, query) in Self.searches {
                let searched = try runner.timed(["search", query])
                measurements[name]?.record(searched.duration)
                hits[name] = searched.output.split(separator: "\n").count
            }
            measurements["show"]?.record(try runner.timed(["show", id]).duration)
            measurements["edit --title"]?.record(try runner.timed(["edit", id, "--title", "edited \(run)"]).duration)
            measurements["history"]?.record(try runner.timed(["history", id]).duration)
            measurements["done"]?.record(try runner.timed(["done", id]).duration)
            measurements["rm"]?.record(try runner.timed(["rm", id]).duration)
        }
        for name in names {
            guard let measurement = measurements[name] else { continue }
            print(measurement.report + (hits[name].map { "  [\($0) lines]" } ?? ""))
        }
    }

    /// Writes the data set's export file unless it is there; returns the bytes of its ideas'
    /// titles and descriptions (UTF-8), what the database's size is held against.
    private func writeDataSet(to file: URL) throws -> Int {
        let exists = FileManager.default.fileExists(atPath: file.path)
        let clock = ContinuousClock()
        let start = clock.now
        var texts = SampleCorpus(seed: 42)
        var ids = SeededRandomNumberGenerator(seed: 7)
        let base = Timestamp(milliseconds: 1_700_000_000_000)
        var textBytes = 0
        var output = exists ? nil : try FileOutput(file.appendingPathExtension("partial"))
        try output?.write("[\n")
        for index in 0..<ideas {
            let text = texts.nextText()
            textBytes += text.title.utf8.count + text.description.utf8.count
            guard output != nil else { continue }
            let created = base.adding(milliseconds: Int64(index) * 60_000)
            let uuid = UUID(uuid: withUnsafeBytes(of: (ids.next(), ids.next())) { $0.load(as: uuid_t.self) })
            let idea = Idea(
                id: uuid, title: text.title, description: text.description, isCompleted: index % 3 == 0,
                createdAt: created, updatedAt: created, deviceId: "bench")
            try output?.write(idea.jsonText(indent: "  ") + (index == ideas - 1 ? "\n" : ",\n"))
        }
        if var finished = output {
            try finished.write("]\n")
            try finished.close()
            try FileManager.default.moveItem(at: file.appendingPathExtension("partial"), to: file)
            print("wrote \(ideas) ideas to \(file.path) in \(clock.now - start)")
        }
        let fileSize = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        print("data set: \(ideas) ideas, \(Self.mebibytes(fileSize)) of JSON, \(Self.mebibytes(textBytes)) of text")
        return textBytes
    }

    static func bytes(ofFilesBeside database: URL) throws -> Int {
        try ["", "-wal"].reduce(0) { total, suffix in
            let path = database.path + suffix
            guard FileManager.default.fileExists(atPath: path) else { return total }
            return total + (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
        }
    }

    static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    static func line(_ name: String, _ run: ProcessRunner.Run) -> String {
        name.padding(toLength: 44, withPad: " ", startingAt: 0)
            + " \(Measurement.milliseconds(run.duration))  peak \(mebibytes(run.peakBytes)), its own \(mebibytes(run.peakAnonymousBytes))"
    }
}

/// A file written in pieces through a buffer.
struct FileOutput {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ url: URL) throws {
        FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
        buffer.reserveCapacity(1 << 20)
    }

    mutating func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { try flush() }
    }

    mutating func close() throws {
        try flush()
        try handle.close()
    }

    private mutating func flush() throws {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
