import Foundation
import IdeaBoxFoundation
@testable import IdeaBoxCommandLine
import IdeaModel
import IdeaStore

/// An `ideabox import` file: read as the command reads it (`ExportFile.read`, from a file),
/// then, when it holds ideas, imported as a dry run into an in-memory database holding the
/// samples (`importExport`, what the command calls; a dry run changes nothing, so one
/// database serves every input). Nothing may crash; a refused file is an answer.
enum ImportFuzz {
    /// Where each input is written for the reader: one file of this process's own.
    static let file = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-fuzz-import-\(ProcessInfo.processInfo.processIdentifier).json")
    /// The database the dry runs import into.
    static let repository: IdeaRepository = {
        let clock = WallClock.fixed(Timestamp(milliseconds: 1_750_000_000_000))
        let database = try! IdeaDatabase.inMemory(
            firstLaunch: IdeaDatabase.FirstLaunch(seedsSamples: true, language: .english, clock: clock), ids: .counting())
        return database.repository(clock: clock, ids: .counting(from: 1_000))
    }()

    /// Reads `bytes` as an import file and dry-runs its import.
    static func run(_ bytes: [UInt8]) {
        guard (try? Data(bytes).write(to: file)) != nil else { fuzzFailure("cannot write \(file.path)") }
        guard let ideas = try? ExportFile.read(file.path), !ideas.isEmpty else { return }
        for policy in [HandEditPolicy.apply, .skip] {
            _ = try? repository.importExport(ideas, handEdits: policy, dryRun: true)
        }
    }
}
