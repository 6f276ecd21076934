import ChildProcess
import Foundation
import IdeaModel
import ProcessTestSupport
import Testing

/// `ideabox sync --json`, decoded.
struct SyncOutcome: Decodable, Equatable {
    var sent: Int
    var received: Int
    var conflicts: Int
    var pending: Int
    var syncedAt: String?
}

/// `ideabox status --json`, decoded.
struct SyncStatusOutput: Decodable, Equatable {
    var device: String
    var account: String?
    var isOffline: Bool
    var pendingCount: Int
    var lastSyncAt: String?
    var lastSyncError: String?
    var boundAccount: String?
}

/// One entry of `ideabox log --json`, decoded.
struct SyncLogOutput: Decodable, Equatable {
    var occurredAt: String
    var kind: String
    var message: String
}

/// One entry of `ideabox log --conflicts --json`, decoded.
struct ConflictOutput: Decodable, Equatable {
    var ideaId: String
    var occurredAt: String
    var local: Idea?
    var remote: Idea?
    var resolution: String
}

/// The sync messages `ideabox` prints, written out independently of its code.
enum SyncMessage {
    static let offline = "The network is off; changes wait on this device."
    static let notSignedIn = "Not signed in to an account; ideas stay on this device."
    static let quotaExceeded = "The account's storage is full; ideas stay on this device."

    /// `sync`'s one line after a sync that worked.
    static func synced(sent: Int, received: Int, conflicts: Int = 0) -> String {
        "Synced: \(sent) sent, \(received) received, \(conflicts) \(conflicts == 1 ? "conflict" : "conflicts").\n"
    }
}

/// Several profiles (simulated devices) under the sandbox's one data root.
extension Sandbox {
    /// Runs `ideabox arguments… --profile profile`.
    func run(on profile: String, _ arguments: [String], environment changes: [String: String?] = [:]) async throws -> CommandResult {
        try await run(arguments + ["--profile", profile], environment: changes)
    }

    /// Runs `ideabox arguments… --profile profile`, which must succeed quietly; returns its stdout.
    @discardableResult
    func succeed(
        on profile: String, _ arguments: [String], environment changes: [String: String?] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        try await succeed(arguments + ["--profile", profile], environment: changes, sourceLocation: sourceLocation)
    }

    /// `ideabox … --profile profile` must fail with exactly `message` on stderr.
    func expectRejection(
        on profile: String, _ arguments: [String], message: String, environment changes: [String: String?] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await expectRejection(
            arguments + ["--profile", profile], message: message, environment: changes, sourceLocation: sourceLocation)
    }

    /// Adds an idea on `profile` and returns its id.
    func add(_ title: String, on profile: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await add(title, extra: ["--profile", profile], sourceLocation: sourceLocation)
    }

    /// `ideabox sync --json` on `profile`, which must work.
    @discardableResult
    func sync(_ profile: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> SyncOutcome {
        try await decode(succeed(on: profile, ["sync", "--json"], sourceLocation: sourceLocation))
    }

    /// `ideabox status --json` on `profile`.
    func status(_ profile: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> SyncStatusOutput {
        try await decode(succeed(on: profile, ["status", "--json"], sourceLocation: sourceLocation))
    }

    /// `ideabox list --json` on `profile`.
    func ideas(on profile: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Idea] {
        try await ideas(["--profile", profile], sourceLocation: sourceLocation)
    }

    /// The ideas of `profile` as every device should agree on them: no `lastSyncedAt`,
    /// which is each device's own.
    func syncedState(of profile: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Idea] {
        try await ideas(on: profile, sourceLocation: sourceLocation).map { idea in
            var idea = idea
            idea.lastSyncedAt = nil
            return idea
        }
    }

    private func decode<Value: Decodable>(_ output: String) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(output.utf8))
    }
}

/// `ideabox sync --watch` running on one profile of a sandbox, until `stop`.
struct WatchProcess {
    let child: RunningChild
    let output: URL

    /// What it printed so far.
    var printed: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Waits, looking every 20 ms, until `condition` holds (`Poll.until`); throws, with what it
    /// printed, after 30 s.
    func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        do {
            try await Poll.until(what, timeout: .seconds(30), every: .milliseconds(20)) { try await condition() }
        } catch let timeout as PollTimeout {
            throw IdeaBoxProcessError(description: "\(timeout.description):\n\(printed)")
        }
    }

    /// Sends `signal` and awaits the end; returns the exit status.
    func stop(_ signal: Int32 = SIGTERM) async throws -> Int32 {
        try await child.stop(signal)
    }
}

extension Sandbox {
    /// Starts `ideabox sync --watch` on `profile`.
    func startWatch(on profile: String) throws -> WatchProcess {
        var environment = self.environment
        environment["IDEABOX_PROFILE"] = profile
        let output = directory.appendingPathComponent("watch-\(profile).out")
        let child = try ChildProcess.start(
            IdeaBoxBinary.url().path, ["sync", "--watch"], environment: environment, directory: directory.path,
            output: output.path, error: directory.appendingPathComponent("watch-\(profile).err").path)
        return WatchProcess(child: child, output: output)
    }
}
