import IdeaModel
import IdeaBoxViewModels

/// One thing wrong in a config file, at its line (1-based; 0 when not known).
public struct ConfigProblem: Sendable, Equatable {
    /// What is wrong.
    public enum Kind: Sendable, Equatable {
        /// Not TOML; the parser's own words.
        case syntax(String)
        /// A setting or table the app does not know (`table` empty at the top).
        case unknownSetting(String, table: String)
        /// A setting of the wrong kind or out of its choices.
        case badValue(setting: String, value: String, expected: String)
        /// A name in `[keys]` (or another keys table) that is no action there.
        case unknownAction(String, table: String = "keys")
        /// A plain character bound where characters are typed (`[form-keys]`, `[search-keys]`).
        case typingKey(String, action: String, table: String)
        /// A key name that names no key.
        case unknownKey(String, action: String)
        /// Two actions want one key.
        case clash(keys: String, actions: [String])
        /// The file exists but cannot be read.
        case unreadable(String)
    }

    /// The line the problem is on.
    public var line: Int
    /// What is wrong.
    public var kind: Kind

    /// A problem of `kind` on `line`.
    public init(line: Int, _ kind: Kind) {
        self.line = line
        self.kind = kind
    }

    /// The problem in one sentence, its line first.
    public func message(in language: Language) -> String {
        let english = language == .english
        let at = line > 0 ? (english ? "line \(line): " : "第 \(line) 行：") : ""
        switch kind {
        case .syntax(let reason):
            return at + (english ? "not TOML: \(reason)" : "不是有效的 TOML：\(reason)")
        case let .unknownSetting(name, table):
            let full = table.isEmpty ? name : "\(table).\(name)"
            return at + (english ? "no setting named “\(full)”" : "沒有名為「\(full)」的設定")
        case let .badValue(setting, value, expected):
            return at + (english ? "\(setting) must be \(expected), not \(value)" : "\(setting) 必須是 \(expected)，不能是 \(value)")
        case let .unknownAction(name, table):
            let place = table == "keys" ? "" : (english ? " in [\(table)]" : "（[\(table)] 中）")
            return at + (english ? "no action named “\(name)”\(place) (ideabox config show lists them)"
                                 : "沒有名為「\(name)」的動作\(place)（ideabox config show 會列出所有動作）")
        case let .typingKey(keys, action, table):
            return at + (english ? "“\(keys)” (for \(action) in [\(table)]) would no longer type: use ctrl-, f1…f12 or a named key"
                                 : "「\(keys)」（[\(table)] 的 \(action)）會無法再輸入這個字元：請用 ctrl-、f1…f12 或具名按鍵")
        case let .unknownKey(name, action):
            return at + (english ? "“\(name)” (for \(action)) names no key" : "「\(name)」（\(action)）不是可用的按鍵名稱")
        case let .clash(keys, actions):
            return at + (english ? "“\(keys)” is bound to both \(actions.joined(separator: " and "))"
                                 : "「\(keys)」同時綁定到 \(actions.joined(separator: " 與 "))")
        case .unreadable(let reason):
            return english ? "cannot be read: \(reason)" : "無法讀取：\(reason)"
        }
    }
}
