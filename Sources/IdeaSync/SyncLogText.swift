import IdeaModel
import IdeaStore

/// The sync log as `ideabox log` and the app's log overlay show it, in the user's language.
/// Lines are kept as events (`SyncLogEvent`), which have both languages' words; lines kept
/// before that have only their English, which the table below translates when they are
/// shown. A line no pattern matches is shown as stored.
public enum SyncLogText {
    /// `entry`'s kind as a label, padded so that the messages line up.
    public static func kind(_ kind: SyncLogEntry.Kind, _ language: Language) -> String {
        switch language {
        case .english:
            let width = SyncLogEntry.Kind.allCases.map(\.rawValue.count).max() ?? 0
            return kind.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
        case .traditionalChinese:
            switch kind {
            case .upload: return "上傳"
            case .download: return "下載"
            case .conflict: return "衝突"
            case .error: return "錯誤"
            case .warning: return "警告"
            case .info: return "資訊"
            }
        }
    }

    /// A log entry's line in `language`: its event's words, or for a line kept before
    /// events were, its English translated by the patterns below.
    public static func message(_ entry: SyncLogEntry, _ language: Language, names: DeviceNames? = nil) -> String {
        entry.event?.text(in: language, names: names) ?? message(entry.message, language)
    }

    /// The line for a version of an idea the remote served that is older than what this
    /// device already agreed on with it (`ReplayRule`): refused, never merged.
    public static func replayRefused(title: String, id: String, _ language: Language) -> String {
        let name = title.isEmpty ? id : "“\(title)” (\(id))"
        let chineseName = title.isEmpty ? id : "「\(title)」（\(id)）"
        return switch language {
        case .english:
            "Refused an older version of \(name) from the remote (replayed, or the server was restored from a backup): "
                + "nothing here changed, and this device's version is sent again."
        case .traditionalChinese:
            "已拒絕遠端送來的\(chineseName)舊版本（被重播，或伺服器從備份還原）：這台裝置的資料未變更，並重新送出這台裝置的版本"
        }
    }

    /// A stored log message in `language`.
    public static func message(_ stored: String, _ language: Language) -> String {
        guard language == .traditionalChinese else { return stored }
        for (english, chinese) in patterns {
            if var holes = match(stored, english) {
                if english.hasPrefix("on “"), holes.count == 3 {
                    holes[2] = conflictFields(holes[2])
                }
                return holes.enumerated().reduce(chinese) { text, hole in
                    text.replacingOccurrences(of: "%\(hole.offset + 1)", with: hole.element)
                }
            }
        }
        return stored
    }

