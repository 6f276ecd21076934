import Foundation
import IdeaModel
import IdeaStore
import Synchronization

/// One local command with its arguments as plain values, whichever parser read them: the
/// ArgumentParser commands (`LocalCommands.Add`, …) or `FastCommandLine`. Its `run` is the
/// command's whole work.
public enum LocalCommand: Equatable, Sendable {
    /// `add`; without a title, the idea is written in the person's editor (on a terminal).
    case add(title: String?, description: String, done: Bool, json: Bool)
    case list(completed: Bool, json: Bool, page: Page, order: IdeaOrder = .newestFirst)
    case search(query: String, json: Bool, page: Page)
    case show(id: String, json: Bool)
    case edit(id: String, title: String?, description: String?, json: Bool)
    case setCompleted(Bool, id: String, json: Bool)
    case remove(id: String)
    case history(id: String, json: Bool)
    case restore(id: String, version: Int64, json: Bool)
    /// `export`, to standard output or (`output`) a file it replaces whole.
    case export(output: String?)
    /// `import`; with `dryRun` it only prints what it would change.
    case `import`(file: String, dryRun: Bool = false, handEdits: HandEditPolicy = .apply)

    /// `--limit N` or `--all`: how many rows `list` and `search` print.
    public struct Page: Equatable, Sendable {
        public var limit: Int?
        public var all: Bool

        public init(limit: Int? = nil, all: Bool = false) {
            self.limit = limit
            self.all = all
        }

        /// Whether neither `--limit` nor `--all` was given, for text: a page, which names the rest.
        func isDefault(json: Bool) -> Bool {
            limit == nil && !all && !json
        }

