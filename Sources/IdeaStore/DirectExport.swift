import Foundation
import IdeaBoxFoundation

/// `export`'s read of every idea through SQLite's C API, without GRDB: the same checks and
/// the same read as opening the database for a reading command and calling
/// `IdeaRepository.forEachIdeaBytes(.all, withStamps: true)` when the idea table is already
/// newest first.
/// GRDB's connection set-up and its statement authorizer are a tenth of an `export`
/// (BENCHMARKS.md, "Everyday commands against taskwarrior").
///
/// It only reads a database this version has prepared, whose WAL holds no upkeep for this
/// command to do, and whose table is in the list's order. Anything else (no file, a
/// migration or the first launch's rows to write, a long WAL, a table out of order, a file
/// SQLite can't read, any error while reading) it leaves to the usual path, which then
/// reads everything again and says what is wrong in its own sentences.
public enum DirectExport {
    /// Hands `body` every idea of the database in `directory` with its field stamps, newest
    /// first, as `forEachIdeaBytes(.all, withStamps: true)` does, and returns true; or returns
    /// false, and then whatever `body` was handed is to be dropped: read through
    /// `IdeaDatabase.open` instead.
    public static func forEachIdea(directory: URL, _ body: (IdeaBytes) -> Void) -> Bool {
        forEachIdea(directoryPath: directory.path, body)
    }

    /// `forEachIdea` for the database in the folder at `directoryPath` (`DataLocation.profileDirectoryPath`).
    public static func forEachIdea(directoryPath: String, _ body: (IdeaBytes) -> Void) -> Bool {
        let path = directoryPath + "/" + IdeaDatabase.fileName
        guard FileManager.default.fileExists(atPath: path),
            IdeaDatabase.walPages(path) < IdeaDatabase.readingCommandWALLimit
        else { return false }
        // As `IdeaDatabase.open` does before it opens: the modes of the folder and the files.
        do {
            try OwnerOnly.createDirectory(path: directoryPath)
            try OwnerOnly.prepareDatabase(path: path)
        } catch {
            return false
        }
        guard let connection = DirectConnection(path: path) else { return false }
        defer { connection.close() }
        // One read transaction, as GRDB's `read`: the checks and the walk see one state.
        guard connection.execute("BEGIN DEFERRED") else { return false }
        defer { connection.rollback() }
        do {
            guard try connection.preparedDeviceId() != nil,
                connection.execute("PRAGMA mmap_size = \(IdeaRepository.wholeListMapSize)")
            else { return false }
            let inOrder = try connection.withStatement(IdeaRepository.newestFirstRowIdsSQL, []) { statement in
                try IdeaRepository.rowIdsGoDown(statement, connection.handle)
            }
            guard inOrder else { return false }
            try connection.withStatement(IdeaRepository.exportWalkSQL, []) { statement in
                try IdeaRepository.stepIdeaBytes(statement, connection.handle, body)
            }
            return true
        } catch {
            return false
        }
    }
}
