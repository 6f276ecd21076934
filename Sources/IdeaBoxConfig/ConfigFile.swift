import Foundation
import IdeaModel
import IdeaBoxTUI
import IdeaBoxViewModels
import TOMLKit

/// `config.toml`: where it is, and its settings read and checked. A file with any problem
/// gives the defaults whole (and the problems), never a half-applied mix.
public struct ConfigFile: Sendable {
    /// Where the file is looked for (it may not exist); nil without `XDG_CONFIG_HOME` or `HOME`.
    public let path: String?
    /// Whether a file is there.
    public let exists: Bool
    /// The settings in effect: the file's, or the defaults if it is missing or has a problem.
    public let config: AppConfig
    /// Everything wrong in the file, by line.
    public let problems: [ConfigProblem]

    /// `$XDG_CONFIG_HOME/ideabox/config.toml` (an absolute XDG_CONFIG_HOME only, as the XDG
    /// spec says), else `~/.config/ideabox/config.toml`.
    public static func path(environment: [String: String]) -> String? {
        if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") {
            return base + "/ideabox/config.toml"
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/ideabox/config.toml"
    }

    /// Reads the file for `environment`; a missing file is the defaults, with no problem.
    public static func load(environment: [String: String]) -> ConfigFile {
        guard let path = path(environment: environment), FileManager.default.fileExists(atPath: path) else {
            return ConfigFile(path: path(environment: environment), exists: false, config: AppConfig(), problems: [])
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            return ConfigFile(path: path, exists: true, config: AppConfig(), problems: [ConfigProblem(line: 0, .unreadable("\(error.localizedDescription)"))])
        }
        let (config, problems) = parse(text)
        return ConfigFile(path: path, exists: true, config: problems.isEmpty ? config : AppConfig(), problems: problems)
    }

    /// The one sentence the app shows at launch when the file has a problem: its path, the
    /// first problem, and that the app started with the defaults.
    public func launchNotice(in language: Language) -> String? {
        guard let first = problems.first, let path else { return nil }
        let more = problems.count > 1
        return language == .english
            ? "Config \(path), \(first.message(in: language))\(more ? " (and \(problems.count - 1) more)" : ""); started with the defaults — ideabox config check lists every problem"
            : "設定檔 \(path)，\(first.message(in: language))\(more ? "（另有 \(problems.count - 1) 個問題）" : "")；已改用預設值啟動 — ideabox config check 會列出所有問題"
    }

    /// The settings `text` holds, and everything wrong in it, in line order.
    public static func parse(_ text: String) -> (config: AppConfig, problems: [ConfigProblem]) {
        if let line = tableNameTOMLCannotRead(in: text) {
            return (AppConfig(), [ConfigProblem(line: line, .syntax("a table's name starts with a letter, a digit, _, - or a quote"))])
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            return (AppConfig(), [ConfigProblem(line: error.source.begin.line, .syntax(error.description))])
        } catch {
            return (AppConfig(), [ConfigProblem(line: 0, .syntax("\(error)"))])
        }
        var reader = Reader(lines: SettingLines(text))
        let config = reader.read(table)
        return (config, reader.problems.sorted { $0.line < $1.line })
    }

