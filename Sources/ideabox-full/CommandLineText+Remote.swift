import CloudKitModel
import EmbeddedRemote
import Foundation
import IdeaBoxCommandLine
import IdeaModel

/// The words of `remote` (a command only `ideabox-full` runs): a profile's network, latency,
/// quota and faults. English and Traditional Chinese side by side; Chinese lines end without a
/// full stop.
extension CommandLineText {
    /// `remote offline on|off`.
    static func offline(_ isOffline: Bool, device: String, _ language: Language) -> String {
        switch (language, isOffline) {
        case (.english, true): "Profile \(device) is offline."
        case (.english, false): "Profile \(device) is online."
        case (.traditionalChinese, true): "設定檔 \(device) 已離線"
        case (.traditionalChinese, false): "設定檔 \(device) 已連線"
        }
    }

    /// `remote latency MS`.
    static func latency(_ milliseconds: Int, device: String, _ language: Language) -> String {
        switch (language, milliseconds) {
        case (.english, 0): "Profile \(device): no added latency."
        case (.english, _): "Profile \(device): \(milliseconds) ms added to each request."
        case (.traditionalChinese, 0): "設定檔 \(device)：不加延遲"
        case (.traditionalChinese, _): "設定檔 \(device)：每個請求延遲 \(milliseconds) 毫秒"
        }
    }

    /// `remote quota` and `serve account quota`: the account's new limit.
    static func quota(_ maxRecords: Int?, account: String, _ language: Language) -> String {
        switch (language, maxRecords) {
        case let (.english, limit?): "Account \(account): at most \(limit) records."
        case (.english, nil): "Account \(account): no quota."
        case let (.traditionalChinese, limit?): "帳號 \(account)：最多 \(limit) 筆記錄"
        case (.traditionalChinese, nil): "帳號 \(account)：不限配額"
        }
    }

    /// `remote status`, one field a line.
    static func remoteStatusLines(_ report: RemoteStatusReport, _ language: Language) -> [String] {
        let status = report.status
        let rates = status.errorRates.map { "  " + rate($0, language) }
        let scripted = status.scriptedErrors.map { "  " + error($0.error, operation: $0.operation, language) }
        let endpoint = report.endpoint
        let served = endpoint.server.map { server in (server.absoluteString, "\(endpoint.container ?? "") (\(endpoint.environment ?? ""))") }
        let unanswered: String? = if case .failure(let error)? = report.usage { error.reason(in: language) } else { nil }
        switch language {
        case .english:
            return [
                "device: \(status.device)",
                "remote: " + (served.map { "server \($0.0)" } ?? "embedded (on this machine)"),
            ] + (served.map { ["container: \($0.1)"] } ?? []) + [
                "account: " + (status.account ?? "not signed in"),
                "network: " + (status.isOffline ? "offline" : "online"),
                "latency: \(status.latencyMilliseconds) ms",
                "error rates:" + (rates.isEmpty ? " none" : ""),
            ] + rates + ["scripted errors:" + (scripted.isEmpty ? " none" : "")] + scripted + [
                "quota: " + (unanswered.map { _ in "unknown" } ?? report.quota.map { "\($0) records" } ?? "none"),
                "records: " + (unanswered.map { "unknown (the server could not be asked: \($0))" }
                    ?? report.recordCount.map { "\($0)" + (served == nil ? "" : " (as the server counts them)") } ?? "unknown"),
            ]
        case .traditionalChinese:
            return [
                "裝置: \(status.device)",
                "遠端: " + (served.map { "伺服器 \($0.0)" } ?? "內建（在這台機器上）"),
            ] + (served.map { ["容器: \($0.1)"] } ?? []) + [
                "帳號: " + (status.account ?? "未登入"),
                "網路: " + (status.isOffline ? "離線" : "連線中"),
                "延遲: \(status.latencyMilliseconds) ms",
                "隨機錯誤:" + (rates.isEmpty ? " 無" : ""),
            ] + rates + ["排定錯誤:" + (scripted.isEmpty ? " 無" : "")] + scripted + [
                "配額: " + (unanswered.map { _ in "不明" } ?? report.quota.map { "\($0) 筆記錄" } ?? "無"),
                "記錄數: " + (unanswered.map { "不明（無法詢問伺服器：\($0)）" }
                    ?? report.recordCount.map { "\($0)" + (served == nil ? "" : "（伺服器的計數）") } ?? "不明"),
            ]
        }
    }

    /// `remote fault add`.
    static func faultAdded(_ fault: ErrorRate, device: String, _ language: Language) -> String {
        switch language {
        case .english: "Profile \(device): \(rate(fault, language))."
        case .traditionalChinese: "設定檔 \(device)：\(rate(fault, language))"
        }
    }

    /// `remote fault script`.
    static func faultsScripted(_ errors: [ScriptedError], device: String, _ language: Language) -> String {
        let names = errors.map { error($0.error, operation: nil, language) }
        let kind = errors.first?.operation.map { "\($0.rawValue) " } ?? ""
        switch (language, errors.count) {
        case (.english, 1): return "Profile \(device): the next \(kind)request fails with \(names[0])."
        case (.english, _):
            return "Profile \(device): the next \(errors.count) \(kind)requests fail with \(names.joined(separator: ", ")), in order."
        case (.traditionalChinese, 1): return "設定檔 \(device)：下一個 \(kind)請求以 \(names[0]) 失敗"
        case (.traditionalChinese, _):
            return "設定檔 \(device)：接下來 \(errors.count) 個 \(kind)請求依序以 \(names.joined(separator: "、")) 失敗"
        }
    }

    /// `remote fault clear`.
    static func faultsCleared(device: String, _ language: Language) -> String {
        switch language {
        case .english: "Profile \(device): no error faults."
        case .traditionalChinese: "設定檔 \(device)：已清除錯誤故障"
        }
    }

    /// `25% of modify requests fail with serviceUnavailable (retry after 5 s)`
    private static func rate(_ rate: ErrorRate, _ language: Language) -> String {
        let share = number((rate.probability * 1000).rounded() / 10) + "%"
        let error = self.error(rate.error, operation: nil, language)
        switch (language, rate.operation) {
        case let (.english, operation?): return "\(share) of \(operation.rawValue) requests fail with \(error)"
        case (.english, nil): return "\(share) of requests fail with \(error)"
        case let (.traditionalChinese, operation?): return "\(share) 的 \(operation.rawValue) 請求以 \(error) 失敗"
        case (.traditionalChinese, nil): return "\(share) 的請求以 \(error) 失敗"
        }
    }

    /// `serviceUnavailable (retry after 5 s)`, with `, modify only` for one kind of request:
    /// the code name as the commands take it, the rest in `language`.
    private static func error(_ error: CloudError, operation: CloudOperation?, _ language: Language) -> String {
        var details: [String] = []
        let english = language == .english
        if let seconds = error.retryAfter { details.append(english ? "retry after \(number(seconds)) s" : "\(number(seconds)) 秒後重試") }
        if let operation { details.append(english ? "\(operation.rawValue) only" : "僅限 \(operation.rawValue)") }
        return error.code.rawValue + (details.isEmpty ? "" : english ? " (\(details.joined(separator: ", ")))" : "（\(details.joined(separator: "，"))）")
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
