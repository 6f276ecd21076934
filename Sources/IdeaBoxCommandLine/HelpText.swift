import Foundation

/// `--help` in Chinese. ArgumentParser writes the help from the commands' English
/// declarations, at a width that wraps nothing (the terminal wraps the long lines); each
/// heading and description is then looked up in the table below, English and Chinese side
/// by side. A description missing from the table stays English, and the help test fails.
public enum HelpText {
    /// The width ArgumentParser is told the terminal has while it writes help to translate:
    /// each description on one line.
    public static let unwrappedColumns = 100_000

    /// Where ArgumentParser starts an option's description.
    private static let descriptionColumn = 26

    /// `help`, written by ArgumentParser at `unwrappedColumns`, in Chinese.
    public static func chinese(_ help: String) -> String {
        help.split(separator: "\n", omittingEmptySubsequences: false).map { translated(String($0)) }.joined(separator: "\n")
    }

    /// The descriptions of `help` (written at `unwrappedColumns`) the table has no Chinese
    /// for: what the help test checks is empty.
    public static func untranslated(_ help: String) -> [String] {
        help.split(separator: "\n").compactMap { line in
            guard let (_, description) = parts(of: String(line)), chinese(description: description) == nil else { return nil }
            return description
        }
    }

    private static func translated(_ line: String) -> String {
        switch line {
        case "OPTIONS:": return "選項："
        case "ARGUMENTS:": return "引數："
        case "SUBCOMMANDS:": return "子命令："
        default: break
        }
        if line.hasPrefix("USAGE: ") { return "用法：" + line.dropFirst("USAGE: ".count) }
        guard let (lead, description) = parts(of: line) else { return line }
        return lead + (chinese(description: description) ?? description)
    }

    /// A line's lead (`OVERVIEW: `, an option's column, an indent) and its description, or
    /// nil for a line with none (a blank line, usage, an option alone on its line).
    private static func parts(of line: String) -> (lead: String, description: String)? {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("USAGE: "), !line.hasSuffix(":") || line.contains(" ") else {
            return nil
        }
        if line.hasPrefix("OVERVIEW: ") { return ("概要：", String(line.dropFirst("OVERVIEW: ".count))) }
        let indent = line.prefix(while: { $0 == " " })
        let rest = line.dropFirst(indent.count)
        if indent.count >= 2, indent.count < 10, !rest.hasPrefix("See '") {
            // `  --json    Print JSON.`: the option's column ends at two spaces or more; an
            // option or argument alone on its line has its description on the next.
            // ArgumentParser starts descriptions at column 26, after one space at least.
            let characters = Array(line)
            if rest.hasPrefix("-") || rest.hasPrefix("<"), characters.count > descriptionColumn,
               characters[descriptionColumn - 1] == " ", characters[descriptionColumn] != " " {
                return (String(characters[..<descriptionColumn]), String(characters[descriptionColumn...]))
            }
            if let gap = rest.range(of: "  ") {
                let description = rest[gap.upperBound...].drop(while: { $0 == " " })
                return (String(line.prefix(line.count - description.count)), String(description))
            }
            if rest.hasPrefix("-") || rest.hasPrefix("<") { return nil }
        }
        return (String(indent), String(rest))
    }

    /// A description's Chinese: the table's, with ArgumentParser's own `(default: …)` and
    /// `(values: …)` after it, and its pointer to more help.
    private static func chinese(description: String) -> String? {
        if let chinese = table[description] { return chinese }
        if description.hasPrefix("See '"), description.hasSuffix("' for detailed help.") {
            return "詳細說明請見 " + description.dropFirst(4).dropLast(" for detailed help.".count) + "。"
        }
        for (english, chinese) in [(" (default: ", "（預設："), (" (values: ", "（可用值：")]
        where description.hasSuffix(")") {
            guard let range = description.range(of: english, options: .backwards),
                  let base = self.chinese(description: String(description[..<range.lowerBound]))
            else { continue }
            return base + chinese + description[range.upperBound...].dropLast() + "）"
        }
        return nil
    }