    /// The line (from 1) of the first table header (`[name]`, `[[name]]`) whose name starts
    /// with neither an ASCII letter, digit, `_`, `-` nor a quote, or nil. toml++ (under
    /// TOMLKit) asserts that it does and aborts the process on `[é]` or a lone `[` (found by
    /// `.ci/fuzz`'s `config` target), so such a file is refused here, as the syntax error it
    /// is, before toml++ sees it. A line that starts with `[` inside a multi-line array or
    /// string is read as a header too: no setting of ours is one, so such a file has a
    /// problem either way; only the sentence differs.
    static func tableNameTOMLCannotRead(in text: String) -> Int? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = line.utf8.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            guard rest.first == UInt8(ascii: "[") else { continue }
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: "[") { rest = rest.dropFirst() }
            rest = rest.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            guard let first = rest.first else { return index + 1 }
            let readable = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
                || [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "]")].contains(first)
            if !readable { return index + 1 }
        }
        return nil
    }

    /// Reads a parsed file into settings, noting each problem at its line.
    private struct Reader {
        let lines: SettingLines
        var problems: [ConfigProblem] = []

        mutating func read(_ table: TOMLTable) -> AppConfig {
            var config = AppConfig()
            for key in table.keys {
                guard let value = table[key] else { continue }
                switch key {
                case "theme": config.theme = choice(value, "theme", default: config.theme)
                case "sort": config.sort = choice(value, "sort", default: config.sort)
                case "times": config.times = choice(value, "times", default: config.times)
                case "mouse":
                    if let on = value.bool { config.mouse = on } else { bad("mouse", value, expected: "true or false") }
                case "editor":
                    if let editor = value.string, !editor.trimmingCharacters(in: .whitespaces).isEmpty {
                        config.editor = editor
                    } else {
                        bad("editor", value, expected: "a command, such as \"vim\"")
                    }
                case "hyperlinks":
                    if let on = value.bool {
                        config.hyperlinks = on
                    } else if value.string != "auto" {
                        bad("hyperlinks", value, expected: "true, false or \"auto\"")
                    }
                case "device-name":
                    if let name = value.string.flatMap(DeviceNames.normalized) {
                        config.deviceName = name
                    } else {
                        bad("device-name", value, expected: "one line of 1 to \(DeviceNames.maximumLength) characters, such as \"laptop\"")
                    }
                case "icloud-api-token":
                    if let token = value.string, token.utf8.count == 64, token.allSatisfy(\.isHexDigit) {
                        config.iCloudAPIToken = token
                    } else {
                        bad("icloud-api-token", value, expected: "the container's API token, 64 hex digits from CloudKit Dashboard")
                    }
                case "colors":
                    guard let colors = value.table else { bad("colors", value, expected: "a table ([colors])"); continue }
                    config.colors = readColors(colors)
                case ListAction.configTable:
                    guard let keys = value.table else { bad(key, value, expected: "a table ([keys])"); continue }
                    config.keys = readKeys(keys)
                case FormAction.configTable:
                    guard let keys = value.table else { bad(key, value, expected: "a table ([form-keys])"); continue }
                    config.formKeys = readKeys(keys)
                case SearchAction.configTable:
                    guard let keys = value.table else { bad(key, value, expected: "a table ([search-keys])"); continue }
                    config.searchKeys = readKeys(keys)
                default:
                    problems.append(ConfigProblem(line: lines.line(of: key, in: ""), .unknownSetting(key, table: "")))
                }
            }
            return config
        }

        private mutating func readColors(_ table: TOMLTable) -> [CellColor: TerminalColor] {
            var colors: [CellColor: TerminalColor] = [:]
            let elements = CellColor.allCases.filter { $0 != .default }
            for key in table.keys {
                guard let value = table[key] else { continue }
                guard let element = elements.first(where: { $0.configName == key }) else {
                    problems.append(ConfigProblem(line: lines.line(of: key, in: "colors"), .unknownSetting(key, table: "colors")))
                    continue
                }
                guard let name = value.string, let color = TerminalColor(rawValue: name) else {
                    bad("colors.\(key)", value, table: "colors", key: key,
                        expected: "one of " + TerminalColor.allCases.map(\.rawValue).joined(separator: ", "))
                    continue
                }
                colors[element] = color
            }
            return colors
        }

        /// One context's `[keys]` table: each action's keys, checked for clashes within the
        /// context; any problem leaves the context its defaults.
        private mutating func readKeys<Action: BindableAction>(_ table: TOMLTable) -> KeyMap<Action> {
            let tableName = Action.configTable
            var changes: [Action: [KeySequence]] = [:]
            var isValid = true
            for key in table.keys {
                let line = lines.line(of: key, in: tableName)
                guard let action = Action(rawValue: key) else {
                    problems.append(ConfigProblem(line: line, .unknownAction(key, table: tableName)))
                    isValid = false
                    continue
                }
                guard let value = table[key] else { continue }
                let names: [String]
                if let name = value.string {
                    names = [name]
                } else if let array = value.array, case let strings = array.compactMap({ $0.string }), strings.count == array.count {
                    names = strings
                } else {
                    bad("\(tableName).\(key)", value, table: tableName, key: key, expected: "a key name or a list of them")
                    isValid = false
                    continue
                }
                var sequences: [KeySequence] = []
                for name in names {
                    guard let sequence = KeyName.sequence(name) else {
                        problems.append(ConfigProblem(line: line, .unknownKey(name, action: key)))
                        isValid = false
                        continue
                    }
                    sequences.append(sequence)
                }
                changes[action] = sequences
            }
            guard isValid else { return .defaults }
            do {
                return try KeyMap(replacing: changes)
            } catch let clash as KeyMap<Action>.Clash {
                // The line of whichever of the two actions the file set (the later one if both).
                let line = clash.actions.map { lines.line(of: $0.rawValue, in: tableName) }.max() ?? 0
                problems.append(ConfigProblem(line: line, .clash(keys: KeyName.name(clash.keys), actions: clash.actions.map { $0.rawValue })))
            } catch let typing as KeyMap<Action>.TypingKey {
                problems.append(ConfigProblem(
                    line: lines.line(of: typing.action.rawValue, in: tableName),
                    .typingKey(KeyName.name(typing.keys), action: typing.action.rawValue, table: tableName)))
            } catch {
                problems.append(ConfigProblem(line: lines.line(of: "", in: tableName), .syntax("\(error)")))
            }
            return .defaults
        }

        private mutating func choice<Choice: RawRepresentable & CaseIterable>(
            _ value: any TOMLValueConvertible, _ setting: String, default fallback: Choice
        ) -> Choice where Choice.RawValue == String {
            if let name = value.string, let choice = Choice(rawValue: name) { return choice }
            bad(setting, value, expected: Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
            return fallback
        }

        private mutating func bad(
            _ setting: String, _ value: any TOMLValueConvertible, table: String = "", key: String? = nil, expected: String
        ) {
            let shown = value.string.map { "\"\($0)\"" } ?? value.debugDescription
            problems.append(ConfigProblem(
                line: lines.line(of: key ?? setting, in: table), .badValue(setting: setting, value: shown, expected: expected)))
        }
    }
}

/// Where each setting of a TOML text is, by table and key: TOMLKit gives positions only
/// for syntax errors, so the lines of the rest are found here, by a plain reading of the
/// file's `[table]` headers and `key =` lines.
struct SettingLines: Sendable {
    private var lines: [String: Int] = [:]

    init(_ text: String) {
        var table = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("["), let end = line.firstIndex(of: "]") {
                table = Self.unquoted(line[line.index(after: line.startIndex)..<end])
                if lines[table] == nil { lines[table] = index + 1 }
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = Self.unquoted(line[..<equals])
                let full = table.isEmpty ? key : table + "." + key
                if lines[full] == nil { lines[full] = index + 1 }
            }
        }
    }

    /// The line of `key` in `table` ("" for the top), else of the table's header, else 0.
    func line(of key: String, in table: String) -> Int {
        lines[table.isEmpty ? key : table + "." + key] ?? lines[table] ?? 0
    }

    private static func unquoted(_ text: Substring) -> String {
        let isEdge: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" }
        guard let first = text.firstIndex(where: { !isEdge($0) }), let last = text.lastIndex(where: { !isEdge($0) }) else { return "" }
        return String(text[first...last])
    }
}
