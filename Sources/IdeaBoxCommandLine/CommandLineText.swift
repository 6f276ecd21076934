import IdeaBoxFoundation
import IdeaModel
import IdeaStore

/// The command line's own words, English and Traditional Chinese side by side, so both
/// languages are reviewed together (as `UIText` is for the app). Errors that belong to a
/// layer below (`IdeaStoreError`, `StorageError`, …) carry their own messages.
///
/// Chinese lines end without a full stop, like the rest of IdeaBox's Chinese messages.
public enum CommandLineText {
    // MARK: Version and help

    /// `ideabox --version`: the version and the commit built.
    public static var version: String { "ideabox \(BuildInfo.version) (\(BuildInfo.commit))" }

    /// The root command's discussion in `ideabox help`.
    static let rootDiscussion = String.english("""
        Run `ideabox` with no subcommand to open the full-screen app (press ? in it for its keys).

        Data lives under --data-dir, else $IDEABOX_HOME, else $XDG_DATA_HOME/ideabox, \
        else ~/.local/share/ideabox; each --profile (default: "default") is one device.
        """, chinese: "不加子命令執行 `ideabox` 會開啟全螢幕介面（在其中按 ? 看按鍵）。\n\n資料存放在 --data-dir，否則 $IDEABOX_HOME，否則 $XDG_DATA_HOME/ideabox，否則 ~/.local/share/ideabox；每個 --profile（預設：\"default\"）是一台裝置。")

    // MARK: Listing

    /// Standard error after a default page that left ideas out.
    static func moreNotShown(_ language: Language) -> String {
        switch language {
        case .english: "… more not shown: --all prints every one, --limit N that many."
        case .traditionalChinese: "… 其餘未顯示：--all 列出全部，--limit N 列出 N 筆"
        }
    }

    /// Standard error when a search matched nothing (standard output stays empty).
    static func noMatch(_ query: String, _ language: Language) -> String {
        switch language {
        case .english: "No idea matches \"\(query)\"."
        case .traditionalChinese: "沒有符合「\(query)」的靈感"
        }
    }

    /// `--limit` was zero or negative.
    static func limitNotPositive(_ limit: Int, _ language: Language) -> String {
        switch language {
        case .english: "--limit must be a positive number (1 or more), not \(limit)."
        case .traditionalChinese: "--limit 必須是正整數（1 以上），而不是 \(limit)"
        }
    }

    /// `--all` and `--limit` together.
    /// `list --sort` with a value it doesn't know.
    static func unknownSort(_ value: String, _ language: Language) -> String {
        switch language {
        case .english: "--sort must be created, updated or title, not \"\(value)\"."
        case .traditionalChinese: "--sort 必須是 created、updated 或 title，而不是「\(value)」"
        }
    }

    static func allWithLimit(_ language: Language) -> String {
        switch language {
        case .english: "--all and --limit don't go together."
        case .traditionalChinese: "--all 與 --limit 不能同時使用"
        }
    }

    // MARK: Import

    /// What `import` did: the counts, then each idea with values edited by hand in the file
    /// and what became of them; or (`dryRun`) what it would do, every idea it would change listed.
    static func importReport(_ summary: ImportSummary, dryRun: Bool, handEdits: HandEditPolicy, _ language: Language) -> String {
        let (new, updated, unchanged) = (summary.inserted, summary.updated, summary.unchanged)
        let skipped = handEdits == .skip
        var lines: [String]
        switch (language, dryRun) {
        case (.english, false): lines = ["Imported \(new) new, \(updated) updated, \(unchanged) unchanged."]
        case (.english, true): lines = ["Would import \(new) new, \(updated) updated, \(unchanged) unchanged; nothing was written."]
        case (.traditionalChinese, false): lines = ["已匯入：新增 \(new) 筆，更新 \(updated) 筆，未變更 \(unchanged) 筆"]
        case (.traditionalChinese, true): lines = ["試匯入：將新增 \(new) 筆，更新 \(updated) 筆，未變更 \(unchanged) 筆；沒有寫入任何資料"]
        }
        if dryRun {
            lines += summary.changes.map { change in
                "  " + importChangeLine(change, language) + (skipped && change.isHandEdit ? skippedMark(language) : "")
            }
        } else if !summary.handEdits.isEmpty {
            switch (language, skipped) {
            case (.english, false): lines.append("Edited by hand in the file, written as new edits:")
            case (.english, true): lines.append("Edited by hand in the file, not written (--skip-hand-edits):")
            case (.traditionalChinese, false): lines.append("檔案中手動修改的值，已寫成新的編輯：")
            case (.traditionalChinese, true): lines.append("檔案中手動修改的值，未寫入（--skip-hand-edits）：")
            }
            lines += summary.handEdits.map { "  " + importedIdea($0, fields: $0.fields, language) }
        }
        return lines.joined(separator: "\n")
    }

