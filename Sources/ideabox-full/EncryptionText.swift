import AccountEncryption
import CloudKitModel
import IdeaModel
import IdeaSync

/// Every sentence of the encryption commands and refusals, English and Traditional Chinese
/// side by side.
enum EncryptionText {
    /// A refused sealed record or asset, for the sync log.
    static func refused(_ failure: OpenFailure, _ language: Language) -> String {
        guard language == .traditionalChinese else { return failure.description }
        let what = switch failure.subject {
        case let .record(id, type): "記錄 \(id)（\(type)）"
        case let .asset(reference): "\(reference)"
        }
        let why = switch failure.reason {
        case .notSealed: "它沒有加密"
        case let .unknownFormat(version): "它的加密格式 \(version) 無法辨識"
        case let .unknownKey(id): "它以這台裝置沒有的金鑰 \(id) 加密"
        case .sealBroken: "它的加密驗證失敗（被竄改、調換或移動）"
        case let .malformed(reason): "加密的內容格式錯誤（\(reason)）"
        case .nameMismatch: "它的名稱與加密內容不符"
        }
        return "已拒絕\(what)：\(why)"
    }

    /// The prompts.
    static func prompt(_ prompt: Prompt, _ language: Language) -> String {
        switch (prompt, language) {
        case (.newPassphrase, .english): "New passphrase: "
        case (.newPassphrase, .traditionalChinese): "新密語："
        case (.repeatPassphrase, .english): "Type it again: "
        case (.repeatPassphrase, .traditionalChinese): "再輸入一次："
        case (.passphrase, .english): "Passphrase: "
        case (.passphrase, .traditionalChinese): "密語："
        case (.recoveryKey, .english): "Recovery key: "
        case (.recoveryKey, .traditionalChinese): "復原金鑰："
        }
    }

    /// What a prompt asks for.
    enum Prompt {
        case newPassphrase, repeatPassphrase, passphrase, recoveryKey
    }

    /// `enable` turned encryption on (and shows the recovery key once), or sealed what an
    /// earlier run left plain.
    static func enabled(account: String, recoveryKey: RecoveryKey?, sealed: Int, _ language: Language) -> String {
        let english = language == .english
        var lines = [
            english
                ? "Encryption is on for account \(account): \(sealed) \(sealed == 1 ? "record was" : "records were") sealed now; the server sees no idea or file from now on."
                : "帳號 \(account) 已開啟加密：這次加密了 \(sealed) 筆記錄；從現在起伺服器看不到任何靈感或檔案",
        ]
        if let recoveryKey { lines += recoveryKeyLines(recoveryKey, language) }
        return lines.joined(separator: "\n")
    }

    /// The recovery key, shown once, and how another device joins.
    private static func recoveryKeyLines(_ recoveryKey: RecoveryKey, _ language: Language) -> [String] {
        let english = language == .english
        return [
            english
                ? "Recovery key (shown this once; write it down and keep it apart from this device):"
                : "復原金鑰（只顯示這一次；請抄下來，並與這台裝置分開保存）：",
            "", "    \(recoveryKey.text)", "",
            english ? "Another device joins with: ideabox account unlock" : "其他裝置請用這個指令加入：ideabox account unlock",
        ]
    }

    /// `rotate` made a new key; `sealed` records were sealed again with it now, or nil if
    /// that is left to the next syncs (`--background`, or the remote failed meanwhile).
    static func rotated(from old: AccountKeyID, to new: AccountKeyID, sealed: Int?, _ language: Language) -> String {
        let english = language == .english
        let first = english
            ? "The account key is rotated: key \(new) replaces key \(old); the passphrase and the recovery key stay the same."
            : "帳號金鑰已輪替：金鑰 \(new) 取代了金鑰 \(old)；密語與復原金鑰維持不變"
        let second = switch (sealed, english) {
        case let (count?, true):
            "\(count) \(count == 1 ? "record was" : "records were") sealed again with it; other unlocked devices follow without the passphrase."
        case let (count?, false): "已用新金鑰重新加密 \(count) 筆記錄；其他已解鎖的裝置不需密語就會跟上"
        case (nil, true):
            "Records still sealed with the earlier key are sealed again by this device's next syncs, and stay readable meanwhile."
        case (nil, false): "仍以舊金鑰加密的記錄，會由這台裝置接下來的同步重新加密，這段期間仍可讀取"
        }
        return first + "\n" + second
    }

    /// `reset` made a new key and passphrase, and sealed this device's data with them.
    static func reset(recoveryKey: RecoveryKey, ideas: Int, files: Int, _ language: Language) -> String {
        let english = language == .english
        let first = english
            ? "The account's encryption is reset: a new key and passphrase; \(ideas) \(ideas == 1 ? "idea" : "ideas") and \(files) library \(files == 1 ? "file were" : "files were") sealed again from this device. Every other device unlocks again with the new passphrase."
            : "帳號的加密已重設：新的金鑰與密語；已從這台裝置重新加密 \(ideas) 則靈感與 \(files) 個資料庫檔案。其他每台裝置都要用新密語重新解鎖"
        return ([first] + recoveryKeyLines(recoveryKey, language)).joined(separator: "\n")
    }

