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
        public static let configuration = CommandConfiguration(commandName: "add", abstract: .english("Add an idea and print its id.", chinese: "新增一筆靈感並印出它的識別碼。"))

        @Argument(help: .english("The title: one line, at most 256 characters. Without it, on a terminal, the idea is written in $VISUAL, $EDITOR or vi (the title, a blank line, the description).", chinese: "標題：一行，最多 256 個字元。沒給標題時，在終端機中用 $VISUAL、$EDITOR 或 vi 撰寫（標題、一行空白、描述）。"))
        var title: String?
        @Option(name: [.short, .customLong("description")], help: .english("The description, at most 4096 characters.", chinese: "描述，最多 4096 個字元。"))
        var description = ""
        @Flag(help: .english("Mark the idea done.", chinese: "把這筆靈感標示為完成。")) var done = false
        @Flag(help: .english("Print the idea as JSON instead of its id.", chinese: "以 JSON 印出這筆靈感，而不是它的識別碼。")) var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .add(title: title, description: description, done: done, json: json) }
    }

    /// `ideabox list [--completed] [--sort created|updated|title] [--reverse] [--json] [--limit N | --all]`
    public struct List: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "list",
            abstract: .english("List ideas, newest first: a page (the terminal's height, or 50) unless --all or --limit.", chinese: "列出靈感，最新的在前：一頁（終端機的高度，或 50 筆），除非用 --all 或 --limit。"))

        @Flag(help: .english("Only ideas marked done.", chinese: "只列出已完成的靈感。")) var completed = false
        @Option(help: ArgumentHelp(
            .english("created (newest first, the default), updated (last changed first) or title (A to Z, Chinese after Latin by radical and strokes).", chinese: "created（最新的在前，預設）、updated（最近變更的在前）或 title（A 到 Z，中文在拉丁字母之後，依部首與筆畫）。"),
            valueName: "order"))
        var sort: String?
        @Flag(help: .english("Turn the order round (oldest first; Z to A).", chinese: "反轉順序（最舊的在前；Z 到 A）。")) var reverse = false
        @Flag(help: .english("Print JSON (every idea unless --limit).", chinese: "印出 JSON（除非用 --limit，否則是每筆靈感）。")) var json = false
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
            abstract: .english("List ideas whose title or description contains QUERY, ignoring case.", chinese: "列出標題或描述包含 QUERY 的靈感，不分大小寫。"))

        @Argument(help: .english("Any text; one or two Chinese characters work too.", chinese: "任何文字；一兩個中文字也可以。")) var query: String
        @Flag(help: .english("Print JSON (every match unless --limit).", chinese: "印出 JSON（除非用 --limit，否則是每筆符合的靈感）。")) var json = false
        @OptionGroup var page: PageOptions
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .search(query: query, json: json, page: page.page) }
    }

    /// `ideabox show ID [--json]`
    public struct Show: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "show", abstract: .english("Show every field of an idea.", chinese: "顯示一筆靈感的每個欄位。"))

        @Argument(help: .english("The id, or a unique prefix of it.", chinese: "識別碼，或它唯一的開頭。")) var id: String
        @Flag(help: .english("Print JSON.", chinese: "印出 JSON。")) var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .show(id: id, json: json) }
    }

    /// `ideabox edit ID [--title T] [--description D]`
    public struct Edit: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "edit",
            abstract: .english("Change an idea's title or description; with neither, on a terminal, in $VISUAL, $EDITOR or vi.", chinese: "修改一筆靈感的標題或描述；兩者都沒給時，在終端機中用 $VISUAL、$EDITOR 或 vi 編輯。"))

        @Argument(help: .english("The id, or a unique prefix of it.", chinese: "識別碼，或它唯一的開頭。")) var id: String
        @Option(help: .english("The new title.", chinese: "新的標題。")) var title: String?
        @Option(name: [.short, .customLong("description")], help: .english("The new description.", chinese: "新的描述。")) var description: String?
        @Flag(help: .english("Print the idea as JSON instead of its id.", chinese: "以 JSON 印出這筆靈感，而不是它的識別碼。")) var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .edit(id: id, title: title, description: description, json: json) }
    }

    /// `ideabox done ID`
    public struct Done: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "done", abstract: .english("Mark an idea done.", chinese: "把一筆靈感標示為完成。"))

        @Argument(help: .english("The id, or a unique prefix of it.", chinese: "識別碼，或它唯一的開頭。")) var id: String
        @Flag(help: .english("Print the idea as JSON instead of its id.", chinese: "以 JSON 印出這筆靈感，而不是它的識別碼。")) var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .setCompleted(true, id: id, json: json) }
    }

    /// `ideabox history ID [--json]`
    public struct History: LocalSubcommand {
        public static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: .english("List every version of an idea this device knows, the current one first.", chinese: "列出這台裝置知道的一筆靈感的每個版本，目前的在前。"),
            discussion: .english("""
                Every value the idea had here: its edits, versions received from other devices \
                and values that lost a merge, for 30 days and at least the last 50. Deleted \
                ideas keep theirs. `ideabox restore ID VERSION` makes a version current again.
                """, chinese: "這筆靈感在這台裝置上有過的每個值：它的編輯、從其他裝置收到的版本、合併時落敗的值，保留 30 天且至少最後 50 個。已刪除的靈感也保留。`ideabox restore ID VERSION` 可以讓某個版本再次成為目前版本。"))

        @Argument(help: .english("The id, or a unique prefix of it (a deleted idea's too).", chinese: "識別碼，或它唯一的開頭（已刪除的靈感也可以）。")) var id: String
        @Flag(help: .english("Print JSON.", chinese: "印出 JSON。")) var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .history(id: id, json: json) }
    }

    /// `ideabox restore ID VERSION`
    public struct Restore: LocalSubcommand {
        public static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: .english("Make a version from an idea's history the current one, as a new edit.", chinese: "把一筆靈感歷史中的某個版本設為目前版本，當作一次新的編輯。"))

        @Argument(help: .english("The id, or a unique prefix of it (a deleted idea's too).", chinese: "識別碼，或它唯一的開頭（已刪除的靈感也可以）。")) var id: String
        @Argument(help: .english("The version's number, as `ideabox history` lists it.", chinese: "版本編號，如 `ideabox history` 所列。")) var version: Int64
        @Flag(help: .english("Print the idea as JSON instead of its id.", chinese: "以 JSON 印出這筆靈感，而不是它的識別碼。")) var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .restore(id: id, version: version, json: json) }
    }

    /// `ideabox undone ID`
    public struct Undone: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "undone", abstract: .english("Mark an idea not done.", chinese: "把一筆靈感標示為未完成。"))

        @Argument(help: .english("The id, or a unique prefix of it.", chinese: "識別碼，或它唯一的開頭。")) var id: String
        @Flag(help: .english("Print the idea as JSON instead of its id.", chinese: "以 JSON 印出這筆靈感，而不是它的識別碼。")) var json = false
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .setCompleted(false, id: id, json: json) }
    }

    /// `ideabox rm ID`
    public struct Remove: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "rm", abstract: .english("Delete an idea.", chinese: "刪除一筆靈感。"))

        @Argument(help: .english("The id, or a unique prefix of it.", chinese: "識別碼，或它唯一的開頭。")) var id: String
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .remove(id: id) }
    }

    /// `ideabox export > ideas.json`, `ideabox export --output ideas.json`
    public struct Export: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "export",
            abstract: .english("Print every idea as JSON, every field and its stamp included; `import` reads it back.", chinese: "以 JSON 印出每筆靈感的所有欄位與其時間戳記；`import` 可以讀回。"),
            discussion: .english("All or nothing: an export that can't read every idea prints nothing, and leaves --output's file as it was.", chinese: "全有或全無：無法讀取每筆靈感的匯出什麼都不印，並讓 --output 的檔案維持原樣。"))

        @Option(name: [.short, .customLong("output")], help: ArgumentHelp(
            .english("Write to this file instead, replacing it only once the whole export is written.", chinese: "改寫入這個檔案，整份匯出寫完後才取代它。"), valueName: "file"))
        var output: String?
        @OptionGroup public var store: StoreOptions

        public init() {}

        public var command: LocalCommand { .export(output: output) }
    }

    /// `ideabox import FILE [--dry-run] [--skip-hand-edits]`
    public struct Import: LocalSubcommand {
        public static let configuration = CommandConfiguration(commandName: "import",
            abstract: .english("Import ideas from a JSON export (`-` reads standard input); all or nothing.", chinese: "從 JSON 匯出檔匯入靈感（`-` 讀取標準輸入）；全部匯入或完全不匯入。"),
            discussion: .english("""
                Each field is merged by the stamps the export holds, as a sync merges: an import never replaces a newer edit. \
                A value that differs from this device's where no stamp says which is newer (a file edited by hand) is \
                written as a new edit, and named.
                """, chinese: "每個欄位依匯出檔中的時間戳記合併，與同步相同：匯入不會取代較新的編輯。與這台裝置不同、且沒有時間戳記能判斷哪個較新的值（手動修改過的檔案）會寫成一次新的編輯，並列出。"))

        @Argument(help: .english("The file `export` wrote, or `-`.", chinese: "`export` 寫出的檔案，或 `-`。")) var file: String
        @Flag(help: .english("Print what the import would change, and change nothing.", chinese: "印出匯入會做的變更，但不做任何變更。")) var dryRun = false
        @Flag(help: .english("Don't write values edited by hand in the file; only name them.", chinese: "不寫入檔案中被手動修改的值；只列出它們。")) var skipHandEdits = false
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
    @Option(parsing: .unconditional, help: .english("Print at most this many (1 or more).", chinese: "最多印出這麼多筆（1 以上）。")) var limit: Int?
    @Flag(help: .english("Print every one.", chinese: "全部印出。")) var all = false

    func validate() throws {
        let language = Language.preferred(environment: EnvironmentVariables.process)
        if let limit, limit < 1 { throw ValidationError(CommandLineText.limitNotPositive(limit, language)) }
        if all && limit != nil { throw ValidationError(CommandLineText.allWithLimit(language)) }
    }

    var page: LocalCommand.Page { LocalCommand.Page(limit: limit, all: all) }
}