    /// Every description of every command, in English and in Chinese.
    static let table: [String: String] = [
        // ideabox
        "Catch and keep your ideas, on every device of one account.": "記下並保存你的靈感，同一帳號的每台裝置都有。",
        "Run `ideabox` with no subcommand to open the full-screen app (press ? in it for its keys).":
            "不加子命令執行 `ideabox` 會開啟全螢幕介面（在其中按 ? 看按鍵）。",
        "Data lives under --data-dir, else $IDEABOX_HOME, else $XDG_DATA_HOME/ideabox, else ~/.local/share/ideabox; each --profile (default: \"default\") is one device.":
            "資料存放在 --data-dir，否則 $IDEABOX_HOME，否則 $XDG_DATA_HOME/ideabox，否則 ~/.local/share/ideabox；每個 --profile（預設：\"default\"）是一台裝置。",
        "The data root (default: $IDEABOX_HOME, $XDG_DATA_HOME/ideabox or ~/.local/share/ideabox).":
            "資料根目錄（預設：$IDEABOX_HOME、$XDG_DATA_HOME/ideabox 或 ~/.local/share/ideabox）。",
        "The profile, one simulated device (default: $IDEABOX_PROFILE or \"default\").": "設定檔，即一台模擬裝置（預設：$IDEABOX_PROFILE 或 \"default\"）。",
        "Don't insert the sample ideas on first launch (also IDEABOX_NO_SAMPLES=1).": "第一次啟動時不加入範例靈感（也可設 IDEABOX_NO_SAMPLES=1）。",
        "Leave the mouse to the terminal (also IDEABOX_MOUSE=0): no clicks or wheel in the app.":
            "把滑鼠留給終端機（也可設 IDEABOX_MOUSE=0）：介面中不接受點按與滾輪。",
        "Show the version.": "顯示版本。",
        "Show help information.": "顯示說明。",
        "Add an idea and print its id.": "新增一筆靈感並印出它的識別碼。",
        "List ideas, newest first: a page (the terminal's height, or 50) unless --all or --limit.":
            "列出靈感，最新的在前：一頁（終端機的高度，或 50 筆），除非用 --all 或 --limit。",
        "List ideas whose title or description contains QUERY, ignoring case.": "列出標題或描述包含 QUERY 的靈感，不分大小寫。",
        "Show every field of an idea.": "顯示一筆靈感的每個欄位。",
        "Change an idea's title or description; with neither, on a terminal, in $VISUAL, $EDITOR or vi.":
            "修改一筆靈感的標題或描述；兩者都沒給時，在終端機中用 $VISUAL、$EDITOR 或 vi 編輯。",
        "Mark an idea done.": "把一筆靈感標示為完成。",
        "Mark an idea not done.": "把一筆靈感標示為未完成。",
        "Delete an idea.": "刪除一筆靈感。",
        "List every version of an idea this device knows, the current one first.": "列出這台裝置知道的一筆靈感的每個版本，目前的在前。",
        "Make a version from an idea's history the current one, as a new edit.": "把一筆靈感歷史中的某個版本設為目前版本，當作一次新的編輯。",
        "Print every idea as JSON, every field and its stamp included; `import` reads it back.":
            "以 JSON 印出每筆靈感的所有欄位與其時間戳記；`import` 可以讀回。",
        "Import ideas from a JSON export (`-` reads standard input); all or nothing.": "從 JSON 匯出檔匯入靈感（`-` 讀取標準輸入）；全部匯入或完全不匯入。",
        "Sync this profile with the remote now; exits non-zero with the reason if it can't.": "立即與遠端同步這個設定檔；無法同步時以非零結束並說明原因。",
        "Show the account, the network, pending changes, the last sync and its error.": "顯示帳號、網路、待送出變更、上次同步與其錯誤。",
        "Show the sync log, or the settled conflicts with both sides, newest first.": "顯示同步紀錄，或已解決的衝突與雙方版本，最新的在前。",
        "Control the simulated remote for this profile: network, latency, errors, quota.": "控制這個設定檔的模擬遠端：網路、延遲、錯誤、配額。",
        "The config file: where it is, the settings in effect, and its problems.": "設定檔：它的位置、目前生效的設定，以及其中的問題。",
        "Print where the config file is read from (it may not exist yet).": "顯示設定檔的讀取位置（檔案可能還不存在）。",
        "Print the settings in effect (the defaults where the file is missing or has a problem).":
            "顯示目前生效的設定（檔案不存在或有問題時為預設值）。",
        "List every problem of the config file with its line; exit non-zero if there is one.":
            "列出設定檔的每個問題與其行號；有問題時以非零結束。",
        "The simulated account this profile is signed in to.": "這個設定檔登入的模擬帳號。",
        "Sync the RawLibrary folder (Items/*.json, FavoriteItems/*.json, Favorite.json) through the remote.":
            "透過遠端同步 RawLibrary 資料夾（Items/*.json、FavoriteItems/*.json、Favorite.json）。",
        "Serve the remote over HTTP or HTTPS in CloudKit Web Services' JSON, for devices on other machines.":
            "以 CloudKit Web Services 的 JSON 經 HTTP 或 HTTPS 提供遠端，給其他機器上的裝置使用。",
        // add, list, search, show, edit, done, rm, history, restore, export, import
        "The title: one line, at most 256 characters. Without it, on a terminal, the idea is written in $VISUAL, $EDITOR or vi (the title, a blank line, the description).":
            "標題：一行，最多 256 個字元。沒給標題時，在終端機中用 $VISUAL、$EDITOR 或 vi 撰寫（標題、一行空白、描述）。",
        "created (newest first, the default), updated (last changed first) or title (A to Z, Chinese after Latin by radical and strokes).":
            "created（最新的在前，預設）、updated（最近變更的在前）或 title（A 到 Z，中文在拉丁字母之後，依部首與筆畫）。",
        "Turn the order round (oldest first; Z to A).": "反轉順序（最舊的在前；Z 到 A）。",
        "The description, at most 4096 characters.": "描述，最多 4096 個字元。",
        "Mark the idea done.": "把這筆靈感標示為完成。",
        "Print the idea as JSON instead of its id.": "以 JSON 印出這筆靈感，而不是它的識別碼。",
        "Only ideas marked done.": "只列出已完成的靈感。",
        "Print JSON (every idea unless --limit).": "印出 JSON（除非用 --limit，否則是每筆靈感）。",
        "Print at most this many (1 or more).": "最多印出這麼多筆（1 以上）。",
        "Print every one.": "全部印出。",
        "Any text; one or two Chinese characters work too.": "任何文字；一兩個中文字也可以。",
        "Print JSON (every match unless --limit).": "印出 JSON（除非用 --limit，否則是每筆符合的靈感）。",
        "The id, or a unique prefix of it.": "識別碼，或它唯一的開頭。",
        "Print JSON.": "印出 JSON。",
        "The new title.": "新的標題。",
        "The new description.": "新的描述。",
        "Every value the idea had here: its edits, versions received from other devices and values that lost a merge, for 30 days and at least the last 50. Deleted ideas keep theirs. `ideabox restore ID VERSION` makes a version current again.":
            "這筆靈感在這台裝置上有過的每個值：它的編輯、從其他裝置收到的版本、合併時落敗的值，保留 30 天且至少最後 50 個。已刪除的靈感也保留。`ideabox restore ID VERSION` 可以讓某個版本再次成為目前版本。",
        "The id, or a unique prefix of it (a deleted idea's too).": "識別碼，或它唯一的開頭（已刪除的靈感也可以）。",
        "The version's number, as `ideabox history` lists it.": "版本編號，如 `ideabox history` 所列。",
        "The file `export` wrote, or `-`.": "`export` 寫出的檔案，或 `-`。",
        "Print what the import would change, and change nothing.": "印出匯入會做的變更，但不做任何變更。",
        "Don't write values edited by hand in the file; only name them.": "不寫入檔案中被手動修改的值；只列出它們。",
        "Each field is merged by the stamps the export holds, as a sync merges: an import never replaces a newer edit. A value that differs from this device's where no stamp says which is newer (a file edited by hand) is written as a new edit, and named.":
            "每個欄位依匯出檔中的時間戳記合併，與同步相同：匯入不會取代較新的編輯。與這台裝置不同、且沒有時間戳記能判斷哪個較新的值（手動修改過的檔案）會寫成一次新的編輯，並列出。",
        "All or nothing: an export that can't read every idea prints nothing, and leaves --output's file as it was.":
            "全有或全無：無法讀取每筆靈感的匯出什麼都不印，並讓 --output 的檔案維持原樣。",
        "Write to this file instead, replacing it only once the whole export is written.": "改寫入這個檔案，整份匯出寫完後才取代它。",
        // repair
        "Repair a damaged database: keep every idea that can still be read; the next sync brings back the rest.":
            "修復損壞的資料庫：保留每筆還讀得到的靈感；下次同步會取回其餘的。",
        "A damaged database is replaced by a fresh one holding what can still be read of it (ideas, deletes, changes waiting to be sent, history), and kept beside it as ideabox.sqlite.damaged-DATE-TIME. The next sync fetches everything from the remote again. A whole database is left as it is. Quit the app and `sync --watch` first.":
            "損壞的資料庫會換成一個新的，保存其中還讀得到的內容（靈感、刪除、待送出的變更、歷史），損壞的檔案另存在旁邊，名為 ideabox.sqlite.damaged-日期-時間。下次同步會從遠端重新取得全部資料。完好的資料庫維持原樣。請先結束全螢幕介面與 `sync --watch`。",
        // sync, status, log
        "Print what the sync did as JSON.": "以 JSON 印出同步做了什麼。",
        "Sync now, then keep syncing on every change of another device (a long poll) and every local change, one line per sync, until SIGINT or SIGTERM: for a machine without the app open.":
            "立即同步，之後在其他裝置每次變更（長輪詢）與本機每次變更時持續同步，每次同步一行，直到 SIGINT 或 SIGTERM：給沒有開著介面的機器。",
        "Make the remote hold exactly this profile's ideas; every other device follows. Needs --yes.":
            "讓遠端只保存這個設定檔的靈感；其他裝置都會跟著更新。需要 --yes。",
        "Confirm --overwrite-remote.": "確認 --overwrite-remote。",
        "Show the conflicts (the last 100 are kept).": "顯示衝突（保留最後 100 筆）。",
        "Print JSON; conflicts come with both full snapshots.": "印出 JSON；衝突附上雙方完整的內容。",
        "Print at most this many (default: 100).": "最多印出這麼多筆（預設：100）。",
        // remote
        "Airplane mode for this profile: `on` cuts its network, `off` brings it back.": "這個設定檔的飛航模式：`on` 切斷網路，`off` 恢復網路。",
        "Show this profile's account, network, latency, faults and quota.": "顯示這個設定檔的帳號、網路、延遲、故障與配額。",
        "Add latency to each of this profile's requests.": "為這個設定檔的每個請求加上延遲。",
        "Make this profile's requests fail: at random, by script, or no more.": "讓這個設定檔的請求失敗：隨機、依腳本，或不再失敗。",
        "Limit the records of the account this profile is signed in to.": "限制這個設定檔登入的帳號可保存的紀錄數。",
        "on: no network; off: network back.": "on：沒有網路；off：恢復網路。",
        "Milliseconds, 0 to 60000; 0 removes it.": "毫秒，0 到 60000；0 表示移除。",
        "Fail a share of this profile's requests with an error, at random.": "讓這個設定檔一部分的請求隨機以某個錯誤失敗。",
        "Fail this profile's next requests with these errors, one each, in order.": "讓這個設定檔接下來的請求依序各以這些錯誤失敗。",
        "Remove this profile's random and scripted errors (the network and latency stay as set).":
            "移除這個設定檔的隨機與腳本錯誤（網路與延遲維持原設定）。",
        "The error, by its CloudError code name, such as serviceUnavailable.": "錯誤，以 CloudError 的代碼名稱表示，例如 serviceUnavailable。",
        "The chance a request fails, more than 0 and at most 1.": "請求失敗的機率，大於 0 且最多 1。",
        "Seconds the error asks to wait (zoneBusy, requestRateLimited, serviceUnavailable, serverDatabaseUnavailable).":
            "錯誤要求等待的秒數（zoneBusy、requestRateLimited、serviceUnavailable、serverDatabaseUnavailable）。",
        "Only this kind of request: createZone, deleteZone, modify, fetchChanges, query, uploadAsset, fetchAsset.":
            "只限這種請求：createZone、deleteZone、modify、fetchChanges、query、uploadAsset、fetchAsset。",
        "Error code names, such as serviceUnavailable internalError.": "錯誤代碼名稱，例如 serviceUnavailable internalError。",
        "The most records the account may hold, or `off`.": "帳號最多可保存的紀錄數，或 `off`。",
        // device
        "This device: the name other devices know it by.": "這台裝置：其他裝置認得它的名稱。",
        "Print this device's name, or give it a new one; it goes with the ideas it sends.":
            "顯示這台裝置的名稱，或給它新名稱；名稱會隨它送出的靈感一起傳送。",
        "Other devices say \"on laptop\" in the history, the conflict log, `log` and `show` for what this device wrote. A name given here wins over the config file's device-name; without either, the name is the host name (with the profile beside it, for a profile other than \"default\").":
            "其他裝置在歷史、衝突紀錄、`log` 與 `show` 中會以「在 laptop 上」稱呼這台裝置寫下的內容。在這裡給的名稱優先於設定檔的 device-name；兩者都沒有時，名稱是主機名稱（不是 \"default\" 的設定檔會在旁邊加上設定檔名稱）。",
        "The new name: one line of 1 to 64 characters (default: print the current name).":
            "新名稱：一行 1 到 64 個字元（預設：顯示目前的名稱）。",
        // account
        "Show the account this profile is signed in to, and whose ideas it holds.": "顯示這個設定檔登入的帳號，以及它保存的是誰的靈感。",
        "Sign this profile in to an account, on the embedded remote or on `ideabox serve`; sync starts with the next run.":
            "讓這個設定檔登入一個帳號，在內建遠端或 `ideabox serve` 上；下次執行時開始同步。",
        "Sign this profile out; everything keeps working on this device.": "讓這個設定檔登出；這台裝置上一切照常運作。",
        // account encryption
        "Unlock this device for an encrypted account, with the passphrase or the recovery key.": "以密語或復原金鑰，為加密的帳號解鎖這台裝置。",
        "Unlock with the recovery key instead of the passphrase.": "以復原金鑰解鎖，而不是密語。",
        "Encrypt this account's ideas and library on every device: asks a passphrase twice, shows a recovery key once.":
            "在每台裝置上加密這個帳號的靈感與資料夾：詢問兩次密語，並顯示一次復原金鑰。",
        "Every record the account already has is sealed again, and its plain version is replaced on the remote. Other devices join with ideabox account unlock. The passphrase is read from standard input when it is not a terminal. It needs at least 12 characters and must be hard to guess: repeats, runs such as abc or 123 and common passwords count for little.":
            "帳號已有的每筆記錄都會重新加密，遠端上未加密的版本會被取代。其他裝置以 ideabox account unlock 加入。標準輸入不是終端機時，從標準輸入讀取密語。密語至少需要 12 個字元（每個中文字算一個），而且要難以猜測：重複的字元、abc 或 123 這類連續字元、常見的密碼都幾乎不算數。",
        "Change the account's passphrase (asks the current one, then the new one twice); no record is rewritten.":
            "變更帳號的密語（先詢問目前的，再詢問兩次新的）；不會改寫任何記錄。",
        "The new passphrase needs at least 12 characters and must be hard to guess: repeats, runs such as abc or 123 and common passwords count for little.":
            "新密語至少需要 12 個字元（每個中文字算一個），而且要難以猜測：重複的字元、abc 或 123 這類連續字元、常見的密碼都幾乎不算數。",
        "Prove it with the recovery key instead of the current passphrase.": "以復原金鑰證明身分，而不是目前的密語。",
        "Turn encryption off: every record is stored plain again on the remote (asks the passphrase).": "關閉加密：每筆記錄在遠端恢復為未加密保存（會詢問密語）。",
        "Prove it with the recovery key instead of the passphrase.": "以復原金鑰證明身分，而不是密語。",
        "Turn end-to-end encryption of this account on or off, change its passphrase, rotate or reset its key.":
            "開啟或關閉這個帳號的端對端加密、變更它的密語，或輪替、重設它的金鑰。",
        "Make a new account key (asks the passphrase); every record is sealed again with it, other unlocked devices follow.":
            "產生新的帳號金鑰（會詢問密語）；每筆記錄都以它重新加密，其他已解鎖的裝置會跟上。",
        "The passphrase and the recovery key stay the same. Records sealed with the earlier key stay readable until they are sealed again: now, or by this device's next syncs if the remote fails meanwhile. After a device is lost, revoke its token first (ideabox serve account token revoke on the server), then rotate.":
            "密語與復原金鑰維持不變。以舊金鑰加密的記錄在重新加密之前仍可讀取：現在就重新加密，若遠端途中發生錯誤，則由這台裝置接下來的同步完成。遺失裝置時，請先撤銷它的權杖（在伺服器上執行 ideabox serve account token revoke），再輪替。",
        "Only publish the new key: this device's next syncs (the app, sync --watch, sync) seal the records again.":
            "只發布新金鑰：由這台裝置接下來的同步（程式、sync --watch、sync）重新加密記錄。",
        "Forgot the passphrase and lost the recovery key: a new key, passphrase and recovery key, everything sealed again from this device.":
            "忘了密語也遺失了復原金鑰：產生新的金鑰、密語與復原金鑰，並從這台裝置重新加密一切。",
        "Asks a new passphrase twice and shows a new recovery key once. The remote then holds exactly this device's ideas and library files (as with ideabox sync --overwrite-remote), sealed with the new key; whatever only another device holds is not on the remote any more, and every other device unlocks again with the new passphrase. Needs --yes. The new passphrase needs at least 12 characters and must be hard to guess: repeats, runs such as abc or 123 and common passwords count for little.":
            "詢問新密語兩次，並只顯示一次新的復原金鑰。之後遠端只保存這台裝置的靈感與資料庫檔案（如同 ideabox sync --overwrite-remote），並以新金鑰加密；只在其他裝置上的資料將不再存在於遠端，其他每台裝置都要用新密語重新解鎖。需要 --yes。新密語至少需要 12 個字元（每個中文字算一個），而且要難以猜測：重複的字元、abc 或 123 這類連續字元、常見的密碼都幾乎不算數。",
        "Confirm that the remote is to hold exactly this device's ideas and library.": "確認遠端將只保存這台裝置的靈感與資料庫。",
        "With --server, the profile syncs with that server from now on, with the token `ideabox serve account add` printed (from --token, or else the first line of standard input, which keeps it out of shell history). With --api-token (from `ideabox serve api-token add`), requests carry both tokens as CloudKit Web Services clients do (ckAPIToken, ckWebAuthToken); without it, the account's token alone. The URL and tokens are kept in the profile's server.json, readable by you only. Without --server the profile goes back to the embedded remote. An https:// server's certificate must be signed by an authority the system trusts, or by the one given with --ca-cert (a self-signed certificate on a home network, say). Plain http:// is for this machine only (127.0.0.0/8, ::1): to another one it would send the token and every idea in clear, unless you say --allow-insecure-http. The sign-in is kept only once the server took the token (one request); a refused token, a server not there or a certificate not trusted leaves the sign-in before as it was.":
            "加上 --server 時，設定檔從此與該伺服器同步，使用 `ideabox serve account add` 印出的權杖（來自 --token，否則讀取標準輸入的第一行，這樣不會留在 shell 歷史中）。加上 --api-token（來自 `ideabox serve api-token add`）時，請求會像 CloudKit Web Services 用戶端一樣帶著兩個權杖（ckAPIToken、ckWebAuthToken）；沒有時只帶帳號的權杖。網址與權杖保存在設定檔的 server.json，只有你能讀取。不加 --server 時，設定檔回到內建遠端。https:// 伺服器的憑證必須由系統信任的憑證機構簽署，或由 --ca-cert 指定的機構簽署（例如家用網路上的自簽憑證）。未加密的 http:// 只限這台機器（127.0.0.0/8、::1）：連到其他機器會以明文送出權杖與每筆靈感，除非你加上 --allow-insecure-http。伺服器接受權杖後（一次請求）才會保留這次登入；權杖被拒、伺服器不在或憑證不受信任時，原本的登入維持不變。",
        "The account name.": "帳號名稱。",
        "The server's URL, such as http://127.0.0.1:8420.": "伺服器的網址，例如 http://127.0.0.1:8420。",
        "The account's token (default: read from standard input).": "帳號的權杖（預設：從標準輸入讀取）。",
        "The server's container.": "伺服器的容器。",
        "The container's API token, 64 hex digits.": "容器的 API 權杖，64 個十六進位數字。",
        "A certificate authority (PEM) to trust for this server, besides the system's.": "除了系統的之外，為這個伺服器額外信任的憑證機構（PEM）。",
        "Allow plain http:// to another machine: the token and ideas travel in clear.": "允許以未加密的 http:// 連到其他機器：權杖與靈感會以明文傳送。",
        "Keep the sign-in without asking the server first (one not reachable from here yet); the first sync checks it.":
            "不先詢問伺服器就保留這次登入（伺服器暫時連不到時）；第一次同步時會檢查。",
        "Bring this profile's ideas, if they belong to another account, into this one, merged with its ideas.":
            "這台裝置的靈感若屬於其他帳號，把它們帶進這個帳號，與其中的靈感合併。",
        "Leave this profile's ideas with the account they belong to; they don't sync while signed in to this one.":
            "讓這台裝置的靈感留在原本所屬的帳號；登入這個帳號時不會同步。",
        // library
        "Sync the library folder now; exits non-zero with the reason if it can't.": "立即同步資料夾；無法同步時以非零結束並說明原因。",
        "Show the library's files, what waits to go up or come down, and the last sync.": "顯示資料夾的檔案、等待上傳或下載的項目，以及上次同步。",
        "Make the remote hold exactly this library folder; every other device follows. Needs --yes.": "讓遠端只保存這個資料夾的內容；其他裝置都會跟著更新。需要 --yes。",
        "The library folder (default: <data root>/<profile>/RawLibrary).": "資料夾（預設：<資料根目錄>/<設定檔>/RawLibrary）。",
        "Print the status as JSON.": "以 JSON 印出狀態。",
        "Confirm that the remote's files this folder lacks are deleted.": "確認刪除遠端上這個資料夾沒有的檔案。",
        "Print what was done as JSON.": "以 JSON 印出做了什麼。",
        // serve
        "Devices sign in with `ideabox account sign-in NAME --server URL` and the token that `ideabox serve account add NAME` printed. Each request is logged on standard error (method, path, status, milliseconds, account; never a token). SIGINT or SIGTERM stops the server after the requests in flight finish, or --shutdown-timeout passes. Other CloudKit Web Services clients send the account's token as ckWebAuthToken with an API token from `ideabox serve api-token add` as ckAPIToken. Across machines, serve HTTPS (--tls-cert, --tls-key) or put it behind a proxy that does.":
            "裝置以 `ideabox account sign-in NAME --server URL` 和 `ideabox serve account add NAME` 印出的權杖登入。每個請求都記錄在標準錯誤（方法、路徑、狀態、毫秒、帳號；從不記錄權杖）。SIGINT 或 SIGTERM 會在進行中的請求完成或超過 --shutdown-timeout 後停止伺服器。其他 CloudKit Web Services 用戶端以 ckWebAuthToken 送出帳號的權杖，並以 ckAPIToken 送出 `ideabox serve api-token add` 產生的 API 權杖。跨機器時請提供 HTTPS（--tls-cert、--tls-key），或放在會處理 HTTPS 的代理之後。",
        "The address and port to listen on (default: $IDEABOX_SERVE_LISTEN or 127.0.0.1:8420).": "要監聽的位址與連接埠（預設：$IDEABOX_SERVE_LISTEN 或 127.0.0.1:8420）。",
        "A container to serve (repeatable; default iCloud.com.buildwithharry.IdeaBox). Each has its own data; the first holds what earlier servers stored.":
            "要提供的容器（可重複；預設 iCloud.com.buildwithharry.IdeaBox）。每個容器有自己的資料；第一個保存先前伺服器存下的資料。",
        "Serve HTTPS with this certificate chain (PEM, the server's first; also $IDEABOX_SERVE_TLS_CERT).": "以這個憑證鏈提供 HTTPS（PEM，伺服器的憑證在最前；也可設 $IDEABOX_SERVE_TLS_CERT）。",
        "The private key (PEM) of --tls-cert (also $IDEABOX_SERVE_TLS_KEY).": "--tls-cert 的私鑰（PEM；也可設 $IDEABOX_SERVE_TLS_KEY）。",
        "The oldest TLS version answered: 1.2 or 1.3. (Default: $IDEABOX_SERVE_TLS_MIN or 1.2.)":
            "接受的最舊 TLS 版本：1.2 或 1.3。（預設：$IDEABOX_SERVE_TLS_MIN 或 1.2。）",
        "Close a connection that sends nothing for this many seconds: idle between requests, or a header or body that stalls. A held long poll is not idle. (Default: $IDEABOX_SERVE_IDLE_TIMEOUT or 30.)":
            "關閉這麼多秒沒有送出任何東西的連線：請求之間閒置，或標頭、內容停滯。保持中的長輪詢不算閒置。（預設：$IDEABOX_SERVE_IDLE_TIMEOUT 或 30。）",
        "On SIGTERM or SIGINT, let requests in flight finish for up to this many seconds, then close them. (Default: $IDEABOX_SERVE_SHUTDOWN_TIMEOUT or 10.)":
            "收到 SIGTERM 或 SIGINT 時，讓進行中的請求最多再進行這麼多秒，然後關閉。（預設：$IDEABOX_SERVE_SHUTDOWN_TIMEOUT 或 10。）",
        "Receive at most this many asset uploads at once; more are asked to try again. (Default: $IDEABOX_SERVE_MAX_UPLOADS or 16.)":
            "同時最多接收這麼多個檔案上傳；更多的會被要求稍後重試。（預設：$IDEABOX_SERVE_MAX_UPLOADS 或 16。）",
        "Hold at most this many long polls of one account; past it its oldest is answered at once. (Default: $IDEABOX_SERVE_MAX_POLLS_PER_ACCOUNT or 64.)":
            "每個帳號最多保持這麼多個長輪詢；超過時，最舊的一個會立即得到回應。（預設：$IDEABOX_SERVE_MAX_POLLS_PER_ACCOUNT 或 64。）",
        "Hold at most this many long polls of one access token (one device). (Default: $IDEABOX_SERVE_MAX_POLLS_PER_TOKEN or 4.)":
            "每個存取權杖（一台裝置）最多保持這麼多個長輪詢。（預設：$IDEABOX_SERVE_MAX_POLLS_PER_TOKEN 或 4。）",
        "Receive at most this many request bodies of one account at once; more are asked to try again. (Default: $IDEABOX_SERVE_MAX_BODIES_PER_ACCOUNT or 16.)":
            "每個帳號同時最多接收這麼多個請求內容；更多的會被要求稍後重試。（預設：$IDEABOX_SERVE_MAX_BODIES_PER_ACCOUNT 或 16。）",
        "Receive at most this many asset uploads of one account at once; more are asked to try again. (Default: $IDEABOX_SERVE_MAX_UPLOADS_PER_ACCOUNT or 4.)":
            "每個帳號同時最多接收這麼多個檔案上傳；更多的會被要求稍後重試。（預設：$IDEABOX_SERVE_MAX_UPLOADS_PER_ACCOUNT 或 4。）",
        "Write at most this many answers of records (query, lookup, changes) of one account at once; more wait their turn a little, then are asked to try again. (Default: $IDEABOX_SERVE_MAX_ANSWERS_PER_ACCOUNT or 4.)":
            "每個帳號同時最多寫出這麼多個紀錄回應（查詢、查找、變更）；更多的會稍候輪到它們，之後被要求稍後重試。（預設：$IDEABOX_SERVE_MAX_ANSWERS_PER_ACCOUNT 或 4。）",
        "How lines are logged on standard error: text, for a person, or json, one object a line for a log collector. (Default: $IDEABOX_SERVE_LOG_FORMAT or text.)":
            "標準錯誤上的記錄格式：text 給人看，或 json，每行一個物件給記錄收集器。（預設：$IDEABOX_SERVE_LOG_FORMAT 或 text。）",
        "Remember a deleted record this many days, for devices that have not synced since, then forget it; until then it counts against its account's record quota. (Default: $IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS or 90.)":
            "已刪除的紀錄保留這麼多天，給之後還沒同步的裝置，然後忘記；在那之前它計入帳號的紀錄配額。（預設：$IDEABOX_SERVE_TOMBSTONE_RETENTION_DAYS 或 90。）",
        "sqlite:PATH, the server's SQLite file (default: server/remote.sqlite under the data root), or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require].":
            "sqlite:PATH，伺服器的 SQLite 檔案（預設：資料根目錄下的 server/remote.sqlite），或 postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]。",
        "The server's accounts and their tokens.": "伺服器的帳號與其權杖。",
        "The API tokens (ckAPIToken) that CloudKit Web Services clients send with an account's token.": "CloudKit Web Services 用戶端隨帳號權杖送出的 API 權杖（ckAPIToken）。",
        "Names are unique whatever their case: Bob and bob are one account. Each device gets a token of its own (`account token add NAME --label laptop`), so that one can be revoked alone.":
            "名稱不分大小寫且唯一：Bob 和 bob 是同一個帳號。每台裝置有自己的權杖（`account token add NAME --label laptop`），可以單獨撤銷。",
        "Create an account with a first token and print the token, once.": "建立帳號與第一個權杖，並印出權杖，只印一次。",
        "An account's tokens, one per device.": "帳號的權杖，每台裝置一個。",
        "Revoke every token of an account; its devices are signed out and keep their changes.": "撤銷帳號的每個權杖；它的裝置會被登出，變更仍保留。",
        "Delete an account and everything it holds (records, files, tokens). Needs --yes.": "刪除帳號與它保存的一切（紀錄、檔案、權杖）。需要 --yes。",
        "Show or limit what an account may hold: records, zones and asset bytes.": "顯示或限制帳號可保存的內容：紀錄、區域與檔案位元組。",
        "List the accounts and how many valid tokens each has.": "列出帳號與各自有效的權杖數。",
        "The account: 1 to 64 letters, digits, '.', '_' or '-'.": "帳號：1 到 64 個字母、數字、'.'、'_' 或 '-'。",
        "The first token's name, for the device that gets it.": "第一個權杖的名稱，給拿到它的裝置。",
        "Give an account another token, for one more device, and print it, once.": "為帳號多產生一個權杖給另一台裝置，並印出，只印一次。",
        "List an account's tokens: label, when added, when last used, valid or revoked.": "列出帳號的權杖：名稱、新增時間、最後使用時間、有效或已撤銷。",
        "Revoke one token of an account: that device is signed out; the others go on.": "撤銷帳號的一個權杖：那台裝置會被登出；其他裝置照常。",
        "The account.": "帳號。",
        "The token's name, unique among the account's valid tokens, such as laptop.": "權杖的名稱，在帳號的有效權杖中唯一，例如 laptop。",
        "The token's label.": "權杖的名稱。",
        "Confirm that the account's data goes for good.": "確認永久刪除帳號的資料。",
        "With no limit given, shows the account's quota and what it holds. The quota covers all the account's data, in every container and environment. An account never given a quota may hold any number of records, 100 zones and 1 GiB of assets. A deleted record counts until serve forgets its deletion (--tombstone-retention-days). Saving past a limit fails with QUOTA_EXCEEDED; nothing stored is removed. An asset goes as soon as no record names it; one uploaded and never named, an hour after its upload.":
            "沒有指定限制時，顯示帳號的配額與它保存的內容。配額涵蓋帳號在每個容器與環境中的所有資料。從未設定配額的帳號可保存任意數量的紀錄、100 個區域與 1 GiB 的檔案。已刪除的紀錄在 serve 忘記這次刪除之前仍會計入（--tombstone-retention-days）。超過限制的儲存會以 QUOTA_EXCEEDED 失敗；已保存的不會被移除。檔案在不再有紀錄引用時立即刪除；上傳後從未被引用的，在上傳一小時後刪除。",
        "The most records, or `off`.": "最多的紀錄數，或 `off`。",
        "List the field types of an account's record types, in each of its containers and environments.":
            "列出帳號各紀錄類型的欄位型別，分別列出它的每個容器與環境。",
        "As CloudKit does, the first save of a field sets its type; a later value sent with another type is refused (BAD_REQUEST), and one sent without a type is read as the field's. Each account has its own schema in each container and environment, so no account sees or sets another's.":
            "如同 CloudKit，欄位第一次儲存時決定其型別；之後以其他型別送出的值會被拒絕（BAD_REQUEST），未標明型別的值則以該欄位的型別讀取。每個帳號在每個容器與環境中各有自己的結構描述，任何帳號都看不到也無法設定別人的。",
        "The most zones, or `off`.": "最多的區域數，或 `off`。",
        "The most bytes of assets (a number, with K, M or G for KiB, MiB, GiB), or `off`.": "檔案的最大位元組數（數字，可加 K、M 或 G 表示 KiB、MiB、GiB），或 `off`。",
        "Make an API token named LABEL and print it (64 hex digits), once.": "產生名為 LABEL 的 API 權杖並印出（64 個十六進位數字），只印一次。",
        "List the API tokens: name, when added, whether revoked.": "列出 API 權杖：名稱、新增時間、是否已撤銷。",
        "Revoke the API token named LABEL; clients that send it are refused from then on.": "撤銷名為 LABEL 的 API 權杖；之後送出它的用戶端都會被拒絕。",
        "A name for the token, such as the app that uses it: 1 to 64 letters, digits, '.', '_' or '-'.":
            "權杖的名稱，例如使用它的應用程式：1 到 64 個字母、數字、'.'、'_' 或 '-'。",
        "The token's name.": "權杖的名稱。",
    ]
}