    /// One line of a dry run: what the import would do to one idea.
    private static func importChangeLine(_ change: ImportChange, _ language: Language) -> String {
        let label: String
        switch (change.kind, language) {
        case (.inserted, .english): label = "new     "
        case (.updated, .english): label = "update  "
        case (.handEdited, .english): label = "by hand "
        case (.inserted, .traditionalChinese): label = "新增    "
        case (.updated, .traditionalChinese): label = "更新    "
        case (.handEdited, .traditionalChinese): label = "手動修改"
        }
        return label + " " + importedIdea(change, fields: change.fields, language)
    }

    /// An idea an import changes: its short id, the fields (if any) and its title.
    private static func importedIdea(_ change: ImportChange, fields: [IdeaField], _ language: Language) -> String {
        let id = String(change.id.lowercasedString.prefix(8))
        guard !fields.isEmpty else { return "\(id)  \(change.title)" }
        let names = fields.map { $0.name(in: language) }.joined(separator: language == .english ? ", " : "、")
        return "\(id)  \(names)  (\(change.title))"
    }

    /// After a dry run's hand edit, with `--skip-hand-edits`.
    private static func skippedMark(_ language: Language) -> String {
        switch language {
        case .english: "  skipped"
        case .traditionalChinese: "  略過"
        }
    }

    /// The import file was written by a newer IdeaBox, in a format this one doesn't know.
    static func newerFormat(_ path: String, version: Int, _ language: Language) -> String {
        switch language {
        case .english:
            "\(path) is an export of format \(version), from a newer IdeaBox; this one reads formats 1 to \(ExportFile.formatVersion). Nothing was imported."
        case .traditionalChinese:
            "\(path) 是較新版 IdeaBox 的第 \(version) 版匯出格式；這個版本只能讀取第 1 到 \(ExportFile.formatVersion) 版；沒有匯入任何資料"
        }
    }

    /// The import file is not I-JSON, stopping at `position`.
    static func notJSON(_ path: String, _ position: ImportError.Position, _ rule: JSONValue.Invalid.Kind, _ language: Language) -> String {
        switch language {
        case .english:
            "\(path) is not valid JSON: line \(position.line), column \(position.column)\(brokenJSONRule(rule, language)). Nothing was imported."
        case .traditionalChinese:
            "\(path) 不是有效的 JSON：第 \(position.line) 行第 \(position.column) 欄\(brokenJSONRule(rule, language))；沒有匯入任何資料"
        }
    }

    /// Which of I-JSON's rules (RFC 7493) beyond JSON's syntax a file broke, in parentheses;
    /// nothing for the syntax, which the line and column show.
    private static func brokenJSONRule(_ rule: JSONValue.Invalid.Kind, _ language: Language) -> String {
        switch (language, rule) {
        case (_, .syntax): ""
        case (.english, .duplicateName): " (a name appears twice in one object)"
        case (.english, .invalidUTF8): " (the text is not UTF-8)"
        case (.english, .loneSurrogate): " (a \\u escape names half a character, a lone surrogate)"
        case (.english, .tooDeep): " (nested more than \(JSONValue.maximumDepth) deep)"
        case (.traditionalChinese, .duplicateName): "（同一個物件裡有重複的名稱）"
        case (.traditionalChinese, .invalidUTF8): "（文字不是 UTF-8）"
        case (.traditionalChinese, .loneSurrogate): "（\\u 跳脫只寫了半個字元，即孤立的代理項）"
        case (.traditionalChinese, .tooDeep): "（巢狀超過 \(JSONValue.maximumDepth) 層）"
        }
    }

    /// The import file is JSON but neither an export's object nor an array of ideas.
    static func notAnArray(_ path: String, _ language: Language) -> String {
        switch language {
        case .english:
            "\(path) is not a valid IdeaBox export: it must be a JSON object of \"formatVersion\" and \"ideas\", as `ideabox export` writes, or an array of ideas. Nothing was imported."
        case .traditionalChinese:
            "\(path) 不是有效的 IdeaBox 匯出檔：必須是含 \"formatVersion\" 與 \"ideas\" 的 JSON 物件，即 `ideabox export` 的格式，或靈感的陣列；沒有匯入任何資料"
        }
    }

    /// The first line of a refused import: how many problems; one line for each follows.
    static func invalidExport(_ path: String, problems: Int, _ language: Language) -> String {
        switch language {
        case .english:
            "\(path) is not a valid IdeaBox export (\(problems) \(problems == 1 ? "problem" : "problems")). Nothing was imported."
        case .traditionalChinese:
            "\(path) 不是有效的 IdeaBox 匯出檔（\(problems) 個問題）；沒有匯入任何資料"
        }
    }

