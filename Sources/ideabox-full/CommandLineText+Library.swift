import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaModel
import LibrarySync

/// The words of `library` (a command only `ideabox-full` runs). English and Traditional
/// Chinese side by side; Chinese lines end without a full stop.
extension CommandLineText {
    /// `library status`, one field a line.
    static func libraryStatusLines(_ status: LibraryStatus, _ language: Language) -> [String] {
        switch language {
        case .english:
            [
                "files: \(status.files)",
                "pending up: \(status.pendingUploads) changed, \(status.pendingDeletes) deleted",
                "pending down: \(status.pendingDownloads.map(String.init) ?? "unknown (remote unreachable)")",
                "not synced: \(status.notSynced.isEmpty ? "none" : status.notSynced.joined(separator: ", "))",
                "last sync: \(status.lastSyncAt?.iso8601 ?? "never")",
                "last error: \(status.lastError ?? "none")",
            ]
        case .traditionalChinese:
            [
                "檔案：\(status.files)",
                "待上傳：\(status.pendingUploads) 個變更、\(status.pendingDeletes) 個刪除",
                "待下載：\(status.pendingDownloads.map(String.init) ?? "未知（無法連線遠端）")",
                "未同步：\(status.notSynced.isEmpty ? "無" : status.notSynced.joined(separator: "、"))",
                "上次同步：\(status.lastSyncAt?.iso8601 ?? "從未")",
                "上次錯誤：\(status.lastError ?? "無")",
            ]
        }
    }

    /// What `library sync` or `library overwrite-remote` did.
    static func librarySynced(_ report: LibraryReport, overwrote: Bool, _ language: Language) -> String {
        switch language {
        case .english:
            let counts = "\(report.uploaded) sent, \(report.deletedRemotely) deleted remotely, \(report.downloaded) received, "
                + "\(report.deletedLocally) deleted here, \(report.conflicts) \(report.conflicts == 1 ? "conflict" : "conflicts")"
            return overwrote ? "Overwrote the remote library with this folder: \(counts)." : "Library synced: \(counts)."
        case .traditionalChinese:
            let counts = "送出 \(report.uploaded) 個、遠端刪除 \(report.deletedRemotely) 個、收到 \(report.downloaded) 個、"
                + "本機刪除 \(report.deletedLocally) 個、衝突 \(report.conflicts) 個"
            return overwrote ? "已用這個資料夾覆寫遠端檔案庫：\(counts)" : "檔案庫已同步：\(counts)"
        }
    }
}