    /// Each stored English line (`%`: any text) and its Chinese (`%1`, `%2`…: that text).
    private static let patterns: [(String, String)] = [
        ("sent % change(s)", "已送出 %1 筆變更"),
        ("applied % remote change(s)", "已套用 %1 筆遠端變更"),
        ("on “%” (%): %; resolved: Local", "「%1」（%2）的衝突：%3；本機勝出"),
        ("on “%” (%): %; resolved: Remote", "「%1」（%2）的衝突：%3；遠端勝出"),
        ("on “%” (%): %; resolved: TieBreaker", "「%1」（%2）的衝突：%3；時間相同，依裝置識別碼決定"),
        ("on “%” (%); resolved: Local", "「%1」（%2）的衝突已解決：本機勝出"),
        ("on “%” (%); resolved: Remote", "「%1」（%2）的衝突已解決：遠端勝出"),
        ("on “%” (%); resolved: TieBreaker", "「%1」（%2）的衝突已解決：時間相同，依裝置識別碼決定"),
        ("% resolved: Local", "%1 的衝突已解決：本機勝出"),
        ("% resolved: Remote", "%1 的衝突已解決：遠端勝出"),
        ("% resolved: TieBreaker", "%1 的衝突已解決：時間相同，依裝置識別碼決定"),
        ("a newer edit from another device replaced this device's edit of “%”",
         "其他裝置較新的編輯取代了這台裝置對「%1」的編輯"),
        ("integrity: this device and the remote agree", "完整性檢查：這台裝置與遠端一致"),
        ("integrity: % more differences", "完整性檢查：另有 %1 處不一致"),
        ("integrity: % is here but not on the remote", "完整性檢查：%1 在這台裝置上，但不在遠端"),
        ("integrity: % is on the remote but not here", "完整性檢查：%1 在遠端，但不在這台裝置上"),
        ("integrity: % differs: here %, remote %", "完整性檢查：%1 不一致：這台裝置 %2，遠端 %3"),
        ("change token expired: fetching everything again", "變更權杖已過期：重新取得全部資料"),
        ("skipped an invalid remote record %", "略過無效的遠端紀錄 %1"),
        ("the remote zone was missing: creating it and sending everything again", "遠端區域不存在：建立後重新送出全部資料"),
        ("overwriting the remote with this device's % ideas", "以這台裝置的 %1 筆靈感覆寫遠端"),
        ("library: synced with % before, now with %: every file here is sent to it",
         "資料夾：之前與 %1 同步，現在與 %2：這裡的每個檔案都會送過去"),
        ("library: % file(s) sent, % deleted remotely, % received, % deleted here",
         "資料夾：送出 %1 個檔案，遠端刪除 %2 個，收到 %3 個，這台裝置刪除 %4 個"),
        ("% was deleted on another device after it changed here: this device's version is kept and sent again",
         "%1 在這台裝置修改後被其他裝置刪除：保留這台裝置的版本並重新送出"),
        ("%: this device's version (%) is later than the remote's (%); the remote's is kept as %",
         "%1：這台裝置的版本（%2）比遠端的（%3）新；遠端的版本另存為 %4"),
        ("%: the remote's version (%) is later than this device's (%); this device's is kept as %",
         "%1：遠端的版本（%2）比這台裝置的（%3）新；這台裝置的版本另存為 %4"),
        ("% is not synced: the library syncs Favorite.json and the .json files in Items/ and FavoriteItems/",
         "%1 不會同步：資料夾只同步 Favorite.json 以及 Items/ 與 FavoriteItems/ 中的 .json 檔"),
        ("The network is off; changes wait on this device.", "網路已關閉；變更暫存在這台裝置"),
        ("Not signed in to an account; ideas stay on this device.", "尚未登入帳號；靈感只保存在這台裝置"),
        ("The server refused this device's token (revoked?); sign in again with ideabox account sign-in.",
         "伺服器拒絕了這台裝置的權杖（已撤銷？）；請以 ideabox account sign-in 重新登入"),
        ("The account's storage is full; ideas stay on this device.", "帳號儲存空間已滿；靈感只保存在這台裝置"),
        ("Signed in as %, but these ideas belong to %; sign in as % to sync them.",
         "目前登入的是 %1，但這些靈感屬於 %2；請登入 %3 以同步"),
        ("The remote failed: %.", "遠端發生錯誤：%1"),
        ("The local database failed: %.", "本機資料庫發生錯誤：%1"),
    ]

    /// A conflict line's fields (`title Remote, isCompleted Local`) in Chinese.
    private static func conflictFields(_ english: String) -> String {
        english.components(separatedBy: ", ").map { item in
            let words = item.split(separator: " ").map(String.init)
            guard words.count == 2, let field = IdeaField(rawValue: words[0]),
                  let settled = ConflictResolution(rawValue: words[1])
            else { return item }
            let side = switch settled {
            case .local: "本機"
            case .remote: "遠端"
            case .tieBreaker: "依裝置識別碼"
            }
            return "\(field.name(in: .traditionalChinese))取\(side)"
        }.joined(separator: "、")
    }

    /// The texts that fill the holes (`%`) of `pattern` to make `text`, or nil if none do.
    /// Each hole takes the shortest text that lets the next literal part follow.
    private static func match(_ text: String, _ pattern: String) -> [String]? {
        let parts = pattern.components(separatedBy: "%")
        guard text.hasPrefix(parts[0]) else { return nil }
        var rest = text.dropFirst(parts[0].count)
        var holes: [String] = []
        for (index, part) in parts.enumerated().dropFirst() {
            if index == parts.count - 1 {
                guard rest.hasSuffix(part), rest.count > part.count else { return nil }
                holes.append(String(rest.dropLast(part.count)))
                rest = ""
            } else {
                guard let range = rest.range(of: part), range.lowerBound > rest.startIndex else { return nil }
                holes.append(String(rest[..<range.lowerBound]))
                rest = rest[range.upperBound...]
            }
        }
        return parts.count == 1 && !rest.isEmpty ? nil : holes
    }
}