    /// One problem of a refused import: the idea's place in the file, the field, and what is wrong.
    static func problem(_ problem: ImportError.Problem, _ language: Language) -> String {
        let detail: String
        switch (problem.kind, language) {
        case (.missing, .english): detail = "missing"
        case (.missing, .traditionalChinese): detail = "缺少此欄位"
        case (.wrongValue, _): detail = expectedValue(of: problem.field ?? "", language)
        case (.notAnObject, .english): detail = "not a JSON object { … }"
        case (.notAnObject, .traditionalChinese): detail = "不是 JSON 物件 { … }"
        case let (.invalid(error), _): detail = error.message(in: language)
        case let (.repeated(first), .english): detail = "the same id as idea \(first)"
        case let (.repeated(first), .traditionalChinese): detail = "與第 \(first) 筆靈感的識別碼相同"
        }
        switch (language, problem.field) {
        case let (.english, field?): return "idea \(problem.position), \(field): \(detail)"
        case (.english, nil): return "idea \(problem.position): \(detail)"
        case let (.traditionalChinese, field?): return "第 \(problem.position) 筆靈感，\(field)：\(detail)"
        case (.traditionalChinese, nil): return "第 \(problem.position) 筆靈感：\(detail)"
        }
    }

    /// What the field `field` of an idea must hold.
    private static func expectedValue(of field: String, _ language: Language) -> String {
        switch (field, language) {
        case ("id", .english): "must be a UUID such as 6f1c2b3a-4d5e-4f60-8172-839405a6b7c8"
        case ("id", .traditionalChinese): "必須是 UUID，例如 6f1c2b3a-4d5e-4f60-8172-839405a6b7c8"
        case ("isCompleted", .english): "must be true or false"
        case ("isCompleted", .traditionalChinese): "必須是 true 或 false"
        case ("version", .english): "must be a whole number"
        case ("version", .traditionalChinese): "必須是整數"
        case ("createdAt", .english), ("updatedAt", .english), ("lastSyncedAt", .english):
            "must be a UTC time such as 2026-11-20T08:15:30.123Z"
        case ("createdAt", .traditionalChinese), ("updatedAt", .traditionalChinese), ("lastSyncedAt", .traditionalChinese):
            "必須是 UTC 時間，例如 2026-11-20T08:15:30.123Z"
        case (_, .english): "must be text in quotes"
        case (_, .traditionalChinese): "必須是加上引號的文字"
        }
    }

    /// The last line of a refusal with more problems than it lists.
    static func moreProblems(_ count: Int, _ language: Language) -> String {
        switch language {
        case .english: "… and \(count) more"
        case .traditionalChinese: "… 另有 \(count) 個問題"
        }
    }

    // MARK: Usage errors

    /// What every usage error ends with.
    static func seeHelp(_ language: Language) -> String {
        switch language {
        case .english: " (see `ideabox help`)"
        case .traditionalChinese: "（請見 `ideabox help`）"
        }
    }

    /// ArgumentParser's usage error `message` (always English) in `language`: the common
    /// ones translated, the others as they are.
    static func usageError(_ message: String, _ language: Language) -> String {
        guard language == .traditionalChinese else { return message }
        if let name = quoted(message, after: "Missing expected argument ") {
            return "缺少必要的參數 \(name)"
        }
        if let rest = quoted(message, after: "Unknown option ") {
            let parts = rest.components(separatedBy: "'. Did you mean '")
            return parts.count == 2
                ? "不認得的選項 \(parts[0])'：是否要用 '\(parts[1].dropLast(2))'？"
                : "不認得的選項 \(rest)"
        }
        if let name = quoted(message, after: "Missing value for ") {
            return "\(name) 缺少值"
        }
        if let names = quoted(message, after: "Unexpected argument ") ?? quoted(message, after: "Unexpected arguments ") {
            return "多餘的參數 \(names)"
        }
        if message.hasPrefix("The value '"), let range = message.range(of: "' is invalid for '") {
            let value = message[message.index(message.startIndex, offsetBy: 11)..<range.lowerBound]
            let option = message[range.upperBound...].prefix { $0 != "'" }
            return "「\(value)」不是 '\(option)' 的有效值"
        }
        return message
    }

    /// The rest of `message` after `prefix`, if it starts with it and the rest is quoted.
    private static func quoted(_ message: String, after prefix: String) -> String? {
        guard message.hasPrefix(prefix), message.dropFirst(prefix.count).hasPrefix("'") else { return nil }
        return String(message.dropFirst(prefix.count))
    }
}
