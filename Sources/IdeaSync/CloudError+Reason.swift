import CloudKitModel
import IdeaModel

extension CloudError {
    /// Why the remote refused, short, in `language`: what the status bar, `sync` and the
    /// sync log say after their own words. English is the error's `description`.
    public func reason(in language: Language) -> String {
        guard language == .traditionalChinese else { return description }
        return switch self {
        case .networkUnavailable: "網路無法使用"
        case .networkFailure: "網路傳輸失敗"
        case let .untrustedServer(host, _): "不信任 \(host) 的連線（憑證或未加密的 http）"
        case let .serverUnreachable(host, cause): cause.reason(host: host)
        case .notAuthenticated: "尚未登入帳號"
        case .tokenRefused: "伺服器拒絕了這台裝置的權杖"
        case .quotaExceeded: "超出儲存配額"
        case let .zoneBusy(seconds): "區域忙碌中（\(Self.seconds(seconds)) 秒後重試）"
        case let .requestRateLimited(seconds): "請求過於頻繁（\(Self.seconds(seconds)) 秒後重試）"
        case .serviceUnavailable(nil): "服務暫停"
        case let .serviceUnavailable(seconds?): "服務暫停（\(Self.seconds(seconds)) 秒後重試）"
        case let .serverDatabaseUnavailable(seconds): "伺服器的資料庫沒有回應（\(Self.seconds(seconds)) 秒後重試）"
        case .internalError: "伺服器內部錯誤"
        case let .partialFailure(items): "部分失敗（\(items.count) 筆失敗）"
        case .limitExceeded: "一次請求的項目太多"
        case .unknownItem: "伺服器上找不到這筆紀錄"
        case .zoneNotFound: "找不到區域"
        case .changeTokenExpired: "變更權杖已過期"
        case .serverRecordChanged: "伺服器上的紀錄已變更"
        case let .badRequest(reason): "伺服器拒絕了這個請求：\(reason)"
        case .encryptionChanged: "這台裝置上次查看後，帳號的加密設定已變更"
        }
    }

    /// `60` for whole seconds, `1.5` otherwise.
    private static func seconds(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension UnreachableCause {
    /// How the connection to `host` failed, in Chinese.
    func reason(host: String) -> String {
        switch self {
        case .refused: "\(host) 沒有服務在聽（連線被拒）"
        case .unknownHost: "找不到名為 \(host) 的主機"
        case .timedOut: "\(host) 沒有及時回應"
        case .connectionLost: "與 \(host) 的連線中斷"
        }
    }
}
