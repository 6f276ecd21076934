import Foundation
import IdeaModel
import IdeaBoxTUI
import IdeaBoxViewModels

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

    /// The settings `text` holds, and everything wrong in it, in line order. Text that is
    /// not TOML is one problem, at the line where it stops being TOML.
    public static func parse(_ text: String) -> (config: AppConfig, problems: [ConfigProblem]) {
        let table: TOMLTable
        do {
            table = try TOMLParser.parse(text)
        } catch {
            return (AppConfig(), [ConfigProblem(line: error.line, .syntax(error.reason))])
        }
        var reader = Reader()
        let config = reader.read(table)
        return (config, reader.problems.sorted { $0.line < $1.line })
    }

    /// Reads a parsed file into settings, noting each problem at its line.
    private struct Reader {
        var problems: [ConfigProblem] = []

        mutating func read(_ table: TOMLTable) -> AppConfig {
            var config = AppConfig()
            for key in table.keys {
                guard let value = table[key] else { continue }
                let line = Self.line(of: key, in: table)
                func badValue(_ expected: String) { bad(key, value, line: line, expected: expected) }
                switch key {
                case "theme": config.theme = choice(value, "theme", line: line, default: config.theme)
                case "sort": config.sort = choice(value, "sort", line: line, default: config.sort)
                case "times": config.times = choice(value, "times", line: line, default: config.times)
                case "mouse":
                    if let on = value.bool { config.mouse = on } else { badValue("true or false") }
                case "editor":
                    if let editor = value.string, !editor.trimmingCharacters(in: .whitespaces).isEmpty {
                        config.editor = editor
                    } else {
                        badValue("a command, such as \"vim\"")
                    }
                case "hyperlinks":
                    if let on = value.bool {
                        config.hyperlinks = on
                    } else if value.string != "auto" {
                        badValue("true, false or \"auto\"")
                    }
                case "device-name":
                    if let name = value.string.flatMap(DeviceNames.normalized) {
                        config.deviceName = name
                    } else {
                        badValue("one line of 1 to \(DeviceNames.maximumLength) characters, such as \"laptop\"")
                    }
                case "icloud-api-token":
                    if let token = value.string, token.utf8.count == 64, token.allSatisfy(\.isHexDigit) {
                        config.iCloudAPIToken = token
                    } else {
                        badValue("the container's API token, 64 hex digits from CloudKit Dashboard")
                    }
                case "colors":
                    guard let colors = value.table else { badValue("a table ([colors])"); continue }
                    config.colors = readColors(colors)
                case ListAction.configTable:
                    guard let keys = value.table else { badValue("a table ([keys])"); continue }
                    config.keys = readKeys(keys)
                case FormAction.configTable:
                    guard let keys = value.table else { badValue("a table ([form-keys])"); continue }
                    config.formKeys = readKeys(keys)
                case SearchAction.configTable:
                    guard let keys = value.table else { badValue("a table ([search-keys])"); continue }
                    config.searchKeys = readKeys(keys)
                default:
                    problems.append(ConfigProblem(line: line, .unknownSetting(key, table: "")))
                }
            }
            return config
        }

        private mutating func readColors(_ table: TOMLTable) -> [CellColor: TerminalColor] {
            var colors: [CellColor: TerminalColor] = [:]
            let elements = CellColor.allCases.filter { $0 != .default }
            for key in table.keys {
                guard let value = table[key] else { continue }
                let line = Self.line(of: key, in: table)
                guard let element = elements.first(where: { $0.configName == key }) else {
                    problems.append(ConfigProblem(line: line, .unknownSetting(key, table: "colors")))
                    continue
                }
                guard let name = value.string, let color = TerminalColor(rawValue: name) else {
                    bad("colors.\(key)", value, line: line,
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
                let line = Self.line(of: key, in: table)
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
                    bad("\(tableName).\(key)", value, line: line, expected: "a key name or a list of them")
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
                let line = clash.actions.map { Self.line(of: $0.rawValue, in: table) }.max() ?? table.line
                problems.append(ConfigProblem(line: line, .clash(keys: KeyName.name(clash.keys), actions: clash.actions.map { $0.rawValue })))
            } catch let typing as KeyMap<Action>.TypingKey {
                problems.append(ConfigProblem(
                    line: Self.line(of: typing.action.rawValue, in: table),
                    .typingKey(KeyName.name(typing.keys), action: typing.action.rawValue, table: tableName)))
            } catch {
                problems.append(ConfigProblem(line: table.line, .syntax("\(error)")))
            }
            return .defaults
        }

        private mutating func choice<Choice: RawRepresentable & CaseIterable>(
            _ value: TOMLValue, _ setting: String, line: Int, default fallback: Choice
        ) -> Choice where Choice.RawValue == String {
            if let name = value.string, let choice = Choice(rawValue: name) { return choice }
            bad(setting, value, line: line, expected: Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
            return fallback
        }

        private mutating func bad(
            _ setting: String, _ value: TOMLValue, line: Int, expected: String
        ) {
            let shown = value.string.map { "\"\($0)\"" } ?? value.written
            problems.append(ConfigProblem(line: line, .badValue(setting: setting, value: shown, expected: expected)))
        }

        /// The line that set `key` in `table`, else the table's own.
        private static func line(of key: String, in table: TOMLTable) -> Int {
            table.line(of: key) ?? table.line
        }
    }
}
