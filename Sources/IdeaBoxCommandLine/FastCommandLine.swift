import IdeaStore

/// Reads the plainest local command lines without ArgumentParser, whose first parse costs
/// about 3 ms of runtime type lookups (a third of `ideabox add`).
///
/// It knows each local command's arguments, options and flags, and reads only lines with no
/// doubt in them: every option spelled in full and once, every value present, the right
/// number of arguments, none beginning with `-`. Anything else (`--help`, `--opt=value`, a
/// mistake, `--` …) gets nil, and ArgumentParser reads the line: its help, its errors. The
/// tests hold the two to the same reading of every line this one reads.
public enum FastCommandLine {
    /// The command and profile `arguments` (without the program name) name, or nil to leave
    /// them to ArgumentParser.
    ///
    /// It makes no dictionary or set: the first one a process makes costs it a runtime search
    /// of every protocol conformance in the binary (BENCHMARKS.md, "Everyday
    /// commands against taskwarrior"), so each spelling is matched by a `switch`.
    public static func parse(_ arguments: [String]) -> (command: LocalCommand, store: StoreSelection)? {
        guard let name = arguments.first, let positionalCount = positionalCount(of: name) else { return nil }
        var positionals: [String] = []
        var read = Read()
        var index = 1
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            guard token.hasPrefix("-") else {
                positionals.append(token)
                continue
            }
            if let option = option(token, of: name) {
                guard index < arguments.count, !arguments[index].hasPrefix("-"), read[option] == nil else { return nil }
                read[option] = arguments[index]
                index += 1
            } else if let flag = flag(token, of: name) {
                guard !read[flag] else { return nil }
                read[flag] = true
            } else {
                return nil
            }
        }
        guard positionals.count == positionalCount else { return nil }
        let store = StoreSelection(dataDirectory: read[.dataDirectory], profile: read[.profile], noSamples: read[.noSamples])
        guard let command = command(name, positionals, read) else { return nil }
        return (command, store)
    }

    /// An option that takes a value, by its long name.
    private enum Option {
        case dataDirectory, profile, description, title, limit, sort, output
    }

    /// A flag, by its long name.
    private enum Flag {
        case noSamples, json, done, completed, all, reverse, dryRun, skipHandEdits
    }

    /// How many arguments the local command `name` takes; nil for any other name.
    private static func positionalCount(of name: String) -> Int? {
        switch name {
        case "add", "search", "show", "edit", "done", "undone", "rm", "import": 1
        case "list", "export": 0
        default: nil
        }
    }

    /// The option `spelling` names for the command `name`, if it takes one.
    private static func option(_ spelling: String, of name: String) -> Option? {
        switch spelling {
        case "--data-dir": .dataDirectory
        case "--profile": .profile
        case "-d", "--description": name == "add" || name == "edit" ? .description : nil
        case "--title": name == "edit" ? .title : nil
        case "--limit": name == "list" || name == "search" ? .limit : nil
        case "--sort": name == "list" ? .sort : nil
        case "-o", "--output": name == "export" ? .output : nil
        default: nil
        }
    }

    /// The flag `spelling` names for the command `name`, if it takes one.
    private static func flag(_ spelling: String, of name: String) -> Flag? {
        switch spelling {
        case "--no-samples": .noSamples
        case "--json": name == "rm" || name == "export" || name == "import" ? nil : .json
        case "--done": name == "add" ? .done : nil
        case "--completed": name == "list" ? .completed : nil
        case "--all": name == "list" || name == "search" ? .all : nil
        case "--reverse": name == "list" ? .reverse : nil
        case "--dry-run": name == "import" ? .dryRun : nil
        case "--skip-hand-edits": name == "import" ? .skipHandEdits : nil
        default: nil
        }
    }

    /// The options and flags a line gave.
    private struct Read {
        var dataDirectory, profile, description, title, limit, sort, output: String?
        var noSamples = false, json = false, done = false, completed = false, all = false, reverse = false
        var dryRun = false, skipHandEdits = false

        subscript(option: Option) -> String? {
            get {
                switch option {
                case .dataDirectory: dataDirectory
                case .profile: profile
                case .description: description
                case .title: title
                case .limit: limit
                case .sort: sort
                case .output: output
                }
            }
            set {
                switch option {
                case .dataDirectory: dataDirectory = newValue
                case .profile: profile = newValue
                case .description: description = newValue
                case .title: title = newValue
                case .limit: limit = newValue
                case .sort: sort = newValue
                case .output: output = newValue
                }
            }
        }

        subscript(flag: Flag) -> Bool {
            get {
                switch flag {
                case .noSamples: noSamples
                case .json: json
                case .done: done
                case .completed: completed
                case .all: all
                case .reverse: reverse
                case .dryRun: dryRun
                case .skipHandEdits: skipHandEdits
                }
            }
            set {
                switch flag {
                case .noSamples: noSamples = newValue
                case .json: json = newValue
                case .done: done = newValue
                case .completed: completed = newValue
                case .all: all = newValue
                case .reverse: reverse = newValue
                case .dryRun: dryRun = newValue
                case .skipHandEdits: skipHandEdits = newValue
                }
            }
        }
    }

    private static func command(_ name: String, _ arguments: [String], _ read: Read) -> LocalCommand? {
        let json = read.json
        switch name {
        case "add":
            return .add(title: arguments[0], description: read.description ?? "", done: read.done, json: json)
        case "list":
            let key = read.sort.map(IdeaOrder.Key.init(rawValue:)) ?? .created
            guard let key else { return nil }
            let order = IdeaOrder(key, isReversed: read.reverse)
            return page(read).map { .list(completed: read.completed, json: json, page: $0, order: order) }
        case "search":
            return page(read).map { .search(query: arguments[0], json: json, page: $0) }
        case "show":
            return .show(id: arguments[0], json: json)
        case "edit":
            return .edit(id: arguments[0], title: read.title, description: read.description, json: json)
        case "done", "undone":
            return .setCompleted(name == "done", id: arguments[0], json: json)
        case "rm":
            return .remove(id: arguments[0])
        case "export":
            return .export(output: read.output)
        case "import":
            return .import(file: arguments[0], dryRun: read.dryRun, handEdits: read.skipHandEdits ? .skip : .apply)
        default:
            return nil
        }
    }

    /// `--limit N` (a whole number, at least 1) or `--all`, not both; nil leaves the line to
    /// ArgumentParser, which says what is wrong.
    private static func page(_ read: Read) -> LocalCommand.Page? {
        guard let text = read.limit else { return LocalCommand.Page(all: read.all) }
        guard !read.all, let limit = Int(text), limit >= 1, String(limit) == text else { return nil }
        return LocalCommand.Page(limit: limit, all: false)
    }
}
