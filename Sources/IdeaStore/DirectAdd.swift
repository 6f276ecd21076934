import Foundation
import GRDB
import IdeaBoxFoundation
import IdeaModel

/// `ideabox add` through SQLite's C API, without GRDB: the same checks, statements, single
/// transaction and sentences as opening the database for a command and calling
/// `IdeaRepository.addIdea`, for about a third less of the command's time. GRDB's connection
/// set-up (its functions, collations and statement authorizer, a dispatch queue, a Swift
/// object for every statement) cost more than the add's own SQL (BENCHMARKS.md, "Everyday
/// commands against taskwarrior").
///
/// It only adds to a database this version has opened and prepared before. Anything else (no
/// file yet, a migration or the first launch's rows to write, a file SQLite can't read) it
/// leaves to the usual path, having written nothing, so that path's behaviour and errors
/// hold for every such case.
public enum DirectAdd {
    /// Adds an idea to the database in `directory`, stamped by `clock`, its id from `ids`,
    /// and returns it as stored; nil, with nothing written, if the database is not one this
    /// version has prepared (open it with `IdeaDatabase.open` and add through its repository
    /// instead). Bad text throws `IdeaValidationError`; a full disk, a damaged file or one
    /// that can't be written throws a `StorageError` naming `options`.
    public static func addIdea(
        title: String, description: String, isCompleted: Bool, directory: URL, clock: WallClock, ids: IdGenerator,
        options: [String] = []
    ) throws -> Idea? {
        try addIdea(
            title: title, description: description, isCompleted: isCompleted, directoryPath: directory.path, clock: clock,
            ids: ids, options: options)
    }

    /// `addIdea` for the database in the folder at `directoryPath` (`DataLocation.profileDirectoryPath`).
    public static func addIdea(
        title: String, description: String, isCompleted: Bool, directoryPath: String, clock: WallClock, ids: IdGenerator,
        options: [String] = []
    ) throws -> Idea? {
        let path = directoryPath + "/" + IdeaDatabase.fileName
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        // As `IdeaDatabase.open` does before it opens: the modes of the folder and the files.
        do {
            try OwnerOnly.createDirectory(path: directoryPath)
            try OwnerOnly.prepareDatabase(path: path)
        } catch {
            return nil
        }
        guard let connection = DirectConnection(path: path) else { return nil }
        defer { connection.close() }
        do {
            guard try connection.begin(), let deviceId = try connection.preparedDeviceId() else {
                connection.rollback()
                return nil
            }
            // After the database is known to be usable, as `addIdea` on an opened one checks.
            let title = try IdeaRules.normalizedTitle(title)
            let description = try IdeaRules.normalizedDescription(description)
            let highest = try connection.int64(IdeaRepository.metaValueSQL, MetaKey.highestTimestamp)
            let estimate = RemoteClockEstimate(
                offset: try connection.int64(IdeaRepository.metaValueSQL, MetaKey.remoteClockOffset),
                measuredAt: try connection.int64(IdeaRepository.metaValueSQL, MetaKey.remoteClockMeasuredAt),
                measuredAtElapsed: try connection.int64(IdeaRepository.metaValueSQL, MetaKey.remoteClockMeasuredElapsed))
            let now = IdeaRepository.stamp(now: RemoteClockEstimate.remoteTime(on: clock, by: estimate), highestSeen: highest)
            try connection.run(IdeaRepository.noteSeenSQL, [.text(MetaKey.highestTimestamp), .integer(now.milliseconds)])
            let idea = Idea(
                id: ids.next(), title: title, description: description, isCompleted: isCompleted,
                createdAt: now, updatedAt: now, deviceId: deviceId, version: 0)
            let stamps = FieldStamps(all: SyncOrder(idea))
            let text = SearchText.Indexed(title: idea.title, description: idea.description)
            try connection.run(IdeaRepository.insertIdeaSQL, [
                .text(idea.idString), .text(idea.title), .text(idea.description), .integer(idea.isCompleted ? 1 : 0),
                .integer(idea.createdAt.milliseconds), .integer(idea.updatedAt.milliseconds), .text(idea.deviceId),
                .integer(Int64(idea.version)), .null, .text(text.foldedTitle), .text(text.foldedDescription),
                .integer(stamps.title.timestamp.milliseconds), .text(stamps.title.deviceId),
                .integer(stamps.description.timestamp.milliseconds), .text(stamps.description.deviceId),
                .integer(stamps.isCompleted.timestamp.milliseconds), .text(stamps.isCompleted.deviceId),
            ])
            let localId = connection.lastInsertedRowID
            // A deleted idea's search entries left on this row id go first (`SearchText.clearClash`).
            if let (foldedTitle, foldedDescription) = try connection.textPair(SearchText.clashSQL, [.integer(localId)]) {
                try connection.run(SearchText.unindexTrigramSQL, [.integer(localId), .text(foldedTitle), .text(foldedDescription)])
                try connection.run(
                    SearchText.unindexShortGramSQL,
                    [.integer(localId), .text(SearchText.shortGrams(foldedTitle, foldedDescription))])
                try connection.run(SearchText.clearedSQL, [.integer(localId)])
            }
            try connection.run(SearchText.indexTrigramSQL, [.integer(localId), .text(text.foldedTitle), .text(text.foldedDescription)])
            try connection.run(SearchText.indexShortGramSQL, [.integer(localId), .text(text.grams)])
            try connection.run(
                IdeaRepository.enqueueSQL,
                [.text(idea.idString), .text(IdeaRepository.OutboxOperation.save.rawValue), .integer(now.milliseconds)])
            try connection.run(IdeaRepository.bumpRevisionSQL, [.text(MetaKey.revision)])
            try connection.commit()
            return idea
        } catch let error as DatabaseError {
            connection.rollback()
            throw StorageError(error, directory: URL(fileURLWithPath: directoryPath, isDirectory: true), options: options) ?? error
        } catch {
            connection.rollback()
            throw error
        }
    }
}
