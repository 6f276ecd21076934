import ArgumentParser
import Foundation
import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// The commands that need only this profile's database: `ideabox` runs them itself, and
/// hands every other command to `ideabox-full` (see the `ideabox` target).
public enum LocalCommands {
    /// In the order `ideabox help` lists them.
    public static let all: [any ParsableCommand.Type] = [
        Add.self, List.self, Search.self, Show.self, Edit.self,
        Done.self, Undone.self, Remove.self, History.self, Restore.self, Export.self, Import.self, Repair.self,
    ]

    /// Their names on the command line.
    public static var names: Set<String> {
        Set(all.compactMap { $0.configuration.commandName })
    }
}

extension LocalCommands {
    /// `ideabox add [TITLE] [-d TEXT] [--done]`: without a title, on a terminal, in the editor.
    public struct Add: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an idea and print its id.")

        @Argument(help: "The title: one line, at most 256 characters. Without it, on a terminal, the idea is written in $VISUAL, $EDITOR or vi (the title, a blank line, the description).")
        var title: String?
        @Option(name: [.short, .customLong("description")], help: "The description, at most 4096 characters.")
        var description = ""
        @Flag(help: "Mark the idea done.") var done = false
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .add(title: title, description: description, done: done, json: json) }
    }

    /// `ideabox list [--completed] [--sort created|updated|title] [--reverse] [--json] [--limit N | --all]`
    public struct List: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "list",
            abstract: "List ideas, newest first: a page (the terminal's height, or 50) unless --all or --limit.")

        @Flag(help: "Only ideas marked done.") var completed = false
        @Option(help: ArgumentHelp(
            "created (newest first, the default), updated (last changed first) or title (A to Z, Chinese after Latin by radical and strokes).",
            valueName: "order"))
        var sort: String?
        @Flag(help: "Turn the order round (oldest first; Z to A).") var reverse = false
        @Flag(help: "Print JSON (every idea unless --limit).") var json = false
        @OptionGroup var page: PageOptions
        @OptionGroup public var store: StoreOptions

        public init() {}

        public func validate() throws {
            if let sort, IdeaOrder.Key(rawValue: sort) == nil {
                let language = Language.preferred(environment: EnvironmentVariables.process)
                throw ValidationError(CommandLineText.unknownSort(sort, language))
            }
        }

        public var command: LocalCommand {
            let order = IdeaOrder(sort.flatMap(IdeaOrder.Key.init(rawValue:)) ?? .created, isReversed: reverse)
            return .list(completed: completed, json: json, page: page.page, order: order)
        }
    }

    /// `ideabox search QUERY [--json]`
    public struct Search: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "search",
            abstract: "List ideas whose title or description contains QUERY, ignoring case.")

        @Argument(help: "Any text; one or two Chinese characters work too.") var query: String
        @Flag(help: "Print JSON (every match unless --limit).") var json = false
        @OptionGroup var page: PageOptions
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .search(query: query, json: json, page: page.page) }
    }

    /// `ideabox show ID [--json]`
    public struct Show: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "show", abstract: "Show every field of an idea.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .show(id: id, json: json) }
    }

    /// `ideabox edit ID [--title T] [--description D]`
    public struct Edit: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "edit",
            abstract: "Change an idea's title or description; with neither, on a terminal, in $VISUAL, $EDITOR or vi.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @Option(help: "The new title.") var title: String?
        @Option(name: [.short, .customLong("description")], help: "The new description.") var description: String?
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .edit(id: id, title: title, description: description, json: json) }
    }

    /// `ideabox done ID`
    public struct Done: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "done", abstract: "Mark an idea done.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .setCompleted(true, id: id, json: json) }
    }

    /// `ideabox history ID [--json]`
    public struct History: LocalSubcommand {
        public static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "List every version of an idea this device knows, the current one first.",
            discussion: """
                Every value the idea had here: its edits, versions received from other devices \
                and values that lost a merge, for 30 days and at least the last 50. Deleted \
                ideas keep theirs. `ideabox restore ID VERSION` makes a version current again.
                """)

        @Argument(help: "The id, or a unique prefix of it (a deleted idea's too).") var id: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .history(id: id, json: json) }
    }

    /// `ideabox restore ID VERSION`
    public struct Restore: LocalSubcommand {
        public static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Make a version from an idea's history the current one, as a new edit.")

        @Argument(help: "The id, or a unique prefix of it (a deleted idea's too).") var id: String
        @Argument(help: "The version's number, as `ideabox history` lists it.") var version: Int64
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .restore(id: id, version: version, json: json) }
    }

    /// `ideabox undone ID`
    public struct Undone: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "undone", abstract: "Mark an idea not done.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @Flag(help: "Print the idea as JSON instead of its id.") var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .setCompleted(false, id: id, json: json) }
    }

    /// `ideabox rm ID`
    public struct Remove: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete an idea.")

        @Argument(help: "The id, or a unique prefix of it.") var id: String
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .remove(id: id) }
    }

    /// `ideabox export > ideas.json`, `ideabox export --output ideas.json`
    public struct Export: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "export",
            abstract: "Print every idea as JSON, every field and its stamp included; `import` reads it back.",
            discussion: "All or nothing: an export that can't read every idea prints nothing, and leaves --output's file as it was.")

        @Option(name: [.short, .customLong("output")], help: ArgumentHelp(
            "Write to this file instead, replacing it only once the whole export is written.", valueName: "file"))
        var output: String?
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .export(output: output) }
    }

    /// `ideabox import FILE [--dry-run] [--skip-hand-edits]`
    public struct Import: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "import",
            abstract: "Import ideas from a JSON export (`-` reads standard input); all or nothing.",
            discussion: """
                Each field is merged by the stamps the export holds, as a sync merges: an import never replaces a newer edit. \
                A value that differs from this device's where no stamp says which is newer (a file edited by hand) is \
                written as a new edit, and named.
                """)

        @Argument(help: "The file `export` wrote, or `-`.") var file: String
        @Flag(help: "Print what the import would change, and change nothing.") var dryRun = false
        @Flag(help: "Don't write values edited by hand in the file; only name them.") var skipHandEdits = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .import(file: file, dryRun: dryRun, handEdits: skipHandEdits ? .skip : .apply) }
    }
}

/// A local command as ArgumentParser reads it: its values, and the profile it works on.
public protocol LocalSubcommand: IdeaBoxSubcommand {
    /// The command and its arguments.
    var command: LocalCommand { get }
    /// Which profile's data.
    var store: StoreOptions { get }
}

extension LocalSubcommand {
    public func run(in context: CommandContext) throws {
        try command.run(store: store.selection, context: context)
    }
}

/// `--limit N` or `--all`: how many rows `list` and `search` print.
struct PageOptions: ParsableArguments {
    // Unconditional, so that `--limit -3` reaches `validate()` rather than reading as an option.
    @Option(parsing: .unconditional, help: "Print at most this many (1 or more).") var limit: Int?
    @Flag(help: "Print every one.") var all = false

    func validate() throws {
        let language = Language.preferred(environment: EnvironmentVariables.process)
        if let limit, limit < 1 { throw ValidationError(CommandLineText.limitNotPositive(limit, language)) }
        if all && limit != nil { throw ValidationError(CommandLineText.allWithLimit(language)) }
    }

    var page: LocalCommand.Page { LocalCommand.Page(limit: limit, all: all) }
}
