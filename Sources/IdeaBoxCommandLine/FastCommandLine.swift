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
    public static func parse(_ arguments: [String]) -> (command: LocalCommand, store: StoreSelection)? {
        guard let name = arguments.first, let grammar = grammars[name] else { return nil }
        var positionals: [String] = []
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var index = 1
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            guard token.hasPrefix("-") else {
                positionals.append(token)
                continue
            }
            if let option = grammar.options[token] ?? storeOptions[token] {
                guard index < arguments.count, !arguments[index].hasPrefix("-"), values[option] == nil else { return nil }
                values[option] = arguments[index]
                index += 1
            } else if grammar.flags.contains(token) || token == "--no-samples" {
                guard flags.insert(token).inserted else { return nil }
            } else {
                return nil
            }
        }
        guard positionals.count == grammar.arguments else { return nil }
        let store = StoreSelection(
            dataDirectory: values["--data-dir"], profile: values["--profile"], noSamples: flags.contains("--no-samples"))
        guard let command = command(name, positionals, values, flags) else { return nil }
        return (command, store)
    }

    /// What one command takes: how many arguments, which options (each spelling to its
    /// long name) and which flags.
    private struct Grammar {
        var arguments = 0
        var options: [String: String] = [:]
        var flags: Set<String> = []
    }

    private static let storeOptions = ["--data-dir": "--data-dir", "--profile": "--profile"]
    private static let description = ["-d": "--description", "--description": "--description"]
    private static let page = ["--limit": "--limit"]

    private static let grammars: [String: Grammar] = [
        "add": Grammar(arguments: 1, options: description, flags: ["--done", "--json"]),
        "list": Grammar(options: page.merging(["--sort": "--sort"]) { $1 }, flags: ["--completed", "--json", "--all", "--reverse"]),
        "search": Grammar(arguments: 1, options: page, flags: ["--json", "--all"]),
        "show": Grammar(arguments: 1, flags: ["--json"]),
        "edit": Grammar(arguments: 1, options: description.merging(["--title": "--title"]) { $1 }, flags: ["--json"]),
        "done": Grammar(arguments: 1, flags: ["--json"]),
        "undone": Grammar(arguments: 1, flags: ["--json"]),
        "rm": Grammar(arguments: 1),
        "export": Grammar(options: ["-o": "--output", "--output": "--output"]),
        "import": Grammar(arguments: 1),
    ]

    private static func command(
        _ name: String, _ arguments: [String], _ values: [String: String], _ flags: Set<String>
    ) -> LocalCommand? {
        let json = flags.contains("--json")
        switch name {
        case "add":
            return .add(title: arguments[0], description: values["--description"] ?? "", done: flags.contains("--done"), json: json)
        case "list":
            let key = values["--sort"].map(IdeaOrder.Key.init(rawValue:)) ?? .created
            guard let key else { return nil }
            let order = IdeaOrder(key, isReversed: flags.contains("--reverse"))
            return page(values, flags).map { .list(completed: flags.contains("--completed"), json: json, page: $0, order: order) }
        case "search":
            return page(values, flags).map { .search(query: arguments[0], json: json, page: $0) }
        case "show":
            return .show(id: arguments[0], json: json)
        case "edit":
            return .edit(id: arguments[0], title: values["--title"], description: values["--description"], json: json)
        case "done", "undone":
            return .setCompleted(name == "done", id: arguments[0], json: json)
        case "rm":
            return .remove(id: arguments[0])
        case "export":
            return .export(output: values["--output"])
        case "import":
            return .import(file: arguments[0])
        default:
            return nil
        }
    }

    /// `--limit N` (a whole number, at least 1) or `--all`, not both; nil leaves the line to
    /// ArgumentParser, which says what is wrong.
    private static func page(_ values: [String: String], _ flags: Set<String>) -> LocalCommand.Page? {
        let all = flags.contains("--all")
        guard let text = values["--limit"] else { return LocalCommand.Page(all: all) }
        guard !all, let limit = Int(text), limit >= 1, String(limit) == text else { return nil }
        return LocalCommand.Page(limit: limit, all: false)
    }
}
