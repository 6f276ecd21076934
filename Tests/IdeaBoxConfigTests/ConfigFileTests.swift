import Foundation
import IdeaBoxConfig
import IdeaBoxTUI
import IdeaBoxViewModels
import IdeaModel
import Testing

/// `ConfigFile`: where it is, good files, and each kind of problem at its line.
@Suite struct ConfigFileTests {
    @Test func aGoodFileSetsEverySetting() throws {
        let (config, problems) = ConfigFile.parse("""
            # mine
            theme = "light"
            sort = "title"
            times = "absolute"
            mouse = false
            editor = "nvim -u NONE"
            hyperlinks = false

            [colors]
            accent = "bright-magenta"

            [keys]
            toggle-done = "t"
            quit = ["Q", "ctrl-c"]
            open-link = "g o"
            """)
        #expect(problems == [])
        #expect(config.theme == .light)
        #expect(config.sort == .title)
        #expect(config.times == .absolute)
        #expect(!config.mouse)
        #expect(config.editor == "nvim -u NONE")
        #expect(config.hyperlinks == false)
        #expect(config.palette?.colors[.accent] == .brightMagenta)
        #expect(config.palette?.colors[.highlight] == TerminalPalette.light.colors[.highlight])
        #expect(config.keys.action(for: .char("t"), after: nil) == .toggleDone)
        #expect(config.keys.action(for: .char("x"), after: nil) == nil)
        #expect(config.keys.action(for: .char("Q"), after: nil) == .quit)
        #expect(config.keys.action(for: .char("o"), after: .char("g")) == .openLink)
    }

    /// Found by `.ci/fuzz`'s `config` target (Fuzz/findings/config): toml++ (the parser
    /// TOMLKit wrapped, used before ours) aborted the process on each of these.
    @Test(arguments: [
        ("[é]", 1), ("a = 1\n[é]\n", 2), ("theme = 3\n[\u{FFFD}key{]\nnew = [\"n\", \"n\"]\n", 2), ("[\n", 1), ("[[ =]]", 1),
        ("  [\t#]", 1), ("a = 1979-05-27 07:32:00Z\nb = 1979-05-27 x\n", 2),
    ])
    func aTableNameTOMLCannotReadIsOneProblemNotACrash(text: String, line: Int) {
        let (config, problems) = ConfigFile.parse(text)
        #expect(problems.map(\.line) == [line], "\(problems)")
        #expect(config == AppConfig())
    }

    @Test func tableNamesThatStartWellAreRead() {
        #expect(ConfigFile.parse("[colors]\naccent = \"red\"\n[ \"keys\" ]\nquit = \"Q\"\n").problems == [])
        #expect(ConfigFile.parse("[a.é]").problems.count == 1)
    }

    @Test func anEmptyFileIsTheDefaults() {
        let (config, problems) = ConfigFile.parse("")
        #expect(problems == [])
        #expect(config == AppConfig())
        #expect(config.palette == .standard)
        #expect(config.keys == .defaults)
    }

    @Test func themeNoneHasNoPalette() {
        #expect(ConfigFile.parse("theme = \"none\"").config.palette == nil)
    }

