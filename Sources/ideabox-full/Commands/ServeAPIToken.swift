import ArgumentParser
import CloudServer
import Foundation
import IdeaBoxCommandLine
import ServerStore

extension IdeaBoxCommand.Serve {
    /// `ideabox serve api-token add | list | revoke`: the container's API tokens, which CloudKit
    /// Web Services clients send as `ckAPIToken` beside the account's `ckWebAuthToken`.
    struct APIToken: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "api-token",
            abstract: .english("The API tokens (ckAPIToken) that CloudKit Web Services clients send with an account's token.", chinese: "CloudKit Web Services 用戶端隨帳號權杖送出的 API 權杖（ckAPIToken）。"),
            subcommands: [Add.self, List.self, Revoke.self])
    }
}

extension IdeaBoxCommand.Serve.APIToken {
    /// `ideabox serve api-token add LABEL`
    struct Add: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "add",
            abstract: .english("Make an API token named LABEL and print it (64 hex digits), once.", chinese: "產生名為 LABEL 的 API 權杖並印出（64 個十六進位數字），只印一次。"))

        @Argument(help: .english("A name for the token, such as the app that uses it: 1 to 64 letters, digits, '.', '_' or '-'.", chinese: "權杖的名稱，例如使用它的應用程式：1 到 64 個字母、數字、'.'、'_' 或 '-'。"))
        var label: String
        @OptionGroup var storeOptions: ServeStoreOptions

        func validate() throws {
            guard AccessToken.isValidAccountName(label) else {
                throw ValidationError("The label must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
            }
        }

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let existing = try await store.apiTokens()
            if existing.contains(where: { $0.label == label && $0.revoked == nil }) { throw FullCommandError.apiTokenExists(label: label) }
            let token = AccessToken.generateAPIToken()
            try await store.addAPIToken(hash: AccessToken.hash(token), label: label)
            print(token)
            Output.error(CommandLineText.apiTokenShownOnce(label: label, context.language))
        }
    }

    /// `ideabox serve api-token list`
    struct List: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: .english("List the API tokens: name, when added, whether revoked.", chinese: "列出 API 權杖：名稱、新增時間、是否已撤銷。"))

        @OptionGroup var storeOptions: ServeStoreOptions

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            for entry in try await store.apiTokens() { print(CommandLineText.apiTokenLine(entry, context.language)) }
        }
    }

    /// `ideabox serve api-token revoke LABEL`
    struct Revoke: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(commandName: "revoke",
            abstract: .english("Revoke the API token named LABEL; clients that send it are refused from then on.", chinese: "撤銷名為 LABEL 的 API 權杖；之後送出它的用戶端都會被拒絕。"))

        @Argument(help: .english("The token's name.", chinese: "權杖的名稱。")) var label: String
        @OptionGroup var storeOptions: ServeStoreOptions

        func run(in context: CommandContext) async throws {
            let store = try await storeOptions.open(context)
            let revoked = try await store.revokeAPITokens(label: label)
            guard revoked > 0 else { throw FullCommandError.noValidAPIToken(label: label) }
            print(CommandLineText.apiTokensRevoked(revoked, label: label, context.language))
        }
    }
}
