import Foundation
import IdeaBoxCommandLine
import IdeaModel

/// The words of `account` (a command only `ideabox-full` runs): signing in and out, and whose
/// ideas a profile holds. English and Traditional Chinese side by side; Chinese lines end
/// without a full stop.
extension CommandLineText {
    /// `account status`.
    static func accountStatus(_ account: String?, server: URL?, _ language: Language) -> String {
        switch (language, account) {
        case let (.english, account?): "Signed in as \(account)" + (server.map { " on \($0.absoluteString)" } ?? "") + "."
        case (.english, nil): "Not signed in; ideas stay on this device."
        case let (.traditionalChinese, account?): "已登入 \(account)" + (server.map { "（伺服器 \($0.absoluteString)）" } ?? "")
        case (.traditionalChinese, nil): "尚未登入；靈感只保存在這台裝置"
        }
    }

    /// `account sign-in`, on the embedded remote or on a server.
    static func signedIn(_ account: String, server: URL?, _ language: Language) -> String {
        switch language {
        case .english: "Signed in as \(account)" + (server.map { " on \($0.absoluteString)" } ?? "") + "."
        case .traditionalChinese: "已登入 \(account)" + (server.map { "（伺服器 \($0.absoluteString)）" } ?? "")
        }
    }

    /// `account sign-out`.
    static func signedOut(_ language: Language) -> String {
        switch language {
        case .english: "Signed out; ideas stay on this device."
        case .traditionalChinese: "已登出；靈感只保存在這台裝置"
        }
    }

    /// When a profile's ideas belong to another account than the one it is signed in to.
    static func accountMismatch(bound: String?, account: String?, _ language: Language) -> String? {
        guard let bound, let account, bound != account else { return nil }
        return switch language {
        case .english: "This profile's ideas belong to \(bound); they don't sync while signed in as \(account)."
        case .traditionalChinese: "這台裝置的靈感屬於 \(bound)；登入 \(account) 時不會同步"
        }
    }

    /// `account sign-in` on a terminal, when the profile's ideas and the account both hold ideas.
    static func mergeQuestion(own: Int, bound: String, account: String, _ language: Language) -> String {
        switch language {
        case .english:
            "\(account) already holds ideas. Bring this profile's \(own) \(own == 1 ? "idea" : "ideas") (from \(bound)) into \(account), merged? y/n "
        case .traditionalChinese: "\(account) 已有靈感。要把這台裝置的 \(own) 筆靈感（來自 \(bound)）合併到 \(account) 嗎？y/n "
        }
    }

    /// `account sign-in` carried the profile's ideas into the account it signed in to.
    static func ideasCarried(own: Int, bound: String, account: String, _ language: Language) -> String {
        switch language {
        case .english:
            "This profile's \(own) \(own == 1 ? "idea goes" : "ideas go") to \(account) with the next sync, merged with its ideas; \(bound) keeps its copy."
        case .traditionalChinese: "這台裝置的 \(own) 筆靈感將在下次同步時合併到 \(account)；\(bound) 仍保留原本的內容"
        }
    }

    /// `account sign-in` left the profile's ideas with the account they belong to.
    static func keptApart(bound: String, account: String, _ language: Language) -> String {
        switch language {
        case .english:
            "This profile's ideas belong to \(bound); they don't sync while signed in as \(account). "
                + "To bring them into \(account), merged: ideabox account sign-in \(account) --merge"
        case .traditionalChinese:
            "這台裝置的靈感屬於 \(bound)；登入 \(account) 時不會同步。要合併到 \(account)：ideabox account sign-in \(account) --merge"
        }
    }
}
