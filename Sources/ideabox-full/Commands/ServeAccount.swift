import ArgumentParser
import CloudServer
import IdeaBoxCommandLine
import ServerStore

extension IdeaBoxCommand.Serve {
    /// `ideabox serve account add | token | revoke | delete | quota | list`
    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "account",
            abstract: .english("The server's accounts and their tokens.", chinese: "伺服器的帳號與其權杖。"),
            discussion: .english("""
                Names are unique whatever their case: Bob and bob are one account. Each device gets a token of its \
                own (`account token add NAME --label laptop`), so that one can be revoked alone.
                """, chinese: "名稱不分大小寫且唯一：Bob 和 bob 是同一個帳號。每台裝置有自己的權杖（`account token add NAME --label laptop`），可以單獨撤銷。"),
            subcommands: [Add.self, Token.self, Revoke.self, Delete.self, Quota.self, Schema.self, List.self])
    }
}

extension IdeaBoxCommand.Serve.Account {
    /// `ideabox serve account add NAME [--label L]`
    struct Add: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: .english("Create an account with a first token and print the token, once.", chinese: "建立帳號與第一個權杖，並印出權杖，只印一次。"))

        @Argument(help: .english("The account: 1 to 64 letters, digits, '.', '_' or '-'.", chinese: "帳號：1 到 64 個字母、數字、'.'、'_' 或 '-'。")) var name: String
        @Option(help: ArgumentHelp(.english("The first token's name, for the device that gets it.", chinese: "第一個權杖的名稱，給拿到它的裝置。"), valueName: "label")) var label = "first"
        @OptionGroup var storeOptions: ServeStoreOptions

        func validate() throws {
            guard AccessToken.isValidAccountName(name) else {
                throw ValidationError("The account name must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
            }
            try Token.Add.validate(label: label)
        }

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            if let existing = try await store.accountName(matching: name) {
                throw FullCommandError.accountExists(existing)
            }
            try await Token.Add.issue(to: name, label: label, store: store, context: context)
        }
    }

    /// `ideabox serve account revoke NAME`
    struct Revoke: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "revoke",
            abstract: .english("Revoke every token of an account; its devices are signed out and keep their changes.", chinese: "撤銷帳號的每個權杖；它的裝置會被登出，變更仍保留。"))

        @Argument(help: .english("The account.", chinese: "帳號。")) var name: String
        @OptionGroup var storeOptions: ServeStoreOptions

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let account = try await existing(name, in: store)
            let revoked = try await store.revokeAccessTokens(account: account)
            guard revoked > 0 else { throw FullCommandError.noValidToken(account: account) }
            print(CommandLineText.tokensRevoked(revoked, account: account, context.language))
        }
    }

    /// `ideabox serve account delete NAME --yes`
    struct Delete: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "delete",
            abstract: .english("Delete an account and everything it holds (records, files, tokens). Needs --yes.", chinese: "刪除帳號與它保存的一切（紀錄、檔案、權杖）。需要 --yes。"))

        @Argument(help: .english("The account.", chinese: "帳號。")) var name: String
        @Flag(help: .english("Confirm that the account's data goes for good.", chinese: "確認永久刪除帳號的資料。")) var yes = false
        @OptionGroup var storeOptions: ServeStoreOptions

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let account = try await existing(name, in: store)
            guard yes else {
                let records = try await store.recordCount(account: account)
                throw FullCommandError.deleteNeedsConfirmation(account: account, records: records)
            }
            let records = try await store.deleteAccount(account)
            print(CommandLineText.accountDeleted(account, records: records, context.language))
        }
    }

    /// `ideabox serve account quota NAME [RECORDS|off] [--zones N|off] [--asset-bytes SIZE|off]`
    struct Quota: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "quota",
            abstract: .english("Show or limit what an account may hold: records, zones and asset bytes.", chinese: "顯示或限制帳號可保存的內容：紀錄、區域與檔案位元組。"),
            discussion: .english("""
                With no limit given, shows the account's quota and what it holds. The quota covers all the account's data, \
                in every container and environment. An account never given a quota may hold \
                any number of records, 100 zones and 1 GiB of assets. A deleted record counts until serve forgets its \
                deletion (--tombstone-retention-days). Saving past a limit fails with QUOTA_EXCEEDED; \
                nothing stored is removed. An asset goes as soon as no record names it; one uploaded and never named, \
                an hour after its upload.
                """, chinese: "沒有指定限制時，顯示帳號的配額與它保存的內容。配額涵蓋帳號在每個容器與環境中的所有資料。從未設定配額的帳號可保存任意數量的紀錄、100 個區域與 1 GiB 的檔案。已刪除的紀錄在 serve 忘記這次刪除之前仍會計入（--tombstone-retention-days）。超過限制的儲存會以 QUOTA_EXCEEDED 失敗；已保存的不會被移除。檔案在不再有紀錄引用時立即刪除；上傳後從未被引用的，在上傳一小時後刪除。"))

        @Argument(help: .english("The account.", chinese: "帳號。")) var name: String
        @Argument(help: .english("The most records, or `off`.", chinese: "最多的紀錄數，或 `off`。")) var records: String?
        @Option(help: ArgumentHelp(.english("The most zones, or `off`.", chinese: "最多的區域數，或 `off`。"), valueName: "count")) var zones: String?
        @Option(
            name: .customLong("asset-bytes"),
            help: ArgumentHelp(.english("The most bytes of assets (a number, with K, M or G for KiB, MiB, GiB), or `off`.", chinese: "檔案的最大位元組數（數字，可加 K、M 或 G 表示 KiB、MiB、GiB），或 `off`。"), valueName: "size"))
        var assetBytes: String?
        @OptionGroup var storeOptions: ServeStoreOptions

        func validate() throws {
            _ = try records.map(QuotaLimit.maxRecords)
            _ = try zones.map(QuotaLimit.maxZones)
            _ = try assetBytes.map(QuotaLimit.maxBytes)
        }

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let account = try await existing(name, in: store)
            var quota = try await store.quota(account: account)
            if let records { quota.maxRecords = try QuotaLimit.maxRecords(records) }
            if let zones { quota.maxZones = try QuotaLimit.maxZones(zones) }
            if let assetBytes { quota.maxAssetBytes = try QuotaLimit.maxBytes(assetBytes) }
            if records != nil || zones != nil || assetBytes != nil {
                try await store.setQuota(quota, account: account)
            }
            let usage = try await store.usage(account: account)
            print(CommandLineText.accountQuota(quota, usage: usage, account: account, context.language))
        }
    }

    /// `ideabox serve account schema NAME`
    struct Schema: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "schema",
            abstract: .english("List the field types of an account's record types, in each of its containers and environments.", chinese: "列出帳號各紀錄類型的欄位型別，分別列出它的每個容器與環境。"),
            discussion: .english("""
                As CloudKit does, the first save of a field sets its type; a later value sent with another type is \
                refused (BAD_REQUEST), and one sent without a type is read as the field's. Each account has its own \
                schema in each container and environment, so no account sees or sets another's.
                """, chinese: "如同 CloudKit，欄位第一次儲存時決定其型別；之後以其他型別送出的值會被拒絕（BAD_REQUEST），未標明型別的值則以該欄位的型別讀取。每個帳號在每個容器與環境中各有自己的結構描述，任何帳號都看不到也無法設定別人的。"))

        @Argument(help: .english("The account.", chinese: "帳號。")) var name: String
        @OptionGroup var storeOptions: ServeStoreOptions

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let account = try await existing(name, in: store)
            let entries = try await store.schema(ofAccount: account)
            guard !entries.isEmpty else { return print(CommandLineText.noSchema(account: account, context.language)) }
            for entry in entries { print(CommandLineText.schemaLine(entry, account: account, context.language)) }
        }
    }

    /// `ideabox serve account list`
    struct List: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: .english("List the accounts and how many valid tokens each has.", chinese: "列出帳號與各自有效的權杖數。"))

        @OptionGroup var storeOptions: ServeStoreOptions

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            for (account, valid) in try await store.accessTokenAccounts() {
                print(CommandLineText.accountLine(account, validTokens: valid, context.language))
            }
        }
    }

    /// `ideabox serve account token add | list | revoke NAME`
    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token", abstract: .english("An account's tokens, one per device.", chinese: "帳號的權杖，每台裝置一個。"), subcommands: [Add.self, List.self, Revoke.self])
    }
}

