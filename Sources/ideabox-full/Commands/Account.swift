import ArgumentParser
import CloudHTTPClient
import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxCommandLine
import IdeaSync

extension IdeaBoxCommand {
    /// `ideabox account status | sign-in NAME | sign-out`: the simulated iCloud account.
    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "account", abstract: .english("The simulated account this profile is signed in to.", chinese: "這個設定檔登入的模擬帳號。"),
            subcommands: [Status.self, SignIn.self, SignOut.self, Unlock.self, Encryption.self])
    }
}

extension IdeaBoxCommand.Account {
    /// `ideabox account status [--json]`
    struct Status: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: .english("Show the account this profile is signed in to, and whose ideas it holds.", chinese: "顯示這個設定檔登入的帳號，以及它保存的是誰的靈感。"))

        @Flag(help: .english("Print JSON.", chinese: "印出 JSON。")) var json = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            let account = try remote.signedInAccount()
            let bound = try context.openRepository(store).syncMetadata().accountName
            if json {
                print(try Output.json(AccountOutput(device: remote.device, account: account, boundAccount: bound)))
                return
            }
            if let credentials = remote.credentials, credentials.isICloud == true {
                print(ICloudText.accountStatus(account, environment: credentials.environment ?? "production", context.language))
            } else {
                print(CommandLineText.accountStatus(account, server: remote.credentials?.server, context.language))
            }
            if let mismatch = CommandLineText.accountMismatch(bound: bound, account: account, context.language) { print(mismatch) }
        }
    }

    /// `ideabox account sign-in NAME [--server URL [--token T] [--container ID] [--api-token T]]`
    /// or `ideabox account sign-in --icloud [--api-token T] [--environment E] [--token T]`
    struct SignIn: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in",
            abstract: .english("Sign this profile in to an account, on the embedded remote or on `ideabox serve`; sync starts with the next run.", chinese: "讓這個設定檔登入一個帳號，在內建遠端或 `ideabox serve` 上；下次執行時開始同步。"),
            discussion: .english("""
                With --server, the profile syncs with that server from now on, with the token `ideabox serve account add` \
                printed (from --token, or else the first line of standard input, which keeps it out of shell history). \
                With --api-token (from `ideabox serve api-token add`), requests carry both tokens as CloudKit Web Services \
                clients do (ckAPIToken, ckWebAuthToken); without it, the account's token alone. The URL and tokens are kept \
                in the profile's server.json, readable by you only. Without --server the profile goes back to the embedded \
                remote. An https:// server's certificate must be signed by an authority the system trusts, or by the one \
                given with --ca-cert (a self-signed certificate on a home network, say). Plain http:// is for this machine \
                only (127.0.0.0/8, ::1): to another one it would send the token and every idea in clear, unless you say \
                --allow-insecure-http. The sign-in is kept only once the server took the token (one request); a refused \
                token, a server not there or a certificate not trusted leaves the sign-in before as it was. \
                With --icloud instead, the profile syncs with your iCloud, where the IdeaBox app for iPhone and Mac keeps \
                its ideas: Apple's sign-in page is printed (and opened where there is a display), and the sign-in comes back \
                to http://127.0.0.1:8424/ (--callback-port) or is pasted on standard input; the container's API token comes \
                from --api-token, IDEABOX_ICLOUD_API_TOKEN or icloud-api-token in the config file (README: Your iPhone's \
                ideas in the terminal).
                """, chinese: "加上 --server 時，設定檔從此與該伺服器同步，使用 `ideabox serve account add` 印出的權杖（來自 --token，否則讀取標準輸入的第一行，這樣不會留在 shell 歷史中）。加上 --api-token（來自 `ideabox serve api-token add`）時，請求會像 CloudKit Web Services 用戶端一樣帶著兩個權杖（ckAPIToken、ckWebAuthToken）；沒有時只帶帳號的權杖。網址與權杖保存在設定檔的 server.json，只有你能讀取。不加 --server 時，設定檔回到內建遠端。https:// 伺服器的憑證必須由系統信任的憑證機構簽署，或由 --ca-cert 指定的機構簽署（例如家用網路上的自簽憑證）。未加密的 http:// 只限這台機器（127.0.0.0/8、::1）：連到其他機器會以明文送出權杖與每筆靈感，除非你加上 --allow-insecure-http。伺服器接受權杖後（一次請求）才會保留這次登入；權杖被拒、伺服器不在或憑證不受信任時，原本的登入維持不變。改用 --icloud 時，設定檔與你的 iCloud 同步，也就是 iPhone 與 Mac 上 IdeaBox app 保存靈感的地方：會印出 Apple 的登入頁面（有顯示器時會開啟它），登入後回到 http://127.0.0.1:8424/（--callback-port），或從標準輸入貼上；容器的 API 權杖來自 --api-token、IDEABOX_ICLOUD_API_TOKEN 或設定檔的 icloud-api-token（README：Your iPhone's ideas in the terminal）。"))

        @Argument(help: .english("The account name (not with --icloud, whose account is your Apple ID's).", chinese: "帳號名稱（--icloud 不需要，帳號即你的 Apple ID）。"))
        var name: String?
        @Flag(
            name: .customLong("icloud"),
            help: .english("Sign in to your iCloud, where the IdeaBox app for iPhone and Mac keeps its ideas, through Apple's sign-in page.", chinese: "透過 Apple 的登入頁面登入你的 iCloud，也就是 iPhone 與 Mac 上 IdeaBox app 保存靈感的地方。"))
        var iCloud = false
        @Option(help: ArgumentHelp(.english("With --icloud: the container's environment, production or development.", chinese: "搭配 --icloud：容器的環境，production 或 development。"), valueName: "name"))
        var environment = "production"
        @Option(
            name: .customLong("callback-port"),
            help: ArgumentHelp(.english("With --icloud: the port on 127.0.0.1 the container's sign-in callback names.", chinese: "搭配 --icloud：容器登入回呼所指定的 127.0.0.1 連接埠。"), valueName: "port"))
        var callbackPort = ICloudEndpoint.callbackPort
        @Option(help: ArgumentHelp(.english("The server's URL, such as http://127.0.0.1:8420.", chinese: "伺服器的網址，例如 http://127.0.0.1:8420。"), valueName: "url")) var server: String?
        @Option(help: ArgumentHelp(.english("The account's token (default: read from standard input).", chinese: "帳號的權杖（預設：從標準輸入讀取）。"), valueName: "token")) var token: String?
        @Option(help: ArgumentHelp(.english("The server's container.", chinese: "伺服器的容器。"), valueName: "id"))
        var container: String = ProductContainer.id
        @Option(name: .customLong("api-token"), help: ArgumentHelp(.english("The container's API token, 64 hex digits.", chinese: "容器的 API 權杖，64 個十六進位數字。"), valueName: "token"))
        var apiToken: String?
        @Option(
            name: .customLong("ca-cert"),
            help: ArgumentHelp(.english("A certificate authority (PEM) to trust for this server, besides the system's.", chinese: "除了系統的之外，為這個伺服器額外信任的憑證機構（PEM）。"), valueName: "file"))
        var certificateAuthority: String?
        @Flag(name: .customLong("allow-insecure-http"), help: .english("Allow plain http:// to another machine: the token and ideas travel in clear.", chinese: "允許以未加密的 http:// 連到其他機器：權杖與靈感會以明文傳送。"))
        var allowsInsecureHTTP = false
        @Flag(
            name: .customLong("no-check"),
            help: .english("Keep the sign-in without asking the server first (one not reachable from here yet); the first sync checks it.", chinese: "不先詢問伺服器就保留這次登入（伺服器暫時連不到時）；第一次同步時會檢查。"))
        var skipsCheck = false
        @Flag(help: .english("Bring this profile's ideas, if they belong to another account, into this one, merged with its ideas.", chinese: "這台裝置的靈感若屬於其他帳號，把它們帶進這個帳號，與其中的靈感合併。"))
        var merge = false
        @Flag(
            name: .customLong("keep-apart"),
            help: .english("Leave this profile's ideas with the account they belong to; they don't sync while signed in to this one.", chinese: "讓這台裝置的靈感留在原本所屬的帳號；登入這個帳號時不會同步。"))
        var keepsApart = false
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if merge && keepsApart { throw ValidationError("--merge and --keep-apart do not go together.") }
            if iCloud {
                guard name == nil else { throw ValidationError("--icloud takes no account name: the account is the Apple ID you sign in with.") }
                if server != nil || container != ProductContainer.id || certificateAuthority != nil || allowsInsecureHTTP || skipsCheck {
                    throw ValidationError("--server, --container, --ca-cert, --allow-insecure-http and --no-check do not go with --icloud.")
                }
                guard ICloudEndpoint.environments.contains(environment) else {
                    throw ValidationError("--environment must be production or development, not \"\(environment)\".")
                }
                guard (0...65_535).contains(callbackPort) else { throw ValidationError("--callback-port must be a port, 0 to 65535.") }
                if let apiToken, !WebServicesPath.isValidAPIToken(apiToken) {
                    throw ValidationError("--api-token must be the 64 hex digits CloudKit Dashboard shows for the container's API token.")
                }
                return
            }
            if environment != "production" || callbackPort != ICloudEndpoint.callbackPort {
                throw ValidationError("--environment and --callback-port go with --icloud.")
            }
            guard let name, !name.trimmingCharacters(in: .whitespaces).isEmpty, !name.contains(where: \.isNewline) else {
                throw ValidationError("The account name must be one line and not empty (or sign in to iCloud with --icloud).")
            }
            if server == nil && (token != nil || apiToken != nil || container != ProductContainer.id
                || certificateAuthority != nil || allowsInsecureHTTP || skipsCheck) {
                throw ValidationError("--token, --api-token, --container, --ca-cert, --allow-insecure-http and --no-check go with --server.")
            }
            guard WebServicesPath.isValidContainer(container) else {
                throw ValidationError("--container must be a container id such as \(ProductContainer.id), not \"\(container)\".")
            }
            if let apiToken, !WebServicesPath.isValidAPIToken(apiToken) {
                throw ValidationError("--api-token must be the 64 hex digits `ideabox serve api-token add` printed.")
            }
            if let server {
                guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), let host = url.host else {
                    throw ValidationError("--server must be an http:// or https:// URL, such as http://127.0.0.1:8420, not \"\(server)\".")
                }
                let plain = url.scheme?.lowercased() == "http"
                if plain && !allowsInsecureHTTP && !LoopbackHost.contains(host) {
                    throw ValidationError("Not signing in to \(host) over http://: \(LoopbackHost.plainHTTPReason).")
                }
                if plain && certificateAuthority != nil {
                    throw ValidationError("--ca-cert is for an https:// server.")
                }
            }
            _ = try certificateAuthority.map(Self.readAuthority)
        }

        func run(in context: CommandContext) async throws {
            let location = try context.location(store)
            let bound = try context.openRepository(store).syncMetadata().accountName
            let account: String
            if iCloud {
                account = try await signInToICloud(in: context)
            } else if let server, let url = URL(string: server) {
                account = (name ?? "").trimmingCharacters(in: .whitespaces)
                let typed = if let token { token } else { await StandardInput.line() }
                guard let token = typed?.trimmingCharacters(in: .whitespaces),
                      !token.isEmpty, !token.contains(where: \.isWhitespace)
                else { throw FullCommandError.tokenNeeded }
                let authority = try certificateAuthority.map(Self.readAuthority)
                let credentials = ServerCredentials(
                    server: url, account: account, token: token, container: container, apiToken: apiToken?.lowercased(),
                    certificateAuthority: authority, allowsInsecureHTTP: allowsInsecureHTTP)
                // One request with the new credentials: a sign-in the server refuses is not kept.
                do {
                    if !skipsCheck { try await credentials.database(unnamedContainer: ProductContainer.legacy).checkSignIn() }
                } catch let error as CloudError {
                    throw FullCommandError.signInRefused(account: account, server: url.absoluteString, error)
                }
                try credentials.save(to: location.profileDirectory)
                print(CommandLineText.signedIn(account, server: url, context.language))
            } else {
                account = (name ?? "").trimmingCharacters(in: .whitespaces)
                try ServerCredentials.remove(from: location.profileDirectory)
                let remote = try context.openRemote(store)
                try remote.network.signIn(device: remote.device, account: account)
                print(CommandLineText.signedIn(account, server: nil, context.language))
            }
            if let bound, bound != account { try await carryOrKeepApart(from: bound, to: account, in: context) }
            if !skipsCheck, !iCloud, (try? await context.openRemote(store).encryption.refresh()) == .locked {
                print(EncryptionText.signedInLocked(context.language))
            }
        }

        /// This profile's ideas belong to `bound`, and it is now signed in to `account`: they
        /// are carried into `account`, merged with its ideas by the next sync (`bound` keeps
        /// its copy), unless both hold ideas a person made and the person keeps them apart
        /// (`--keep-apart`, or no to the question; without a terminal to ask on, they stay
        /// apart until `--merge`). Either way nothing is dropped.
        private func carryOrKeepApart(from bound: String, to account: String, in context: CommandContext) async throws {
            let repository = try context.openRepository(store)
            let own = try repository.ownIdeaCount()
            let carries: Bool
            if merge || keepsApart {
                carries = merge
            } else if own == 0 {
                carries = true
            } else if !skipsCheck, await accountHoldsNoIdeas(context) {
                carries = true
            } else if isatty(STDIN_FILENO) == 1 {
                print(CommandLineText.mergeQuestion(own: own, bound: bound, account: account, context.language), terminator: "")
                carries = ["y", "yes", "是"].contains(await StandardInput.line()?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
            } else {
                carries = false
            }
            if carries {
                try repository.carryIdeas(to: account)
                if own > 0 { print(CommandLineText.ideasCarried(own: own, bound: bound, account: account, context.language)) }
            } else {
                print(CommandLineText.keptApart(bound: bound, account: account, context.language))
            }
        }

        /// Whether the account this profile is now signed in to is known to hold no ideas
        /// (no record in their zone, or no zone); one request.
        private func accountHoldsNoIdeas(_ context: CommandContext) async -> Bool {
            do {
                let remote = try context.openRemote(store)
                let zone = remote.credentials?.isICloud == true ? RecordShape.coreData.zone : SyncSession.zone
                let changes = try await remote.database.fetchChanges(in: zone, since: nil, resultsLimit: 1)
                return changes.changed.isEmpty && changes.deleted.isEmpty
            } catch CloudError.zoneNotFound {
                return true
            } catch {
                return false
            }
        }

        /// The PEM text of the authority at `path`, checked to hold a certificate.
        private static func readAuthority(_ path: String) throws -> String {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("Cannot read the --ca-cert file \(path).")
            }
            guard (try? HTTPConnectionPool.certificates(text)) != nil else {
                throw ValidationError("--ca-cert \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----).")
            }
            return text
        }
    }

    /// `ideabox account sign-out`
    struct SignOut: IdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-out", abstract: .english("Sign this profile out; everything keeps working on this device.", chinese: "讓這個設定檔登出；這台裝置上一切照常運作。"))

        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) throws {
            let remote = try context.openRemote(store)
            if var credentials = remote.credentials {
                credentials.token = nil
                try credentials.save(to: try context.location(store).profileDirectory)
            } else {
                try remote.network.signOut(device: remote.device)
            }
            print(CommandLineText.signedOut(context.language))
        }
    }
}

/// What `account status --json` prints.
private struct AccountOutput: Encodable {
    var device: String
    var account: String?
    var boundAccount: String?

    enum CodingKeys: String, CodingKey { case device, account, boundAccount }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(account, forKey: .account)
        try container.encode(boundAccount, forKey: .boundAccount)
    }
}