    /// `enable` lost to another device that turned encryption on first with the same passphrase.
    static func joinedOtherDevice(_ language: Language) -> String {
        language == .english
            ? "Another device turned encryption on first; this device is unlocked with its key (your passphrase opens it)."
            : "另一台裝置已先開啟加密；這台裝置已用它的金鑰解鎖（您的密語可以開啟它）"
    }

    /// `unlock` succeeded.
    static func unlocked(account: String, _ language: Language) -> String {
        language == .english
            ? "Unlocked: this device syncs account \(account)'s encrypted ideas."
            : "已解鎖：這台裝置會同步帳號 \(account) 的加密靈感"
    }

    /// `unlock` on a device that already holds the key.
    static func alreadyUnlocked(_ language: Language) -> String {
        language == .english ? "This device is already unlocked." : "這台裝置已經解鎖"
    }

    /// `passphrase` changed it.
    static func passphraseChanged(_ language: Language) -> String {
        language == .english
            ? "The passphrase is changed; no record was rewritten, and the recovery key stays the same."
            : "密語已變更；沒有改寫任何記錄，復原金鑰維持不變"
    }

    /// `disable` turned it off.
    static func disabled(account: String, opened: Int, _ language: Language) -> String {
        language == .english
            ? "Encryption is off for account \(account): \(opened) \(opened == 1 ? "record is" : "records are") plain again, and the server can read them."
            : "帳號 \(account) 已關閉加密：\(opened) 筆記錄已恢復為未加密，伺服器可以讀取"
    }

    /// `disable` on a device that held a key the remote no longer has.
    static func releasedKey(account: String, _ language: Language) -> String {
        language == .english
            ? "This device let go of account \(account)'s key: encryption is off, and what it sends the server can read."
            : "這台裝置已放下帳號 \(account) 的金鑰：加密已關閉，它送出的資料伺服器可以讀取"
    }

    /// `sign-in` to an encrypted account.
    static func signedInLocked(_ language: Language) -> String {
        language == .english
            ? "This account's ideas are encrypted: run ideabox account unlock to sync them here."
            : "這個帳號的靈感已加密：請執行 ideabox account unlock 以在這裡同步"
    }

    /// `status`'s line, and the value of `status --json`'s `encryption`.
    static func statusLine(_ state: EncryptionState, _ language: Language) -> String {
        switch (state, language) {
        case (.off, .english): "encryption: off"
        case (.on, .english): "encryption: on"
        case (.locked, .english): "encryption: on, this device locked (run ideabox account unlock)"
        case (.off, .traditionalChinese): "加密: 關閉"
        case (.on, .traditionalChinese): "加密: 開啟"
        case (.locked, .traditionalChinese): "加密: 開啟，這台裝置尚未解鎖（請執行 ideabox account unlock）"
        }
    }
}

/// The errors of the encryption commands, one sentence each.
enum EncryptionCommandError: UserFacingError {
    /// The key operation's own error.
    case key(AccountEncryptionError)
    /// The profile is not signed in.
    case notSignedIn
    /// `enable` on an account that has encryption on.
    case alreadyOn(account: String)
    /// `unlock`, `passphrase` or `disable` on an account without encryption.
    case off(account: String)
    /// `unlock` on a device that holds a key while the remote has no envelope.
    case envelopeGone(account: String)
    /// The two passphrases typed differ.
    case passphrasesDiffer
    /// A new passphrase does not keep `PassphraseRule`.
    case weakPassphrase(PassphraseRule.Weakness)
    /// Standard input ended before the passphrase.
    case noInput
    /// `enable` lost the race to another device, whose passphrase is another one.
    case enabledElsewhere
    /// The envelope changed on the remote meanwhile.
    case changedMeanwhile
    /// `passphrase` or `disable` needs this device unlocked first.
    case locked
    /// `reset` without `--yes`.
    case resetNeedsConfirmation
    /// The remote failed.
    case remote(CloudError)
    /// `enable` on iCloud, whose ideas the IdeaBox app must read.
    case notOnICloud