extension IdeaBoxCommand.Serve.Account.Token {
    /// `ideabox serve account token add NAME --label L`
    struct Add: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: .english("Give an account another token, for one more device, and print it, once.", chinese: "為帳號多產生一個權杖給另一台裝置，並印出，只印一次。"))

        @Argument(help: .english("The account.", chinese: "帳號。")) var name: String
        @Option(help: ArgumentHelp(.english("The token's name, unique among the account's valid tokens, such as laptop.", chinese: "權杖的名稱，在帳號的有效權杖中唯一，例如 laptop。"), valueName: "label"))
        var label: String
        @OptionGroup var storeOptions: ServeStoreOptions

        func validate() throws {
            try Self.validate(label: label)
        }

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let account = try await existing(name, in: store)
            let tokens = try await store.accessTokens(account: account)
            guard !tokens.contains(where: { $0.label == label && $0.revoked == nil }) else {
                throw FullCommandError.tokenLabelExists(account: account, label: label)
            }
            try await Self.issue(to: account, label: label, store: store, context: context)
        }

        /// A label is 1 to 64 letters, digits, '.', '_' or '-', like an account name.
        static func validate(label: String) throws {
            guard AccessToken.isValidAccountName(label) else {
                throw ValidationError("A token's label must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
            }
        }

        /// Makes a token for `account` named `label`, keeps its hash, and prints it once.
        static func issue(to account: String, label: String, store: any RecordStore, context: CommandContext) async throws {
            let token = AccessToken.generate()
            try await store.addAccessToken(hash: AccessToken.hash(token), account: account, label: label)
            print(token)
            Output.error(CommandLineText.tokenShownOnce(account: account, context.language))
        }
    }

    /// `ideabox serve account token list NAME`
    struct List: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: .english("List an account's tokens: label, when added, when last used, valid or revoked.", chinese: "列出帳號的權杖：名稱、新增時間、最後使用時間、有效或已撤銷。"))

        @Argument(help: .english("The account.", chinese: "帳號。")) var name: String
        @OptionGroup var storeOptions: ServeStoreOptions

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let account = try await existing(name, in: store)
            for entry in try await store.accessTokens(account: account) {
                print(CommandLineText.tokenLine(entry, context.language))
            }
        }
    }

    /// `ideabox serve account token revoke NAME LABEL`
    struct Revoke: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: .english("Revoke one token of an account: that device is signed out; the others go on.", chinese: "撤銷帳號的一個權杖：那台裝置會被登出；其他裝置照常。"))

        @Argument(help: .english("The account.", chinese: "帳號。")) var name: String
        @Argument(help: .english("The token's label.", chinese: "權杖的名稱。")) var label: String
        @OptionGroup var storeOptions: ServeStoreOptions

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let account = try await existing(name, in: store)
            let revoked = try await store.revokeAccessToken(account: account, label: label)
            guard revoked > 0 else { throw FullCommandError.noValidTokenLabelled(account: account, label: label) }
            print(CommandLineText.tokensRevoked(revoked, account: account, context.language))
        }
    }
}

/// The account named `name` in any case, as it was made; an error if there is none.
private func existing(_ name: String, in store: any RecordStore) async throws -> String {
    guard let account = try await store.accountName(matching: name) else {
        throw FullCommandError.noSuchAccount(name)
    }
    return account
}
