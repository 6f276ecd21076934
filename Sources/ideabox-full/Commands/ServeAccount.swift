import ArgumentParser
import CloudServer
import IdeaBoxCommandLine
import ServerStore

extension IdeaBoxCommand.Serve {
    /// `ideabox serve account add | token | revoke | delete | quota | list`
    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "account",
            abstract: "The server's accounts and their tokens.",
            discussion: """
                Names are unique whatever their case: Bob and bob are one account. Each device gets a token of its \
                own (`account token add NAME --label laptop`), so that one can be revoked alone.
                """,
            subcommands: [Add.self, Token.self, Revoke.self, Delete.self, Quota.self, Schema.self, List.self])
    }
}

extension IdeaBoxCommand.Serve.Account {
    /// `ideabox serve account add NAME [--label L]`
    struct Add: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Create an account with a first token and print the token, once.")

        @Argument(help: "The account: 1 to 64 letters, digits, '.', '_' or '-'.") var name: String
        @Option(help: ArgumentHelp("The first token's name, for the device that gets it.", valueName: "label")) var label = "first"
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
            abstract: "Revoke every token of an account; its devices are signed out and keep their changes.")

        @Argument(help: "The account.") var name: String
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
            abstract: "Delete an account and everything it holds (records, files, tokens). Needs --yes.")

        @Argument(help: "The account.") var name: String
        @Flag(help: "Confirm that the account's data goes for good.") var yes = false
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
            abstract: "Show or limit what an account may hold: records, zones and asset bytes.",
            discussion: """
                With no limit given, shows the account's quota and what it holds. The quota covers all the account's data, \
                in every container and environment. An account never given a quota may hold \
                any number of records, 100 zones and 1 GiB of assets. A deleted record counts until serve forgets its \
                deletion (--tombstone-retention-days). Saving past a limit fails with QUOTA_EXCEEDED; \
                nothing stored is removed. An asset goes as soon as no record names it; one uploaded and never named, \
                an hour after its upload.
                """)

        @Argument(help: "The account.") var name: String
        @Argument(help: "The most records, or `off`.") var records: String?
        @Option(help: ArgumentHelp("The most zones, or `off`.", valueName: "count")) var zones: String?
        @Option(
            name: .customLong("asset-bytes"),
            help: ArgumentHelp("The most bytes of assets (a number, with K, M or G for KiB, MiB, GiB), or `off`.", valueName: "size"))
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
            abstract: "List the field types of an account's record types, in each of its containers and environments.",
            discussion: """
                As CloudKit does, the first save of a field sets its type; a later value sent with another type is \
                refused (BAD_REQUEST), and one sent without a type is read as the field's. Each account has its own \
                schema in each container and environment, so no account sees or sets another's.
                """)

        @Argument(help: "The account.") var name: String
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
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts and how many valid tokens each has.")

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
            commandName: "token", abstract: "An account's tokens, one per device.", subcommands: [Add.self, List.self, Revoke.self])
    }
}

extension IdeaBoxCommand.Serve.Account.Token {
    /// `ideabox serve account token add NAME --label L`
    struct Add: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Give an account another token, for one more device, and print it, once.")

        @Argument(help: "The account.") var name: String
        @Option(help: ArgumentHelp("The token's name, unique among the account's valid tokens, such as laptop.", valueName: "label"))
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
            commandName: "list", abstract: "List an account's tokens: label, when added, when last used, valid or revoked.")

        @Argument(help: "The account.") var name: String
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
            commandName: "revoke", abstract: "Revoke one token of an account: that device is signed out; the others go on.")

        @Argument(help: "The account.") var name: String
        @Argument(help: "The token's label.") var label: String
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
