import IdeaModel
import IdeaStore

extension CommandLineText {
    // MARK: Repair

    /// What `ideabox repair` found and did, a line for each thing.
    static func repair(_ outcome: DatabaseRepair.Outcome, _ language: Language) -> String {
        switch (outcome, language) {
        case let (.noDatabase(path), .english):
            "There is no database at \(path) yet: nothing to repair."
        case let (.noDatabase(path), .traditionalChinese):
            "「\(path)」還沒有資料庫：不需要修復"
        case let (.healthy(path), .english):
            "\(path) is healthy: nothing to repair, nothing was changed."
        case let (.healthy(path), .traditionalChinese):
            "「\(path)」完好無損：不需要修復，沒有變更任何資料"
        case let (.repaired(path, copy, kept), .english):
            """
            Repaired \(path): kept \(count(kept.ideas, "idea", "ideas")), \(count(kept.deletes, "delete", "deletes")) \
            and \(count(kept.pendingChanges, "change", "changes")) waiting to be sent; \(unreadable(kept, language)).
            The damaged file is kept beside it as \(copy).
            The next sync fetches everything from the remote again and fills in the rest.
            """
        case let (.repaired(path, copy, kept), .traditionalChinese):
            """
            已修復「\(path)」：保留 \(kept.ideas) 筆靈感、\(kept.deletes) 筆刪除紀錄與 \(kept.pendingChanges) 筆待傳送的變更；\(unreadable(kept, language))
            損毀的檔案保留在旁邊：\(copy)
            下次同步會從遠端重新取得全部資料，補回其餘部分
            """
        }
    }

    /// How many ideas a repair could not read: as many as the damaged file's indexes named,
    /// or, with every index of the ideas damaged too, at least as many as it could tell.
    private static func unreadable(_ kept: DatabaseRepair.Kept, _ language: Language) -> String {
        switch (kept.countsEveryUnreadableIdea, kept.unreadableIdeas, language) {
        case (true, let number, .english): "\(count(number, "idea", "ideas")) could not be read"
        case (true, let number, .traditionalChinese): "\(number) 筆靈感無法讀取"
        case (false, 0, .english): "how many ideas could not be read is not known"
        case (false, 0, .traditionalChinese): "無法得知有幾筆靈感無法讀取"
        case (false, let number, .english): "at least \(count(number, "idea", "ideas")) could not be read"
        case (false, let number, .traditionalChinese): "至少 \(number) 筆靈感無法讀取"
        }
    }

    /// `1 idea`, `2 ideas`.
    private static func count(_ number: Int, _ one: String, _ many: String) -> String {
        "\(number) \(number == 1 ? one : many)"
    }
}
