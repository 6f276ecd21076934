import CloudKitModel
import CloudHTTPClient
import Foundation
import IdeaModel
import IdeaSync

/// Errors of the commands only `ideabox-full` runs, English and Traditional Chinese side by side.
enum FullCommandError: UserFacingError {
    case overwriteNeedsConfirmation
    case libraryOverwriteNeedsConfirmation
    case quotaNeedsAccount(device: String)
    case quotaIsTheServers(account: String)
    case tokenNeeded
    case noValidToken(account: String)
    /// `serve api-token revoke` named no valid token.
    case noValidAPIToken(label: String)
    /// `serve api-token add` named a label a valid token has.
    case apiTokenExists(label: String)
    /// The server's store could not be opened; the store's own words (they name the database's error).
    case store(String)
    /// `serve --tls-cert --tls-key` could not use the files; the words name the file and why.
    case serverTLS(String)
    /// `serve` could not listen on `host`:`port`; `code` is the system's `errno`.
    case cannotListen(host: String, port: Int, code: Int32)
    /// `serve account add` named an account that exists (in any case).
    case accountExists(String)
    /// A `serve account` command named no account.
    case noSuchAccount(String)
    /// `serve account token add` named a label a valid token of the account has.
    case tokenLabelExists(account: String, label: String)
    /// `serve account token revoke` named no valid token.
    case noValidTokenLabelled(account: String, label: String)
    /// `serve account delete` without `--yes`.
    case deleteNeedsConfirmation(account: String, records: Int)
    /// `account sign-in --server` could not be checked with the server: the sign-in before stays.
    case signInRefused(account: String, server: String, CloudError)
    /// `account sign-in --icloud` found no API token.
    case iCloudAPITokenNeeded
    /// The API token given for iCloud is not one.
    case iCloudAPITokenInvalid
    /// The web auth token given for iCloud is not one.
    case iCloudTokenInvalid
    /// `IDEABOX_ICLOUD_URL` is no http(s) URL.
    case iCloudURLInvalid
    /// The sign-in callback's port is taken.
    case iCloudCallbackPortInUse(port: Int)
    /// iCloud refused the API token or the web auth token, or could not be reached.
    case iCloudSignInRefused(CloudError)

