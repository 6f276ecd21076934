import ChildProcess
import Foundation
import ProcessTestSupport

/// One device's data root, used through `ideabox` commands without the full-screen app.
final class DeviceProcess {
    let dataRoot = FileManager.default.temporaryDirectory
        .appendingPathComponent("ideabox-device-\(UUID().uuidString)", isDirectory: true)
    private let ideabox: URL
    private var runs = 0
    /// Whether a new profile starts with the seven samples.
    private let samples: Bool

    /// A device whose new profiles start without samples, or with them (`samples`).
    init(samples: Bool = false) throws {
        self.samples = samples
        ideabox = try IdeaBoxBinary.url()
        try FileManager.default.createDirectory(at: dataRoot, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: dataRoot)
    }

    /// Runs `ideabox arguments…`, with `extra` in its environment (`LANG`,
    /// `IDEABOX_CLOCK_OFFSET_MS`) and `input` on its standard input; returns its status and output.
    func execute(
        _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil
    ) async throws -> (status: Int32, output: String, error: String) {
        let result = try await timedExecute(arguments, environment: extra, input: input)
        return (result.status, result.output, result.error)
    }

    /// `execute`, and how long the command ran, timed on the thread that waits for it
    /// (`RunningChild.runTime`: timed in the test, it would count the wait for the test pool
    /// to take the test up again).
    func timedExecute(
        _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil
    ) async throws -> (status: Int32, output: String, error: String, took: Duration) {
        let (output, error) = files()
        let inputFile = input.map { _ in output.appendingPathExtension("in") }
        if let inputFile, let input { try Data(input.utf8).write(to: inputFile) }
        let child = try ChildProcess.start(
            ideabox.path, arguments, environment: environment.merging(extra) { $1 }, input: inputFile?.path,
            output: output.path, error: error.path)
        let status = try await child.exitStatus()
        return (status, try String(contentsOf: output, encoding: .utf8), try String(contentsOf: error, encoding: .utf8), child.runTime ?? .zero)
    }

    /// Runs `ideabox arguments…`, which must succeed; returns standard output.
    @discardableResult
    func run(_ arguments: [String], environment extra: [String: String] = [:], input: String? = nil) async throws -> String {
        let result = try await execute(arguments, environment: extra, input: input)
        guard result.status == 0 else {
            throw EndToEndError(description: "ideabox \(arguments.joined(separator: " ")) exited \(result.status): \(result.error)")
        }
        return result.output
    }

    /// Starts `ideabox arguments…` and returns at once.
    func start(_ arguments: [String]) throws -> RunningChild {
        let (output, error) = files()
        return try ChildProcess.start(ideabox.path, arguments, environment: environment, output: output.path, error: error.path)
    }

    /// Starts `ideabox arguments…` and returns at once, with its standard output's lines as
    /// they come.
    func startReadingOutput(
        _ arguments: [String], environment extra: [String: String] = [:]
    ) throws -> (child: RunningChild, output: OutputLines) {
        let (file, error) = files()
        let output = try OutputLines(path: file.appendingPathExtension("fifo"))
        return (
            try ChildProcess.start(
                ideabox.path, arguments, environment: environment.merging(extra) { $1 }, output: output.path.path, error: error.path),
            output
        )
    }

    /// Everything the commands run so far printed, standard output and error.
    func everythingPrinted() throws -> String {
        try (1...max(runs, 1)).flatMap { run in
            ["run-\(run).out", "run-\(run).err"].compactMap { try? String(contentsOf: file($0), encoding: .utf8) }
        }.joined(separator: "\n")
    }

    /// A file in the data root.
    func file(_ name: String) -> URL {
        dataRoot.appendingPathComponent(name)
    }

    private var environment: [String: String] {
        [
            "HOME": dataRoot.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
            "IDEABOX_HOME": dataRoot.path, "IDEABOX_NO_SAMPLES": samples ? "0" : "1",
        ]
    }

    private func files() -> (output: URL, error: URL) {
        runs += 1
        return (file("run-\(runs).out"), file("run-\(runs).err"))
    }
}
