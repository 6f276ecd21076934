import ArgumentParser
import Foundation
import IdeaBoxCore
import IdeaStore

/// The commands that need only this profile's database: `ideabox` runs them itself, and
/// hands every other command to `ideabox-full` (see the `ideabox` target).
public enum LocalCommands {
    /// In the order `ideabox help` lists them.
    public static let all: [any ParsableCommand.Type] = [
        AddCommand.self, ListCommand.self, SearchCommand.self, ShowCommand.self, EditCommand.self,
        DoneCommand.self, UndoneCommand.self, RemoveCommand.self, ExportCommand.self, ImportCommand.self,
    ]

    /// Their names on the command line.
    public static var names: Set<String> {
        Set(all.compactMap { $0.configuration.commandName })
    }
}

/// `ideabox add TITLE [-d TEXT] [--done]`
public struct AddCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an idea and print its id.")

    @Argument(help: "The title: one line, at most 256 characters.") var title: String
    @Option(name: [.short, .customLong("description")], help: "The description, at most 4096 characters.")
    var description = ""
    @Flag(help: "Mark the idea done.") var done = false
    @Flag(help: "Print the idea as JSON instead of its id.") var json = false
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        let idea = try context.openRepository(store).addIdea(title: title, description: description, isCompleted: done)
        print(json ? idea.jsonText() : idea.idString)
    }
}

/// `ideabox list [--completed] [--json] [--limit N | --all]`
public struct ListCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "list",
        abstract: "List ideas, newest first: a page (the terminal's height, or 50) unless --all or --limit.")

    @Flag(help: "Only ideas marked done.") var completed = false
    @Flag(help: "Print JSON (every idea unless --limit).") var json = false
    @OptionGroup var page: PageOptions
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        try printIdeas(completed ? .completed : .all, rows: page.rows(json: json), notesMore: page.isDefaultPage(json: json), json: json,
            context: context, store: store)
    }
}

/// `ideabox search QUERY [--json]`
public struct SearchCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "search",
        abstract: "List ideas whose title or description contains QUERY, ignoring case.")

    @Argument(help: "Any text; one or two Chinese characters work too.") var query: String
    @Flag(help: "Print JSON (every match unless --limit).") var json = false
    @OptionGroup var page: PageOptions
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        guard !query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw IdeaStoreError.emptyQuery }
        try printIdeas(.search(query), rows: page.rows(json: json), notesMore: page.isDefaultPage(json: json), json: json,
            context: context, store: store)
    }
}

/// `ideabox show ID [--json]`
public struct ShowCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "show", abstract: "Show every field of an idea.")

    @Argument(help: "The id, or a unique prefix of it.") var id: String
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        let idea = try context.openRepository(store).idea(matching: id)
        print(json ? idea.jsonText() : Output.details(idea, language: context.language))
    }
}

/// `ideabox edit ID [--title T] [--description D]`
public struct EditCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change an idea's title or description.")

    @Argument(help: "The id, or a unique prefix of it.") var id: String
    @Option(help: "The new title.") var title: String?
    @Option(name: [.short, .customLong("description")], help: "The new description.") var description: String?
    @Flag(help: "Print the idea as JSON instead of its id.") var json = false
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        guard title != nil || description != nil else { throw CommandError.nothingToEdit }
        let repository = try context.openRepository(store)
        let idea = try repository.editIdea(
            id: repository.idea(matching: id).id, IdeaChanges(title: title, description: description))
        print(json ? idea.jsonText() : idea.idString)
    }
}

/// `ideabox done ID`
public struct DoneCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "done", abstract: "Mark an idea done.")

    @Argument(help: "The id, or a unique prefix of it.") var id: String
    @Flag(help: "Print the idea as JSON instead of its id.") var json = false
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        try setCompleted(true, id: id, json: json, repository: context.openRepository(store))
    }
}

/// `ideabox undone ID`
public struct UndoneCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "undone", abstract: "Mark an idea not done.")

    @Argument(help: "The id, or a unique prefix of it.") var id: String
    @Flag(help: "Print the idea as JSON instead of its id.") var json = false
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        try setCompleted(false, id: id, json: json, repository: context.openRepository(store))
    }
}

/// `ideabox rm ID`
public struct RemoveCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete an idea.")

    @Argument(help: "The id, or a unique prefix of it.") var id: String
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        let repository = try context.openRepository(store)
        let idea = try repository.deleteIdea(id: repository.idea(matching: id).id)
        print(Output.line(idea))
    }
}