    func message(in language: Language) -> String {
        switch (self, language) {
        case (.overwriteNeedsConfirmation, .english):
            "--overwrite-remote replaces the ideas of every device of the account with this profile's; add --yes to do it."
        case (.overwriteNeedsConfirmation, .traditionalChinese):
            "--overwrite-remote 會用這台裝置的靈感取代帳號下所有裝置的靈感；確定要執行請加上 --yes"
        case (.libraryOverwriteNeedsConfirmation, .english):
            "overwrite-remote makes every device's library folder the same as this one, deleting what this folder lacks; add --yes to do it."
        case (.libraryOverwriteNeedsConfirmation, .traditionalChinese):
            "overwrite-remote 會讓所有裝置的檔案庫與這個資料夾相同，並刪除這個資料夾沒有的檔案；確定要執行請加上 --yes"
        case let (.quotaNeedsAccount(device), .english):
            "Profile \(device) is not signed in; sign in first, the quota belongs to an account."
        case let (.quotaNeedsAccount(device), .traditionalChinese):
            "設定檔 \(device) 尚未登入；配額屬於帳號，請先登入"
        case let (.quotaIsTheServers(account), .english):
            "This profile syncs with a server; its quota is set there: ideabox serve account quota \(account) N."
        case let (.quotaIsTheServers(account), .traditionalChinese):
            "這台裝置與伺服器同步；配額要在伺服器上設定：ideabox serve account quota \(account) N"
        case (.tokenNeeded, .english):
            "Signing in to a server needs the account's token: pass --token or type it on standard input."
        case (.tokenNeeded, .traditionalChinese):
            "登入伺服器需要帳號的權杖：請使用 --token 或從標準輸入輸入"
        case let (.noValidToken(account), .english): "Account \(account) has no valid token to revoke."
        case let (.noValidToken(account), .traditionalChinese): "帳號 \(account) 沒有可撤銷的有效權杖"
        case let (.noValidAPIToken(label), .english): "No valid API token is named \(label)."
        case let (.noValidAPIToken(label), .traditionalChinese): "沒有名為 \(label) 的有效 API 權杖"
        case let (.apiTokenExists(label), .english): "A valid API token is already named \(label); revoke it first or pick another name."
        case let (.apiTokenExists(label), .traditionalChinese): "已有名為 \(label) 的有效 API 權杖；請先撤銷，或換個名稱"
        case let (.store(reason), .english): reason
        case let (.store(reason), .traditionalChinese): "無法使用伺服器的儲存區：\(reason)"
        case let (.serverTLS(reason), .english): reason
        case let (.serverTLS(reason), .traditionalChinese): "無法使用 TLS 憑證：\(reason)"
        case (.cannotListen(let host, let port, EADDRINUSE), .english):
            "Another program is already listening on \(host):\(port); choose another port with --listen \(host):PORT, or stop that program."
        case (.cannotListen(let host, let port, EADDRINUSE), .traditionalChinese):
            "已有其他程式在 \(host):\(port) 監聽；請用 --listen \(host):PORT 改用其他連接埠，或停止那個程式"
        case (.cannotListen(let host, let port, EADDRNOTAVAIL), .english):
            "Can't listen on \(host):\(port): \(host) is not an address of this machine; choose one of its addresses with --listen HOST:\(port)."
        case (.cannotListen(let host, let port, EADDRNOTAVAIL), .traditionalChinese):
            "無法在 \(host):\(port) 監聽：\(host) 不是這台機器的位址；請用 --listen HOST:\(port) 改用它的位址"
        case let (.cannotListen(host, port, code), .english): "Can't listen on \(host):\(port): \(String(cString: strerror(code)))."
        case let (.cannotListen(host, port, code), .traditionalChinese): "無法在 \(host):\(port) 監聽：\(String(cString: strerror(code)))"
        case let (.accountExists(account), .english):
            "Account \(account) already exists; give it another token with: ideabox serve account token add \(account) --label DEVICE"
        case let (.accountExists(account), .traditionalChinese):
            "帳號 \(account) 已存在；要再給它一個權杖請用：ideabox serve account token add \(account) --label DEVICE"
        case let (.noSuchAccount(name), .english): "No account is named \(name); make it with: ideabox serve account add \(name)"
        case let (.noSuchAccount(name), .traditionalChinese): "沒有名為 \(name) 的帳號；請用 ideabox serve account add \(name) 建立"
        case let (.tokenLabelExists(account, label), .english):
            "Account \(account) already has a valid token named \(label); revoke it first or pick another label."
        case let (.tokenLabelExists(account, label), .traditionalChinese): "帳號 \(account) 已有名為 \(label) 的有效權杖；請先撤銷，或換個名稱"
        case let (.noValidTokenLabelled(account, label), .english): "Account \(account) has no valid token named \(label)."
        case let (.noValidTokenLabelled(account, label), .traditionalChinese): "帳號 \(account) 沒有名為 \(label) 的有效權杖"
        case let (.deleteNeedsConfirmation(account, records), .english):
            "Deleting account \(account) removes its \(records) \(records == 1 ? "record" : "records"), files and tokens for good; add --yes to do it."
        case let (.deleteNeedsConfirmation(account, records), .traditionalChinese):
            "刪除帳號 \(account) 會永久移除其 \(records) 筆記錄、檔案與權杖；確定要執行請加上 --yes"
        case (.iCloudAPITokenNeeded, .english):
            "Signing in to iCloud needs the container's API token: pass --api-token, set \(ICloudEndpoint.apiTokenVariable), "
                + "or set icloud-api-token in the config file (see the README: Your iPhone's ideas in the terminal)."
        case (.iCloudAPITokenNeeded, .traditionalChinese):
            "登入 iCloud 需要容器的 API 權杖：請使用 --api-token、設定 \(ICloudEndpoint.apiTokenVariable)，或在設定檔中設定 icloud-api-token（見 README：Your iPhone's ideas in the terminal）"
        case (.iCloudAPITokenInvalid, .english):
            "The iCloud API token must be the 64 hex digits CloudKit Dashboard shows for the container's API token."
        case (.iCloudAPITokenInvalid, .traditionalChinese): "iCloud API 權杖必須是 CloudKit Dashboard 為容器 API 權杖顯示的 64 個十六進位數字"
        case (.iCloudTokenInvalid, .english):
            "--token must be the ckWebAuthToken Apple's sign-in gave (or the address it ended on): one line of printable text."
        case (.iCloudTokenInvalid, .traditionalChinese): "--token 必須是 Apple 登入給的 ckWebAuthToken（或登入最後停留的網址）：一行可列印的文字"
        case (.iCloudURLInvalid, .english):
            "\(ICloudEndpoint.urlVariable) must be an http:// or https:// URL of a CloudKit Web Services endpoint; unset it to reach Apple."
        case (.iCloudURLInvalid, .traditionalChinese):
            "\(ICloudEndpoint.urlVariable) 必須是 CloudKit Web Services 端點的 http:// 或 https:// 網址；取消設定即連到 Apple"
        case let (.iCloudCallbackPortInUse(port), .english):
            "Port \(port) on 127.0.0.1 is in use, so the sign-in cannot come back to it; "
                + "free it, or pass --callback-port with the port the container's sign-in callback names."
        case let (.iCloudCallbackPortInUse(port), .traditionalChinese):
            "127.0.0.1 的連接埠 \(port) 已被佔用，登入無法回到這裡；請釋出它，或以 --callback-port 指定容器登入回呼所用的連接埠"
        case let (.iCloudSignInRefused(error), .english):
            "Not signed in to iCloud: " + Self.iCloudProblem(error, language) + "; the sign-in before is kept."
        case let (.iCloudSignInRefused(error), .traditionalChinese):
            "未登入 iCloud：" + Self.iCloudProblem(error, language) + "；保留原本的登入"
        case let (.signInRefused(account, server, error), .english):
            "Not signed in as \(account): " + Self.signInProblem(error, server: server, language) + "; the sign-in before is kept."
        case let (.signInRefused(account, server, error), .traditionalChinese):
            "未登入 \(account)：" + Self.signInProblem(error, server: server, language) + "；保留原本的登入"
        }
    }

