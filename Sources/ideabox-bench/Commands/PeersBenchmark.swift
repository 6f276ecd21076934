import ArgumentParser
import ChildProcess
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// `ideabox-bench peers`: whole `ideabox` processes against whole `task` (taskwarrior)
/// processes on the same generated items, command by command, in alternating pairs.
///
/// Both get the same N items (title and description; a quarter of them done). IdeaBox's are
/// imported through its store; taskwarrior's are written straight into its data files
/// (`pending.data`, `completed.data`), which is what `task import` would leave, in seconds
/// instead of minutes at 100,000. Each pair runs one process of each, the order alternating,
/// and the ratio ideabox/taskwarrior is taken pair by pair.
struct PeersBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers",
        abstract: "Time ideabox against taskwarrior (Debian's taskwarrior package) on the same items, command by command.")

    @Option(help: "How many items each tool holds.") var items = 10_000
    @Option(help: "How many pairs of runs per command.") var pairs = 21
    @Option(help: "Where to keep the two data folders (default: a new temporary folder, removed afterwards).")
    var dataDir: String?

    /// One command, as each tool spells it.
    private struct Command {
        var name: String
        var ideabox: (Int) -> [String]
        var task: (Int) -> [String]
    }

    func run() throws {
        guard let task = Self.executable(named: "task") else {
            throw ValidationError("taskwarrior is not installed (no `task` on the PATH): `apt-get install taskwarrior`, then run this again.")
        }
        let ideabox = productsDirectory().appendingPathComponent("ideabox")
        guard FileManager.default.isExecutableFile(atPath: ideabox.path) else {
            throw ValidationError("build the ideabox product first: \(ideabox.path) is missing")
        }
        let root = URL(fileURLWithPath: dataDir ?? NSTemporaryDirectory() + "ideabox-peers-\(getpid())", isDirectory: true)
        let isTemporary = dataDir == nil
        defer { if isTemporary { try? FileManager.default.removeItem(at: root) } }
        let corpus = Self.corpus(count: items)
        let ideaboxEnvironment = try prepareIdeaBox(corpus, root: root.appendingPathComponent("ideabox"))
        let taskEnvironment = try prepareTaskwarrior(corpus, root: root.appendingPathComponent("task"))

        // Items to complete and show: open ones, spread over the corpus, a new one each pair.
        let open = corpus.indices.filter { !corpus[$0].isCompleted }
        let picks = (0..<pairs).map { open[($0 * 7919) % open.count] }
        let commands = [
            Command(name: "add", ideabox: { ["add", "peer benchmark idea \($0)"] }, task: { ["add", "peer benchmark idea \($0)"] }),
            Command(name: "list (50 rows)", ideabox: { _ in ["list"] }, task: { _ in ["limit:50", "list"] }),
            Command(name: "search garden (50 rows)", ideabox: { _ in ["search", "garden"] }, task: { _ in ["limit:50", "/garden/", "list"] }),
            Command(name: "search 咖啡 (50 rows)", ideabox: { _ in ["search", "咖啡"] }, task: { _ in ["limit:50", "/咖啡/", "list"] }),
            Command(name: "show ID", ideabox: { ["show", corpus[picks[$0]].idString] }, task: { [corpus[picks[$0]].idString, "info"] }),
            Command(name: "done ID", ideabox: { ["done", corpus[picks[$0]].idString] }, task: { [corpus[picks[$0]].idString, "done"] }),
            Command(name: "export", ideabox: { _ in ["export"] }, task: { _ in ["export"] }),
        ]
        print("\(items) items; \(pairs) pairs per command, alternating which runs first; whole processes, spawn to exit")
        print("command                     ideabox p50 / p95        taskwarrior p50 / p95    ratio p50 / p95 (pair by pair)")
        var worst = 0.0
        for command in commands {
            var ours: [Double] = [], theirs: [Double] = [], ratios: [Double] = []
            for pair in 0..<pairs {
                let runs: [(URL, [String], [String: String])] = [
                    (ideabox, command.ideabox(pair), ideaboxEnvironment), (task, command.task(pair), taskEnvironment),
                ]
                var times = [0.0, 0.0]
                for index in pair.isMultiple(of: 2) ? [0, 1] : [1, 0] {
                    let (binary, arguments, environment) = runs[index]
                    times[index] = try Self.time(binary, arguments, environment: environment)
                }
                ours.append(times[0])
                theirs.append(times[1])
                ratios.append(times[0] / times[1])
            }
            worst = max(worst, Self.percentile(ratios, 0.5))
            print(
                command.name.padding(toLength: 26, withPad: " ", startingAt: 0),
                String(format: "%8.1f / %6.1f ms", Self.percentile(ours, 0.5), Self.percentile(ours, 0.95)),
                String(format: "  %8.1f / %6.1f ms", Self.percentile(theirs, 0.5), Self.percentile(theirs, 0.95)),
                String(format: "    %.3f / %.3f", Self.percentile(ratios, 0.5), Self.percentile(ratios, 0.95)))
        }
        print(String(format: "highest median ratio: %.3f (target ≤ 0.10)", worst))
    }

    // MARK: Data

    /// The same `count` ideas every run: titles and descriptions from the benchmark corpus,
    /// one in four done, a minute apart.
    private static func corpus(count: Int) -> [Idea] {
        var texts = SampleCorpus(seed: 42)
        var ids = SeededRandomNumberGenerator(seed: 7)
        let base = Timestamp(milliseconds: 1_700_000_000_000)
        return (0..<count).map { index in
            let text = texts.nextText()
            let created = base.adding(milliseconds: Int64(index) * 60_000)
            var bytes = withUnsafeBytes(of: (ids.next(), ids.next())) { Array($0) }
            bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
            bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant, as taskwarrior expects
            let uuid = UUID(uuid: bytes.withUnsafeBytes { $0.load(as: uuid_t.self) })
            return Idea(
                id: uuid, title: text.title, description: text.description, isCompleted: index % 4 == 0,
                createdAt: created, updatedAt: created, deviceId: "bench")
        }
    }

    /// IdeaBox's data root holding `corpus`; returns the environment that points at it.
    private func prepareIdeaBox(_ corpus: [Idea], root: URL) throws -> [String: String] {
        try? FileManager.default.removeItem(at: root)
        let location = try DataLocation(root: root)
        let database = try IdeaDatabase.open(
            directory: location.profileDirectory, firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: false, language: .english))
        let repository = database.repository(clock: .system, ids: .random)
        _ = try repository.importIdeas(corpus)
        var environment = Self.baseEnvironment
        environment["IDEABOX_HOME"] = root.path
        environment["IDEABOX_NO_SAMPLES"] = "1"
        return environment
    }

    /// Taskwarrior's data folder and rc file holding `corpus` (title and description as one
    /// description); returns the environment that points at them.
    private func prepareTaskwarrior(_ corpus: [Idea], root: URL) throws -> [String: String] {
        try? FileManager.default.removeItem(at: root)
        let data = root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        var pending = "", completed = ""
        for idea in corpus {
            let seconds = idea.createdAt.milliseconds / 1000
            let description = Self.taskwarriorText(idea.title + " " + idea.description)
            if idea.isCompleted {
                completed += "[description:\"\(description)\" end:\"\(seconds)\" entry:\"\(seconds)\" modified:\"\(seconds)\" status:\"completed\" uuid:\"\(idea.idString)\"]\n"
            } else {
                pending += "[description:\"\(description)\" entry:\"\(seconds)\" modified:\"\(seconds)\" status:\"pending\" uuid:\"\(idea.idString)\"]\n"
            }
        }
        try Data(pending.utf8).write(to: data.appendingPathComponent("pending.data"))
        try Data(completed.utf8).write(to: data.appendingPathComponent("completed.data"))
        for file in ["undo.data", "backlog.data"] {
            try Data().write(to: data.appendingPathComponent(file))
        }
        let rc = root.appendingPathComponent("taskrc")
        try Data("data.location=\(data.path)\nconfirmation=off\nhooks=off\nnews.version=2.6.0\n".utf8).write(to: rc)
        var environment = Self.baseEnvironment
        environment["TASKRC"] = rc.path
        environment["TASKDATA"] = data.path
        return environment
    }

    /// Text as taskwarrior's data files hold it: its own entities for quotes and brackets.
    private static func taskwarriorText(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "&dquot;").replacingOccurrences(of: "[", with: "&open;")
            .replacingOccurrences(of: "]", with: "&close;").replacingOccurrences(of: "\n", with: " ")
    }

    /// What both tools run with: the locale, a home and a path, and nothing else of ours.
    private static var baseEnvironment: [String: String] {
        let environment = ProcessInfo.processInfo.environment
        return ["LANG": "C.UTF-8", "HOME": environment["HOME"] ?? "/tmp", "PATH": environment["PATH"] ?? "/usr/bin:/bin"]
    }

    // MARK: Timing

    /// Wall time of one whole process, spawn to exit, in milliseconds; a failed run is an error.
    private static func time(_ binary: URL, _ arguments: [String], environment: [String: String]) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let status = try ChildProcess.runToEnd(binary.path, arguments, environment: environment, output: "/dev/null", error: "/dev/null")
        let elapsed = clock.now - start
        guard status == 0 else {
            throw ValidationError("\(binary.lastPathComponent) \(arguments.joined(separator: " ")) failed (exit status \(status))")
        }
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        let rank = max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1)
        return sorted[min(rank, sorted.count - 1)]
    }

    private static func executable(named name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