/// `ideabox export > ideas.json`
public struct ExportCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "export",
        abstract: "Print every idea as JSON, every field included; `import` reads it back.")

    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        try printIdeas(.all, rows: nil, notesMore: false, json: true, context: context, store: store)
    }
}

/// `ideabox import FILE`
public struct ImportCommand: IdeaBoxSubcommand {
    public static let configuration = CommandConfiguration(commandName: "import",
        abstract: "Import ideas from a JSON export (`-` reads standard input); all or nothing.")

    @Argument(help: "The file `export` wrote, or `-`.") var file: String
    @OptionGroup var store: StoreOptions

    public init() {}

    public func run(in context: CommandContext) throws {
        let ideas = try readExport(file)
        // Restoring an export into a new directory brings its own ideas: no samples.
        let summary = try context.openRepository(store, seedsSamples: false).importIdeas(ideas)
        print(context.language == .english
            ? "Imported \(summary.inserted) new, \(summary.updated) updated, \(summary.unchanged) unchanged."
            : "已匯入：新增 \(summary.inserted) 筆，更新 \(summary.updated) 筆，未變更 \(summary.unchanged) 筆")
    }

    private func readExport(_ path: String) throws -> [Idea] {
        let data: Data
        do {
            data = path == "-"
                ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandError.unreadableFile(path, reason: (error as NSError).localizedDescription)
        }
        do {
            return try JSONDecoder().decode([Idea].self, from: data)
        } catch let error as DecodingError {
            throw CommandError.invalidJSON(path, reason: Self.describe(error))
        }
    }

    /// A decoding error in one line: where in the file, and what was wrong.
    private static func describe(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        var detail: String
        switch error {
        case let .dataCorrupted(errorContext):
            context = errorContext
            detail = errorContext.underlyingError.map { ($0 as NSError).localizedDescription } ?? errorContext.debugDescription
            if context.codingPath.isEmpty { detail = "not JSON (\(detail))" }
        case let .keyNotFound(key, errorContext):
            context = errorContext
            detail = "missing \"\(key.stringValue)\""
        case let .typeMismatch(_, errorContext), let .valueNotFound(_, errorContext):
            context = errorContext
            detail = errorContext.debugDescription
        @unknown default:
            return String(describing: error)
        }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return (path.isEmpty ? "" : "at \(path): ") + detail + (detail.hasSuffix(".") ? "" : ".")
    }
}

/// `--limit N` or `--all`: how many rows `list` and `search` print.
struct PageOptions: ParsableArguments {
    @Option(help: "Print at most this many.") var limit: Int?
    @Flag(help: "Print every one.") var all = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        if all && limit != nil { throw ValidationError("--all and --limit don't go together.") }
    }

    /// Whether neither `--limit` nor `--all` was given, for text: a page, which names the rest.
    func isDefaultPage(json: Bool) -> Bool {
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

/// Prints at most `rows` of the ideas `filter` selects (all if nil), reading no more rows
/// than it shows (and one to know whether more are left), through one buffered writer. A
/// default page that leaves ideas out says so on standard error (`notesMore`).
private func printIdeas(
    _ filter: IdeaFilter, rows: Int?, notesMore: Bool, json: Bool, context: CommandContext, store: StoreOptions
) throws {
    let repository = try context.openRepository(store)
    var output = Output.BufferedWriter()
    var writer = Output.JSONArrayWriter()
    var printed = 0, isCut = false
    try repository.forEachIdea(filter, limit: rows.map { $0 + 1 }) { idea in
        if let rows, printed == rows {
            isCut = true
            return
        }
        printed += 1
        if json {
            writer.write(idea, to: &output)
        } else {
            output.write(Output.line(idea))
            output.write("\n")
        }
    }
    if json { writer.finish(to: &output) }
    output.flush()
    if isCut && notesMore {
        Output.note(context.language == .english
            ? "… more not shown: --all prints every one, --limit N that many."
            : "… 其餘未顯示：--all 列出全部，--limit N 列出 N 筆。")
    }
}

private func setCompleted(_ isCompleted: Bool, id: String, json: Bool, repository: IdeaRepository) throws {
    let idea = try repository.setCompleted(isCompleted, id: repository.idea(matching: id).id)
    print(json ? idea.jsonText() : idea.idString)
}