    /// Why an iCloud sign-in failed, naming what to do where there is something.
    private static func iCloudProblem(_ error: CloudError, _ language: Language) -> String {
        let english = language == .english
        switch error {
        case .tokenRefused, .notAuthenticated:
            return english
                ? "iCloud refused the API token or the sign-in (check the token and the environment in CloudKit Dashboard, and sign in again)"
                : "iCloud 拒絕了 API 權杖或這次登入（請在 CloudKit Dashboard 檢查權杖與環境，再重新登入）"
        default:
            return error.reason(in: language)
        }
    }

    /// Why a sign-in's one request failed, naming what to do where there is something.
    private static func signInProblem(_ error: CloudError, server: String, _ language: Language) -> String {
        let english = language == .english
        switch error {
        case .tokenRefused, .notAuthenticated:
            return english
                ? "\(server) refused the token (mistyped, revoked, or for another container); make one with ideabox serve account token add"
                : "\(server) 拒絕了這個權杖（打錯、已撤銷或屬於其他容器）；請以 ideabox serve account token add 產生新的"
        case .networkUnavailable:
            return english ? "this profile's network is off (ideabox remote offline off)" : "這個設定檔的網路已關閉（ideabox remote offline off）"
        default:
            return error.reason(in: language)
        }
    }
}
