import ChildProcess
import Foundation
import IdeaModel
import ProcessTestSupport
import Testing

/// What one run of the `ideabox` executable did.
struct CommandResult: Sendable, CustomStringConvertible {
    /// The exit status.
    var status: Int32
    /// Everything written to standard output, as UTF-8.
    var stdout: String
    /// Everything written to standard error, as UTF-8.
    var stderr: String
    /// How long it ran, timed by the thread that waited for its end (`RunningChild.runTime`):
    /// timed in the test, it would count the wait for the test pool to take the test up again.
    var ran: Duration

    var description: String {
        "exit \(status)\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)"
    }
}

/// Why the real executable could not be run.
struct IdeaBoxProcessError: Error, CustomStringConvertible {
    var description: String
}

/// A throwaway home and data root for one test, and a way to run the real, built `ideabox`
/// binary in it with an explicit environment (nothing is inherited from the test runner).
final class Sandbox: Sendable {
    /// The temporary folder holding everything this sandbox made; removed on deinit.
    let directory: URL
    /// `$HOME` of every run.
    let home: URL
    /// `$IDEABOX_HOME` of every run, unless a test overrides it.
    let dataRoot: URL
    /// The environment every run starts from.
    let environment: [String: String]

    /// A sandbox whose runs speak English (or `language`, a `LANG` value) and, unless
    /// `samples` is true, skip the first-launch sample ideas.
    init(samples: Bool = false, language: String = "C.UTF-8") throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ideabox-cli-\(UUID().uuidString)", isDirectory: true)
        home = directory.appendingPathComponent("home", isDirectory: true)
        dataRoot = directory.appendingPathComponent("data", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = [
            "HOME": home.path,
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": language,
            "IDEABOX_HOME": dataRoot.path,
        ]
        if !samples {
            environment["IDEABOX_NO_SAMPLES"] = "1"
        }
        self.environment = environment
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The database file of `profile` under `root` (default: this sandbox's data root).
    func databaseFile(root: URL? = nil, profile: String = "default") -> URL {
        (root ?? dataRoot).appendingPathComponent("profiles/\(profile)/ideabox.sqlite")
    }

    /// Runs `ideabox arguments…`; `changes` sets (or, with nil, removes) environment
    /// variables for this run only; `input` is its standard input (empty if nil). It starts
    /// once one of the shared `RunSlots` is free.
    func run(
        _ arguments: [String], environment changes: [String: String?] = [:], input: Data? = nil
    ) async throws -> CommandResult {
        var environment = self.environment
        for (name, value) in changes {
            environment[name] = value
        }
        let (executable, directory) = (try IdeaBoxBinary.url(), directory)
        return try await RunSlots.shared.run { [environment] in
            try await IdeaBoxBinary.run(
                executable: executable, arguments: arguments, environment: environment, currentDirectory: directory, input: input)
        }
    }

    /// Runs a command that must succeed quietly (exit 0, nothing on stderr) and returns its stdout.
    @discardableResult
    func succeed(
        _ arguments: [String], environment changes: [String: String?] = [:], input: Data? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await run(arguments, environment: changes, input: input)
        #expect(
            result.status == 0 && result.stderr.isEmpty,
            "ideabox \(arguments.joined(separator: " ")) failed:\n\(result)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// Runs a command that must be refused with exactly `message` as the one line on stderr
    /// (after the `ideabox: ` prefix), a non-zero exit and nothing on stdout.
    func expectRejection(
        _ arguments: [String], message: String, environment changes: [String: String?] = [:],
        input: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await run(arguments, environment: changes, input: input)
        #expect(result.status != 0, "expected a failure:\n\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout == "", sourceLocation: sourceLocation)
        #expect(result.stderr == "ideabox: \(message)\n", sourceLocation: sourceLocation)
    }

    /// Makes the profile's database as a first launch does (with the samples, unless this
    /// sandbox or `changes` skip them), writing nothing else; a command that only reads never
    /// makes one. `undone` of a sample that is not done changes nothing; without samples,
    /// `import` of no ideas.
    func launch(
        _ extra: [String] = [], environment changes: [String: String?] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let noSamples = (changes["IDEABOX_NO_SAMPLES"] ?? environment["IDEABOX_NO_SAMPLES"])?.lowercased()
        if ["1", "true", "yes"].contains(noSamples) || extra.contains("--no-samples") {
            try await succeed(["import", "-"] + extra, environment: changes, input: Data("[]".utf8), sourceLocation: sourceLocation)
        } else {
            try await succeed(["undone", "1dea0001"] + extra, environment: changes, sourceLocation: sourceLocation)
        }
    }

    /// Adds an idea and returns its id (the one line `add` prints).
    func add(
        _ title: String, description: String? = nil, done: Bool = false, extra: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        var arguments = ["add", title]
        if let description { arguments += ["-d", description] }
        if done { arguments.append("--done") }
        let output = try await succeed(arguments + extra, sourceLocation: sourceLocation)
        let id = output.trimmingCharacters(in: .newlines)
        #expect(output == id + "\n" && UUID(uuidString: id) != nil && id == id.lowercased(),
                "add printed \(output.debugDescription), not one lower-case id", sourceLocation: sourceLocation)
        return id
    }

    /// `ideabox list --json` (plus `extra`), decoded.
    func ideas(_ extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Idea] {
        let output = try await succeed(["list", "--json"] + extra, sourceLocation: sourceLocation)
        return try JSONDecoder().decode([Idea].self, from: Data(output.utf8))
    }

    /// `ideabox show ID --json`, decoded.
    func idea(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Idea {
        let output = try await succeed(["show", id, "--json"], sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Idea.self, from: Data(output.utf8))
    }

    /// Writes `text` to a file in the sandbox and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}

/// Running the built `ideabox` (found by `IdeaBoxBinary.url()`, in ProcessTestSupport).
extension IdeaBoxBinary {
    /// How long one run may take, by default, before it is killed and reported.
    static let defaultTimeLimit: Duration = .seconds(120)

    /// Runs `executable` to completion (through `ChildProcess`, standard input from `input`,
    /// standard output and error through files), and kills it after `timeLimit`. The wait
    /// holds a thread of its own (`RunningChild.exitStatus`), not the test's.
    static func run(
        executable: URL, arguments: [String], environment: [String: String], currentDirectory: URL,
        input: Data?, timeLimit: Duration = defaultTimeLimit
    ) async throws -> CommandResult {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: files) }
        let (stdin, stdout, stderr) = (
            files.appendingPathComponent("stdin"), files.appendingPathComponent("stdout"), files.appendingPathComponent("stderr")
        )
        if let input { try input.write(to: stdin) }
        let child = try ChildProcess.start(
            executable.path, arguments, environment: environment, directory: currentDirectory.path,
            input: input == nil ? nil : stdin.path, output: stdout.path, error: stderr.path)
        guard let status = try await child.exitStatus(timeLimit: timeLimit) else {
            throw IdeaBoxProcessError(description: "ideabox \(arguments.joined(separator: " ")) took over \(timeLimit.components.seconds) s and was killed.")
        }
        return CommandResult(
            status: status,
            stdout: String(decoding: try Data(contentsOf: stdout), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: stderr), as: UTF8.self),
            ran: child.runTime ?? .zero)
    }
}

/// The outputs `ideabox` should print, written out independently of its own formatting code.
enum Expected {
    /// One list line: the short id, the done mark and the title.
    static func line(_ idea: Idea) -> String {
        "\(idea.idString.prefix(8))  [\(idea.isCompleted ? "x" : " ")] \(idea.title)"
    }