    func message(in language: Language) -> String {
        let english = language == .english
        switch self {
        case let .key(error): return Self.keyMessage(error, language)
        case .notOnICloud:
            return english
                ? "Encryption is not possible on iCloud: the IdeaBox app on your iPhone and Mac could not read sealed ideas."
                : "iCloud 上無法加密：iPhone 與 Mac 上的 IdeaBox app 無法讀取加密的靈感"
        case .notSignedIn:
            return english ? "This profile is not signed in; sign in first: ideabox account sign-in NAME." : "這個設定檔尚未登入；請先登入：ideabox account sign-in NAME"
        case let .alreadyOn(account):
            return english
                ? "Encryption is already on for account \(account); unlock this device with: ideabox account unlock"
                : "帳號 \(account) 已開啟加密；請以 ideabox account unlock 解鎖這台裝置"
        case let .off(account):
            return english
                ? "Encryption is off for account \(account); turn it on with: ideabox account encryption enable"
                : "帳號 \(account) 未開啟加密；請以 ideabox account encryption enable 開啟"
        case let .envelopeGone(account):
            return english
                ? "The remote no longer holds account \(account)'s key, so this device sends nothing; if encryption was turned off on another device, run: ideabox account encryption disable"
                : "遠端已不再保存帳號 \(account) 的金鑰，所以這台裝置不會送出任何資料；若是在另一台裝置關閉了加密，請執行 ideabox account encryption disable"
        case .passphrasesDiffer:
            return english ? "The two passphrases differ; nothing changed." : "兩次輸入的密語不同；沒有任何變更"
        case let .weakPassphrase(weakness):
            return Self.weakPassphraseMessage(weakness, language)
        case .noInput:
            return english ? "No passphrase was given on standard input; nothing changed." : "標準輸入沒有提供密語；沒有任何變更"
        case .enabledElsewhere:
            return english
                ? "Another device turned encryption on first with another passphrase; unlock with its passphrase: ideabox account unlock"
                : "另一台裝置已先以其他密語開啟加密；請以它的密語解鎖：ideabox account unlock"
        case .changedMeanwhile:
            return english
                ? "Another device changed the account's keys meanwhile; nothing changed here, try again."
                : "另一台裝置同時變更了帳號的金鑰；這裡沒有任何變更，請再試一次"
        case .locked:
            return english ? "This device is locked; unlock it first: ideabox account unlock" : "這台裝置尚未解鎖；請先執行 ideabox account unlock"
        case .resetNeedsConfirmation:
            return english
                ? "A reset makes the remote hold exactly this device's ideas and library, sealed with a new key; confirm with --yes."
                : "重設會讓遠端只保存這台裝置的靈感與資料庫，並以新金鑰加密；請加上 --yes 確認"
        case let .remote(error):
            return english ? "The remote failed: \(error.reason(in: language))." : "遠端發生錯誤：\(error.reason(in: language))"
        }
    }

    /// A new passphrase refused: what is wrong with it, then the whole rule (`PassphraseRule`).
    static func weakPassphraseMessage(_ weakness: PassphraseRule.Weakness, _ language: Language) -> String {
        let minimum = PassphraseRule.minimumLength
        if language == .english {
            let what = switch weakness {
            case let .tooShort(count): "This passphrase has \(count) \(count == 1 ? "character" : "characters")"
            case .tooGuessable: "This passphrase is too easy to guess"
            }
            return what + "; nothing changed. A passphrase needs at least \(minimum) characters and must be hard to guess: "
                + "repeated characters, runs such as abc or 123, and common passwords count for little. "
                + "A few words of your own, in an order only you would pick, work well."
        }
        let what = switch weakness {
        case let .tooShort(count): "這個密語只有 \(count) 個字元"
        case .tooGuessable: "這個密語太容易被猜到"
        }
        return what + "；沒有任何變更。密語至少需要 \(minimum) 個字元（每個中文字算一個），而且要難以猜測："
            + "重複的字元、abc 或 123 這類連續字元、常見的密碼都幾乎不算數。用幾個只有你會想到的詞，依你自己的順序組合，就很好"
    }

    /// `AccountEncryptionError` in the person's language (its `description` is the English).
    static func keyMessage(_ error: AccountEncryptionError, _ language: Language) -> String {
        guard language == .traditionalChinese else { return error.description }
        return switch error {
        case .wrongPassphrase: "這個密語無法解開帳號的金鑰；沒有任何變更"
        case .wrongRecoveryKey: "這個復原金鑰無法解開帳號的金鑰；沒有任何變更"
        case .notARecoveryKey: "這不是復原金鑰：有字元打錯、缺少或多出"
        case .emptyPassphrase: "密語是空的"
        case let .unreadableEnvelope(reason): "無法讀取帳號的金鑰信封：\(reason)"
        case let .unsupportedEnvelopeVersion(version): "帳號的金鑰信封是這個 IdeaBox 不認得的版本 \(version)：請更新 IdeaBox"
        case .keysNotInEnvelope: "這台裝置的金鑰已不在帳號的金鑰信封中：請以密語或復原金鑰解鎖"
        case .tooManyEarlierKeys: "帳號已保留 \(AccountKeyring.maximumEarlierKeys) 把舊金鑰：請重設加密，而不是輪替"
        case let .unreadableKeyring(reason): "無法讀取這台裝置的金鑰檔：\(reason)"
        case .keyDerivationFailed: "無法由密語推導出金鑰（記憶體可能不足）；沒有任何變更"
        }
    }
}