        /// The most rows to print: `--limit`; everything with `--all` or as JSON; otherwise a
        /// page, like `task list`: the terminal's height less a line for the prompt and one for
        /// the "more" note, or 50 when the output is not a terminal.
        func rows(json: Bool) -> Int? {
            if let limit { return limit }
            if all || json { return nil }
            var size = winsize()
            guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 50 }
            return max(1, Int(size.ws_row) - 2)
        }
    }

    /// Whether the command opens the person's editor: `add` without a title or `edit` without
    /// a change, on a terminal (off one, both ask for what is missing instead).
    public var opensEditor: Bool {
        switch self {
        case .add(nil, _, _, _), .edit(_, nil, nil, _): EditorCommand.isOnTerminal
        default: false
        }
    }

    /// Does the command's work on the profile `store` selects.
    public func run(store: StoreSelection, context: CommandContext) throws {
        switch self {
        case let .add(title, description, done, json):
            guard let title else { return try Self.addInEditor(description: description, done: done, json: json, context: context, store: store) }
            let idea = try Self.addIdea(title: title, description: description, done: done, context: context, store: store)
            print(json ? idea.jsonText() : idea.idString)
        case let .list(completed, json, page, order):
            try Self.printIdeas(
                completed ? .completed : .all, order: order, rows: page.rows(json: json), notesMore: page.isDefault(json: json),
                json: json, context: context, store: store)
        case let .search(query, json, page):
            guard !query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw IdeaStoreError.emptyQuery }
            try Self.printIdeas(
                .search(query), rows: page.rows(json: json), notesMore: page.isDefault(json: json), json: json,
                context: context, store: store, noteIfNone: CommandLineText.noMatch(query, context.language))
        case let .show(id, json):
            let repository = try Self.openRepository(store, context, readsOnly: true)
            let idea = try repository.idea(matching: id)
            print(json ? idea.jsonText() : Output.details(idea, language: context.language, names: try repository.deviceNames()))
        case let .edit(id, title, description, json):
            guard title != nil || description != nil else {
                guard EditorCommand.isOnTerminal else { throw CommandError.nothingToEdit }
                return try Self.editInEditor(id: id, json: json, context: context, store: store)
            }
            let repository = try Self.openRepository(store, context)
            let idea = try repository.editIdea(
                id: repository.idea(matching: id).id, IdeaChanges(title: title, description: description))
            print(json ? idea.jsonText() : idea.idString)
        case let .setCompleted(isCompleted, id, json):
            let repository = try Self.openRepository(store, context)
            let idea = try repository.setCompleted(isCompleted, id: repository.idea(matching: id).id)
            print(json ? idea.jsonText() : idea.idString)
        case let .remove(id):
            let repository = try Self.openRepository(store, context)
            let idea = try repository.deleteIdea(id: repository.idea(matching: id).id)
            print(Output.line(idea))
        case let .history(id, json):
            let repository = try Self.openRepository(store, context, readsOnly: true)
            let versions = try repository.history(of: repository.ideaIdWithHistory(matching: id))
            let names = try repository.deviceNames()
            print(
                json
                    ? try Output.json(versions.map { HistoryJSON($0, names: names) })
                    : Output.history(versions, language: context.language, names: names))
        case let .restore(id, version, json):
            let repository = try Self.openRepository(store, context)
            let idea = try repository.restoreVersion(version, of: repository.ideaIdWithHistory(matching: id))
            print(json ? idea.jsonText() : idea.idString)
        case let .export(output):
            try Self.export(to: output, context: context, store: store)
        case let .import(file, dryRun, handEdits):
            try Self.importFile(file, dryRun: dryRun, handEdits: handEdits, context: context, store: store)
        }
    }

    /// Adds an idea to the profile `store` selects: through SQLite's C API when its database is
    /// one this version has prepared (`DirectAdd`), else by opening it as every command does.
    private static func addIdea(
        title: String, description: String, done: Bool, context: CommandContext, store: StoreSelection
    ) throws -> Idea {
        let location = try context.location(store)
        if let idea = try DirectAdd.addIdea(
            title: title, description: description, isCompleted: done, directoryPath: location.profileDirectoryPath,
            clock: context.clock, ids: .random, options: store.commandLineOptions)
        {
            return idea
        }
        // Someone who starts from the shell starts with their own ideas, not the samples.
        return try Self.openRepository(store, context, seedsSamples: false)
            .addIdea(title: title, description: description, isCompleted: done)
    }

    /// `add` with no title, on a terminal: the idea written in the editor (the description
    /// given with `-d` already in it).
    private static func addInEditor(description: String, done: Bool, json: Bool, context: CommandContext, store: StoreSelection) throws {
        guard EditorCommand.isOnTerminal else { throw CommandError.titleNeeded }
        let text = try EditorCommand.edit(IdeaText(title: "", description: description), adding: true, context: context)
        let idea = try EditorCommand.saving(text) {
            try Self.openRepository(store, context, seedsSamples: false)
                .addIdea(title: text.title, description: text.description, isCompleted: done)
        }
        print(json ? idea.jsonText() : idea.idString)
    }

    /// `edit ID` with no change given, on a terminal: the idea opened in the editor, and the
    /// fields the person changed there written.
    private static func editInEditor(id: String, json: Bool, context: CommandContext, store: StoreSelection) throws {
        try context.requireExistingData(store)
        let repository = try Self.openRepository(store, context)
        let original = try repository.idea(matching: id)
        let text = try EditorCommand.edit(
            IdeaText(title: original.title, description: original.description), adding: false, context: context)
        let idea = try EditorCommand.saving(text) {
            try repository.editIdea(id: original.id, IdeaChanges(
                title: text.title == original.title ? nil : text.title,
                description: text.description == original.description ? nil : text.description))
        }
        print(json ? idea.jsonText() : idea.idString)
    }

    /// The repositories this process's command opened, kept open until the process exits.
    /// Closing does no work SQLite needs (a command leaves the WAL to the next process), and
    /// releasing GRDB's serial queue wakes Dispatch, which starts a worker thread: 3–5% of a
    /// command (BENCHMARKS.md, "Everyday commands against taskwarrior").
    private static let openUntilExit = Mutex<[IdeaRepository]>([])

    /// Opens the database `store` selects for this command, for the rest of the process; a
    /// command that `readsOnly` refuses a profile without one rather than create it.
    private static func openRepository(
        _ store: StoreSelection, _ context: CommandContext, seedsSamples: Bool = true, readsOnly: Bool = false
    ) throws -> IdeaRepository {
        if readsOnly { try context.requireExistingData(store) }
        let repository = try context.openRepository(store, seedsSamples: seedsSamples, use: readsOnly ? .readingCommand : .command)
        openUntilExit.withLock { $0.append(repository) }
        return repository
    }

    /// Writes every idea with its field stamps (`ExportFile`) to standard output, or to
    /// `file`, which it replaces whole. The JSON is written in pieces to a temporary file
    /// (`OutputFile`) and put out whole at the end: a read that fails half way (a damaged
    /// database) writes nothing and leaves `file` as it was, and a million ideas take a few
    /// buffers of memory, not the file.
    ///
    /// It reads through SQLite's C API when it can (`DirectExport`), else by opening the
    /// database as every command does, having dropped what that read made.
    private static func export(to file: String?, context: CommandContext, store: StoreSelection) throws {
        try context.requireExistingData(store)
        let destination = try OutputFile(replacing: file)
        defer { destination.close() }
        var output = Output.BufferedWriter(descriptor: destination.descriptor)
        var writer = ExportFile.Writer()
        let read = DirectExport.forEachIdea(directoryPath: try context.location(store).profileDirectoryPath) { idea in
            writer.write(idea, to: &output)
        }
        if !read {
            output.discard()
            try destination.restart()
            writer = ExportFile.Writer()
            try Self.openRepository(store, context, readsOnly: true).forEachIdeaBytes(.all, withStamps: true) { idea in
                writer.write(idea, to: &output)
            }
        }
        writer.finish(to: &output)
        output.flush()
        if let failure = output.failure { throw destination.failure(failure) }
        try destination.commit()
    }

    /// Imports the export `file`, all or nothing, and says what it did: the counts, then the
    /// ideas with values edited by hand in the file. With `dryRun` it changes nothing (not even
    /// a profile that isn't there yet) and lists every idea it would change.
    private static func importFile(
        _ file: String, dryRun: Bool, handEdits: HandEditPolicy, context: CommandContext, store: StoreSelection
    ) throws {
        let ideas = try ExportFile.read(file)
        let summary: ImportSummary
        if dryRun {
            do {
                summary = try Self.openRepository(store, context, readsOnly: true).importExport(ideas, handEdits: handEdits, dryRun: true)
            } catch CommandError.noData {
                summary = ImportSummary(addingAll: ideas)
            }
        } else {
            // Restoring an export into a new directory brings its own ideas: no samples.
            summary = try Self.openRepository(store, context, seedsSamples: false).importExport(ideas, handEdits: handEdits)
        }
        print(CommandLineText.importReport(summary, dryRun: dryRun, handEdits: handEdits, context.language))
    }

    /// Prints at most `rows` of the ideas `filter` selects (all if nil), reading no more rows
    /// than it shows (and one to know whether more are left), through one buffered writer. A
    /// default page that leaves ideas out says so on standard error (`notesMore`), and so
    /// does text output with no idea at all (`noteIfNone`); JSON stays quiet.
    private static func printIdeas(
        _ filter: IdeaFilter, order: IdeaOrder = .newestFirst, rows: Int?, notesMore: Bool, json: Bool,
        context: CommandContext, store: StoreSelection, noteIfNone: String? = nil
    ) throws {
        let repository = try Self.openRepository(store, context, readsOnly: true)
        // All or nothing, as `export`: a read that fails half way (a damaged database) prints
        // none of the rows before it, only the sentence that names the damage.
        var output = Output.BufferedWriter(holdsEverything: true)
        var writer = Output.JSONArrayWriter()
        var printed = 0, isCut = false
        if json {
            // Straight from the rows to the output: no `Idea` made of each.
            try repository.forEachIdeaBytes(filter, order: order, limit: rows) { idea in
                writer.write(idea, to: &output)
            }
        } else {
            try repository.forEachIdea(filter, order: order, limit: rows.map { $0 + 1 }) { idea in
                if let rows, printed == rows {
                    isCut = true
                    return
                }
                printed += 1
                output.write(Output.line(idea))
                output.write("\n")
            }
        }
        if json { writer.finish(to: &output) }
        output.flush()
        if !json && printed == 0, let noteIfNone {
            Output.note(noteIfNone)
        }
        if isCut && notesMore {
            Output.note(CommandLineText.moreNotShown(context.language))
        }
    }
}