    /// List lines, each ending in a newline.
    static func lines(_ ideas: [Idea]) -> String {
        ideas.map { line($0) + "\n" }.joined()
    }

    /// One idea as pretty-printed JSON with every field, keys sorted, `indent` before each line.
    static func json(_ idea: Idea, indent: String = "") -> String {
        let fields: [(String, String)] = [
            ("createdAt", quoted(idea.createdAt.iso8601)),
            ("description", quoted(idea.description)),
            ("deviceId", quoted(idea.deviceId)),
            ("id", quoted(idea.idString)),
            ("isCompleted", idea.isCompleted ? "true" : "false"),
            ("lastSyncedAt", idea.lastSyncedAt.map { quoted($0.iso8601) } ?? "null"),
            ("title", quoted(idea.title)),
            ("updatedAt", quoted(idea.updatedAt.iso8601)),
            ("version", String(idea.version)),
        ]
        let body = fields.map { "\(indent)  \"\($0.0)\" : \($0.1)" }.joined(separator: ",\n")
        return "\(indent){\n\(body)\n\(indent)}"
    }

    /// A JSON array of ideas as `list --json` prints it (an export of format 1), final newline included.
    static func jsonArray(_ ideas: [Idea]) -> String {
        ideas.isEmpty ? "[]\n" : "[\n" + ideas.map { json($0, indent: "  ") }.joined(separator: ",\n") + "\n]\n"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
