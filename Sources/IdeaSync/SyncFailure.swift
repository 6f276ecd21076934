import AccountEncryption
import CloudKitModel
import IdeaModel
import IdeaStore

/// Why a sync could not finish, sorted by what the engine does about it.
public enum SyncFailure: Error, Sendable, Equatable, UserFacingError {
    /// The network is off: wait for it to come back.
    case offline
    /// No account: local mode.
    case notSignedIn
    /// The server refused the device's token (revoked, or its account deleted): local mode
    /// until the person signs in again.
    case signedOutByServer
    /// iCloud refused the device's web auth token (expired, or the person signed out
    /// everywhere): local mode until the person signs in again.
    case signedOutByICloud
    /// The account's storage is full: local mode with a notice.
    case quotaExceeded
    /// Signed in to another account than the one this device's ideas belong to.
    case wrongAccount(bound: String, current: String)
    /// The account's ideas are encrypted and this device holds no key (or, `keyHeldHere`, a
    /// key the account no longer uses: turned off or reset on another device, or the
    /// envelope removed from the server): nothing is sent or fetched until
    /// `ideabox account unlock` (or `ideabox account encryption disable`).
    case locked(keyHeldHere: Bool)
    /// Worth retrying: the remote's error (with how long it asked to wait, if it did).
    case transient(CloudError)
    /// The local database failed.
    case store(String)
    /// The local database can't be used, for a reason a person can act on (it is damaged:
    /// `ideabox repair`); said in the store's own sentence.
    case storage(StorageError)

    public func message(in language: Language) -> String {
        switch (self, language) {
        case (.offline, .english): "The network is off; changes wait on this device."
        case (.offline, .traditionalChinese): "網路已關閉；變更暫存在這台裝置"
        case (.notSignedIn, .english): "Not signed in to an account; ideas stay on this device."
        case (.notSignedIn, .traditionalChinese): "尚未登入帳號；靈感只保存在這台裝置"
        case (.signedOutByServer, .english):
            "The server refused this device's token (revoked?); sign in again with ideabox account sign-in."
        case (.signedOutByServer, .traditionalChinese): "伺服器拒絕了這台裝置的權杖（已撤銷？）；請以 ideabox account sign-in 重新登入"
        case (.signedOutByICloud, .english):
            "Signed out by iCloud (the sign-in expired, or ended everywhere) · sign in again with ideabox account sign-in --icloud."
        case (.signedOutByICloud, .traditionalChinese): "已被 iCloud 登出（登入已過期，或已在所有地方結束）· 請以 ideabox account sign-in --icloud 重新登入"
        case (.quotaExceeded, .english): "The account's storage is full; ideas stay on this device."
        case (.quotaExceeded, .traditionalChinese): "帳號儲存空間已滿；靈感只保存在這台裝置"
        case let (.wrongAccount(bound, current), .english):
            "Signed in as \(current), but these ideas belong to \(bound); sign in as \(bound) to sync them, "
                + "or bring them into \(current) with ideabox account sign-in \(current) --merge."
        case let (.wrongAccount(bound, current), .traditionalChinese):
            "目前登入的是 \(current)，但這些靈感屬於 \(bound)；請登入 \(bound) 以同步，"
                + "或以 ideabox account sign-in \(current) --merge 合併到 \(current)"
        case (.locked(false), .english): "This account's ideas are encrypted and this device is locked; run ideabox account unlock."
        case (.locked(false), .traditionalChinese): "這個帳號的靈感已加密，這台裝置尚未解鎖；請執行 ideabox account unlock"
        case (.locked(true), .english):
            "The account no longer uses this device's key (encryption turned off or reset on another device, or its key removed "
                + "from the server), so nothing is sent; run ideabox account unlock, or ideabox account encryption disable if it was turned off."
        case (.locked(true), .traditionalChinese):
            "帳號已不再使用這台裝置的金鑰（在另一台裝置關閉或重設了加密，或金鑰已從伺服器移除），所以不會送出任何資料；"
                + "請執行 ideabox account unlock，若加密已關閉則執行 ideabox account encryption disable"
        case let (.transient(error), .english): "The remote failed: \(error.reason(in: language))."
        case let (.transient(error), .traditionalChinese): "遠端發生錯誤：\(error.reason(in: language))"
        case let (.store(reason), .english): "The local database failed: \(reason)."
        case let (.store(reason), .traditionalChinese): "本機資料庫發生錯誤：\(reason)"
        case let (.storage(error), _): error.message(in: language)
        }
    }

    /// The failure an error of the local database means: the store's own sentence if it has
    /// one, else the error's description on one line (a database error's spans its SQL).
    init(localError error: any Error) {
        if let error = error as? StorageError {
            self = .storage(error)
        } else if let locked = error as? AccountLocked {
            self = .locked(keyHeldHere: locked.keyHeldHere)
        } else {
            self = .store(String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " "))
        }
    }

    /// Why a retried sync failed, short, for the status bar after its state's words: the
    /// remote's error or the database's.
    public func reason(in language: Language) -> String {
        switch self {
        case let .transient(error): error.reason(in: language)
        case let .store(reason): reason
        default: message(in: language)
        }
    }

    /// How long the remote asked to wait before the next try, if it did.
    public var retryAfter: Double? {
        guard case let .transient(error) = self else { return nil }
        return error.retryAfter
    }

    /// The failure a remote error means.
    public init(_ error: CloudError) {
        switch error.code {
        case .networkUnavailable: self = .offline
        case .notAuthenticated: self = .notSignedIn
        case .tokenRefused: self = .signedOutByServer
        case .quotaExceeded: self = .quotaExceeded
        default: self = .transient(error)
        }
    }
}

/// What one sync did.
public struct SyncReport: Sendable, Equatable {
    /// Changes this device sent.
    public var sent = 0
    /// Remote changes applied here.
    public var received = 0
    /// Conflicts settled (each is in the conflict log).
    public var conflicts = 0

    /// A report with these counts.
    public init(sent: Int = 0, received: Int = 0, conflicts: Int = 0) {
        self.sent = sent
        self.received = received
        self.conflicts = conflicts
    }
}
