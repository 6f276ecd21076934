/// The own editor and the terminal: what is said when either cannot be used.
extension UIText {
    /// The editor exited well but left the text as it was.
    public var editorLeftUnchanged: String {
        text("Nothing changed: the editor left the text as it was.", "沒有變更：編輯器沒有改動內容。")
    }
    /// The editor exited with a failure status.
    public func editorFailed(status: Int32) -> String {
        text("Nothing changed: the editor exited with status \(status).", "沒有變更：編輯器以狀態 \(status) 結束。")
    }
    /// The editor could not be run at all.
    public func editorCouldNotRun(_ reason: String) -> String {
        text("Nothing changed: the editor could not run (\(reason)).", "沒有變更：無法執行編輯器（\(reason)）。")
    }

    /// Standard input or output is not a terminal.
    public var needsTerminal: String {
        text("The full-screen app needs a terminal on standard input and output; in scripts use the commands (add, list, search, show, edit, done, export, import, sync, status; see `ideabox help`).",
             "全螢幕介面需要在終端機中執行（標準輸入與輸出都必須是終端機）；在指令稿中請改用指令（add、list、search、show、edit、done、export、import、sync、status，見 `ideabox help`）。")
    }
    /// No UTF-8 locale could be used.
    public var needsUTF8Locale: String {
        text("No UTF-8 locale is available (tried the environment's and C.UTF-8); install one, or use the commands (see `ideabox help`).",
             "找不到可用的 UTF-8 語系（已嘗試環境設定與 C.UTF-8）；請安裝一個，或改用指令（見 `ideabox help`）。")
    }
    /// terminfo has no entry for the terminal type.
    public func unknownTerminal(_ type: String) -> String {
        text("The terminal type TERM=\(type) is unknown to this system's terminfo, so the full-screen app cannot draw on it; set TERM to a type it knows (run TERM=xterm-256color ideabox, say), install that type's terminfo entry, or use the commands (see `ideabox help`).",
             "這台系統的 terminfo 不認得終端機類型 TERM=\(type)，無法顯示全螢幕介面；請把 TERM 設為它認得的類型（例如執行 TERM=xterm-256color ideabox）、安裝該類型的 terminfo，或改用指令（見 `ideabox help`）。")
    }
    /// `TERM` is not set (or empty).
    public var terminalTypeUnset: String {
        text("TERM is not set, so the full-screen app does not know what terminal it draws on; set it to your terminal's type (run TERM=xterm-256color ideabox, say), or use the commands (see `ideabox help`).",
             "沒有設定 TERM，全螢幕介面不知道要在哪種終端機上顯示；請設定為你的終端機類型（例如執行 TERM=xterm-256color ideabox），或改用指令（見 `ideabox help`）。")
    }
    /// The terminal type is known but cannot move the cursor (`dumb`).
    public func unusableTerminal(_ type: String) -> String {
        text("The terminal TERM=\(type) cannot show the full-screen app (it cannot move the cursor); use a terminal such as xterm-256color, or the commands (add, list, search, show, edit, done, export, import, sync, status; see `ideabox help`).",
             "終端機 TERM=\(type) 無法顯示全螢幕介面（無法移動游標）；請改用 xterm-256color 等終端機，或改用指令（add、list、search、show、edit、done、export、import、sync、status，見 `ideabox help`）。")
    }

    /// The too-small notice.
    public func tooSmall(rows: Int, columns: Int) -> [String] {
        [
            text("Terminal too small", "終端機視窗太小"),
            text("IdeaBox needs 40×10; this is \(columns)×\(rows).", "IdeaBox 需要 40×10，目前為 \(columns)×\(rows)。"),
        ]
    }
}