    @Test func anUnknownKeyIsReportedAtItsLine() {
        let problems = ConfigFile.parse("sort = \"title\"\n\ncolour = \"red\"\n[colors]\nbackground = \"red\"\n").problems
        #expect(problems == [
            ConfigProblem(line: 3, .unknownSetting("colour", table: "")),
            ConfigProblem(line: 5, .unknownSetting("background", table: "colors")),
        ])
        #expect(problems[0].message(in: .english) == "line 3: no setting named “colour”")
        #expect(problems[1].message(in: .traditionalChinese) == "第 5 行：沒有名為「colors.background」的設定")
    }

    @Test func theICloudAPITokenIsTheContainersSixtyFourHexDigits() {
        let token = "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef"
        let good = ConfigFile.parse("icloud-api-token = \"\(token)\"")
        #expect(good.problems == [] && good.config.iCloudAPIToken == token)
        #expect(good.config.fileText.contains("icloud-api-token = \"\(token)\""))
        let bad = ConfigFile.parse("icloud-api-token = \"my-token\"")
        #expect(bad.config.iCloudAPIToken == nil)
        #expect(bad.problems.map(\.line) == [1])
        #expect(AppConfig().fileText.contains("# icloud-api-token: none"))
    }

    @Test func badValuesAreReportedAtTheirLines() {
        let problems = ConfigFile.parse("""
            sort = "newest"
            mouse = "yes"
            [colors]
            error = "crimson"
            [keys]
            delete = "hyper-d"
            fly = "f"
            """).problems
        #expect(problems.map(\.line) == [1, 2, 4, 6, 7])
        #expect(problems[0].message(in: .english) == "line 1: sort must be \"created\", \"updated\", \"title\", not \"newest\"")
        #expect(problems[3] == ConfigProblem(line: 6, .unknownKey("hyper-d", action: "delete")))
        #expect(problems[4] == ConfigProblem(line: 7, .unknownAction("fly")))
    }

    @Test func aClashIsReportedAtTheLineThatMadeIt() {
        let problems = ConfigFile.parse("""
            [keys]
            undo = "u"
            delete = "x"
            """).problems
        #expect(problems == [ConfigProblem(line: 3, .clash(keys: "x", actions: ["toggle-done", "delete"]))])
        #expect(problems[0].message(in: .english) == "line 3: “x” is bound to both toggle-done and delete")
    }

    @Test func theFormAndSearchFieldKeysAreReadAndCheckedEachInItsOwnTable() {
        let (config, problems) = ConfigFile.parse("""
            [keys]
            redo = "ctrl-y"

            [form-keys]
            save = ["ctrl-r", "f2"]
            open-in-editor = "f4"

            [search-keys]
            leave = ["esc", "ctrl-g"]
            """)
        #expect(problems == [], "ctrl-r may be save in the form though the list once had it")
        #expect(config.formKeys.action(for: .ctrl("r"), after: nil) == .save)
        #expect(config.formKeys.action(for: .ctrl("s"), after: nil) == nil)
        #expect(config.formKeys.action(for: .f(4), after: nil) == .openInEditor)
        #expect(config.searchKeys.action(for: .ctrl("g"), after: nil) == .leave)
        #expect(config.keys.action(for: .ctrl("y"), after: nil) == .redo)
        #expect(config.appKeys.form == config.formKeys)
    }

    @Test func aClashInTheFormOrTheSearchFieldIsReportedAtItsLine() {
        let problems = ConfigFile.parse("""
            theme = "light"
            [form-keys]
            next-field = "esc"
            [search-keys]
            results = "tab"
            """).problems
        #expect(problems == [
            ConfigProblem(line: 3, .clash(keys: "esc", actions: ["cancel", "next-field"])),
            ConfigProblem(line: 5, .clash(keys: "tab", actions: ["results", "next-tab"])),
        ])
        #expect(problems[0].message(in: .english) == "line 3: “esc” is bound to both cancel and next-field")
        #expect(problems[1].message(in: .traditionalChinese) == "第 5 行：「tab」同時綁定到 results 與 next-tab")
    }

    @Test func aTypingKeyOrAnUnknownActionInTheFormIsReportedAtItsLine() {
        let problems = ConfigFile.parse("""
            [form-keys]
            save = "s"
            quit = "ctrl-q"
            """).problems
        #expect(problems == [
            ConfigProblem(line: 3, .unknownAction("quit", table: "form-keys")),
        ], "an unknown action stops the table's check before its keys are")
        #expect(problems[0].message(in: .english) == "line 3: no action named “quit” in [form-keys] (ideabox config show lists them)")
        let typing = ConfigFile.parse("[search-keys]\n\nleave = \"q\"\n").problems
        #expect(typing == [ConfigProblem(line: 3, .typingKey("q", action: "leave", table: "search-keys"))])
        #expect(typing[0].message(in: .english)
            == "line 3: “q” (for leave in [search-keys]) would no longer type: use ctrl-, f1…f12 or a named key")
    }

    @Test func aSyntaxErrorIsOneProblemAtItsLine() {
        let problems = ConfigFile.parse("theme = \"light\"\nsort = \n").problems
        #expect(problems.count == 1)
        #expect(problems.first?.line == 2)
        guard case .syntax = problems.first?.kind else { Issue.record("a syntax problem"); return }
    }

    @Test func theFileIsUnderXDGConfigHomeElseHome() {
        #expect(ConfigFile.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/ideabox/config.toml")
        #expect(ConfigFile.path(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/ideabox/config.toml")
        #expect(ConfigFile.path(environment: ["HOME": "/h"]) == "/h/.config/ideabox/config.toml")
        #expect(ConfigFile.path(environment: [:]) == nil)
    }

    @Test func aFileWithAProblemLoadsAsTheDefaultsWithOneLaunchSentence() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("ideabox"), withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("ideabox/config.toml").path
        try "theme = \"light\"\nmouse = 3\n".write(toFile: path, atomically: true, encoding: .utf8)
        let file = ConfigFile.load(environment: ["XDG_CONFIG_HOME": directory.path])
        #expect(file.exists)
        #expect(file.config == AppConfig(), "a bad file is the defaults whole")
        #expect(file.launchNotice(in: .english)
            == "Config \(path), line 2: mouse must be true or false, not 3; started with the defaults — ideabox config check lists every problem")
        let missing = ConfigFile.load(environment: ["XDG_CONFIG_HOME": directory.path + "/none"])
        #expect(!missing.exists)
        #expect(missing.problems == [])
        #expect(missing.launchNotice(in: .english) == nil)
    }

    @Test func showWritesAFileThatReadsBackTheSame() throws {
        var config = AppConfig()
        config.theme = .light
        config.colors[.muted] = .white
        config.editor = "emacs -nw"
        config.keys = try KeyBindings(replacing: [.copy: [[.char("c")]]])
        config.formKeys = try FormKeys(replacing: [.save: [[.ctrl("o")]]])
        config.searchKeys = try SearchKeys(replacing: [.leave: [[.ctrl("g")], [.escape]]])
        let (readBack, problems) = ConfigFile.parse(config.fileText)
        #expect(problems == [])
        #expect(readBack.keys == config.keys)
        #expect(readBack.formKeys == config.formKeys)
        #expect(readBack.searchKeys == config.searchKeys)
        #expect(readBack.editor == config.editor)
        #expect(readBack.palette == config.palette)
    }

    @Test func theDocumentedExampleLoadsWithNoProblemSetsTheDefaultsAndNamesEveryAction() throws {
        let page = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/app.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let blocks = text.components(separatedBy: "```toml\n").dropFirst()
        try #require(blocks.count == 1, "docs/app.md has one TOML block: the config file's example")
        let example = try #require(blocks.first?.components(separatedBy: "```").first)
        let (config, problems) = ConfigFile.parse(example)
        #expect(problems == [])
        // "This file sets each one to its default."
        #expect(config.fileText == AppConfig().fileText)
        let named = Self.keysByTable(example)
        func expectEveryAction<Action: BindableAction>(_: Action.Type) {
            let missing = Action.allCases.map(\.rawValue).filter { !(named[Action.configTable] ?? []).contains($0) }
            #expect(missing == [], "docs/app.md's [\(Action.configTable)] lacks \(missing)")
        }
        expectEveryAction(ListAction.self)
        expectEveryAction(FormAction.self)
        expectEveryAction(SearchAction.self)
    }

    /// The keys each `[table]` of a TOML text sets, read line by line.
    private static func keysByTable(_ text: String) -> [String: [String]] {
        var keys: [String: [String]] = [:]
        var table = ""
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.hasPrefix("#") {
            if line.hasPrefix("["), let end = line.firstIndex(of: "]") {
                table = String(line[line.index(after: line.startIndex)..<end])
            } else if let equals = line.firstIndex(of: "=") {
                keys[table, default: []].append(line[..<equals].trimmingCharacters(in: .whitespaces))
            }
        }
        return keys
    }
}
