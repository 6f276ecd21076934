import Foundation
import IdeaBoxCommandLine
import IdeaBoxFoundation
import IdeaModel
import ServerStore

/// The words of `serve`'s account and API token commands (which only `ideabox-full` runs).
/// English and Traditional Chinese side by side; Chinese lines end without a full stop.
extension CommandLineText {
    /// Standard error after `serve account add` printed the token.
    static func tokenShownOnce(account: String, _ language: Language) -> String {
        switch language {
        case .english:
            "Account \(account): the token above is shown only this once. Sign a device in with: ideabox account sign-in \(account) --server URL"
        case .traditionalChinese:
            "帳號 \(account)：上面的權杖只會顯示這一次。用以下指令登入裝置：ideabox account sign-in \(account) --server URL"
        }
    }

    /// `serve account revoke`.
    static func tokensRevoked(_ count: Int, account: String, _ language: Language) -> String {
        switch language {
        case .english: "Account \(account): \(count) \(count == 1 ? "token" : "tokens") revoked."
        case .traditionalChinese: "帳號 \(account)：已撤銷 \(count) 個權杖"
        }
    }

    /// What `serve api-token add` says on standard error under the token it printed.
    static func apiTokenShownOnce(label: String, _ language: Language) -> String {
        switch language {
        case .english:
            "API token \(label): shown only this once. A device uses it with: ideabox account sign-in NAME --server URL --api-token TOKEN"
        case .traditionalChinese:
            "API 權杖 \(label)：只會顯示這一次。裝置這樣使用：ideabox account sign-in NAME --server URL --api-token TOKEN"
        }
    }

    /// What `serve api-token revoke` says.
    static func apiTokensRevoked(_ count: Int, label: String, _ language: Language) -> String {
        switch language {
        case .english: "API token \(label): \(count) \(count == 1 ? "token" : "tokens") revoked."
        case .traditionalChinese: "API 權杖 \(label)：已撤銷 \(count) 個"
        }
    }

    /// One line of `serve api-token list`.
    static func apiTokenLine(_ entry: APITokenEntry, _ language: Language) -> String {
        switch (entry.revoked, language) {
        case (nil, .english): "\(entry.label)  added \(entry.created.iso8601)  valid"
        case let (revoked?, .english): "\(entry.label)  added \(entry.created.iso8601)  revoked \(revoked.iso8601)"
        case (nil, .traditionalChinese): "\(entry.label)  新增於 \(entry.created.iso8601)  有效"
        case let (revoked?, .traditionalChinese): "\(entry.label)  新增於 \(entry.created.iso8601)  撤銷於 \(revoked.iso8601)"
        }
    }

    /// One line of `serve account schema`: the database (its container and environment;
    /// the account's own name is production in the first container `serve` serves), the
    /// record type and field, and its type.
    static func schemaLine(_ entry: FieldTypeEntry, account: String, _ language: Language) -> String {
        let english = language == .english
        let rest = entry.database.dropFirst(account.count + 1)
        let development = rest.hasSuffix("/development")
        let container = entry.database == account ? (english ? "first container" : "第一個容器") : String(development ? rest.dropLast("/development".count) : rest)
        let environment = development ? (english ? "development" : "開發環境") : (english ? "production" : "正式環境")
        return "\(container)\(english ? ", " : "，")\(environment)  \(entry.recordType).\(entry.fieldName)  \(entry.type)"
    }

    /// `serve account schema` for an account that has saved no field yet.
    static func noSchema(account: String, _ language: Language) -> String {
        switch language {
        case .english: "Account \(account) has no field types yet: the first save of each field sets its type."
        case .traditionalChinese: "帳號 \(account) 尚無任何欄位型別：每個欄位第一次儲存時決定其型別"
        }
    }

    /// One line of `serve account token list`.
    static func tokenLine(_ entry: AccessTokenEntry, _ language: Language) -> String {
        let english = language == .english
        let used = entry.lastUsed.map { (english ? "last used " : "上次使用於 ") + $0.iso8601 } ?? (english ? "never used" : "從未使用")
        let state = entry.revoked.map { (english ? "revoked " : "撤銷於 ") + $0.iso8601 } ?? (english ? "valid" : "有效")
        return "\(entry.label)  \(english ? "added" : "新增於") \(entry.created.iso8601)  \(used)  \(state)"
    }

    /// What `serve account delete --yes` says.
    static func accountDeleted(_ account: String, records: Int, _ language: Language) -> String {
        switch language {
        case .english: "Account \(account) deleted, with its \(records) \(records == 1 ? "record" : "records"), files and tokens."
        case .traditionalChinese: "已刪除帳號 \(account) 及其 \(records) 筆記錄、檔案與權杖"
        }
    }

    /// One line of `serve account list`.
    static func accountLine(_ account: String, validTokens: Int, _ language: Language) -> String {
        switch language {
        case .english: "\(account)  \(validTokens) \(validTokens == 1 ? "valid token" : "valid tokens")"
        case .traditionalChinese: "\(account)  \(validTokens) 個有效權杖"
        }
    }

    /// `serve account quota`: each limit and what the account holds against it.
    static func accountQuota(_ quota: AccountQuota, usage: AccountUsage, account: String, _ language: Language) -> String {
        func of(_ used: String, _ limit: String?) -> String {
            limit.map { "\(used) / \($0)" } ?? used + (language == .english ? " (no limit)" : "（不限）")
        }
        let records = of(String(usage.records), quota.maxRecords.map(String.init))
        let zones = of(String(usage.zones), quota.maxZones.map(String.init))
        let bytes = of(byteSize(usage.assetBytes), quota.maxAssetBytes.map(byteSize))
        return switch language {
        case .english: "Account \(account): records \(records), zones \(zones), assets \(bytes)."
        case .traditionalChinese: "帳號 \(account)：記錄 \(records)，區域 \(zones)，附件 \(bytes)"
        }
    }

    /// `bytes` in the largest binary unit that keeps it at 1 or more: `512 B`, `3.5 MiB`, `1 GiB`.
    static func byteSize(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let shown = unit == 0 || value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
        return "\(shown) \(units[unit])"
    }
}
