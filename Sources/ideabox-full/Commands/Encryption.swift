import AccountEncryption
import ArgumentParser
import CloudKitModel
import Foundation
import IdeaBoxCommandLine
import LibrarySync

extension IdeaBoxCommand.Account {
    /// `ideabox account encryption enable | passphrase | disable`
    struct Encryption: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "encryption",
            abstract: .english("Turn end-to-end encryption of this account on or off, change its passphrase, rotate or reset its key.", chinese: "開啟或關閉這個帳號的端對端加密、變更它的密語，或輪替、重設它的金鑰。"),
            subcommands: [Enable.self, Passphrase.self, Rotate.self, Reset.self, Disable.self])
    }

    /// `ideabox account unlock [--recovery-key]`
    struct Unlock: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "unlock", abstract: .english("Unlock this device for an encrypted account, with the passphrase or the recovery key.", chinese: "以密語或復原金鑰，為加密的帳號解鎖這台裝置。"))

        @Flag(name: .customLong("recovery-key"), help: .english("Unlock with the recovery key instead of the passphrase.", chinese: "以復原金鑰解鎖，而不是密語。"))
        var usesRecoveryKey = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) async throws {
            let account = try EncryptedAccount(context: context, store: store)
            guard let stored = try await account.envelope() else {
                if (try? account.keyFile.load()) != nil { throw EncryptionCommandError.envelopeGone(account: account.name) }
                throw EncryptionCommandError.off(account: account.name)
            }
            if let held = try? account.keyFile.load(), (try? stored.envelope.follow(from: held)) != nil {
                print(EncryptionText.alreadyUnlocked(context.language))
                return
            }
            let keyring = try await account.unlock(stored.envelope, recoveryKey: usesRecoveryKey)
            try account.keyFile.save(keyring)
            _ = try? await account.remote.encryption.refresh()
            print(EncryptionText.unlocked(account: account.name, context.language))
        }
    }
}

extension IdeaBoxCommand.Account.Encryption {
    /// `ideabox account encryption enable`
    struct Enable: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: .english("Encrypt this account's ideas and library on every device: asks a passphrase twice, shows a recovery key once.", chinese: "在每台裝置上加密這個帳號的靈感與資料夾：詢問兩次密語，並顯示一次復原金鑰。"),
            discussion: .english("""
                Every record the account already has is sealed again, and its plain version is replaced on the remote. \
                Other devices join with ideabox account unlock. The passphrase is read from standard input when it is not a terminal. \
                It needs at least 12 characters and must be hard to guess: repeats, runs such as abc or 123 and common passwords count for little.
                """, chinese: "帳號已有的每筆記錄都會重新加密，遠端上未加密的版本會被取代。其他裝置以 ideabox account unlock 加入。標準輸入不是終端機時，從標準輸入讀取密語。密語至少需要 12 個字元（每個中文字算一個），而且要難以猜測：重複的字元、abc 或 123 這類連續字元、常見的密碼都幾乎不算數。"))

        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) async throws {
            if try context.openRemote(store).credentials?.isICloud == true { throw EncryptionCommandError.notOnICloud }
            let account = try EncryptedAccount(context: context, store: store)
            if try await account.envelope() != nil {
                // Unlocked here: finish a sealing an earlier run left undone; locked: say how to join.
                guard try await account.remote.encryption.refresh() == .on else { throw EncryptionCommandError.alreadyOn(account: account.name) }
                let sealed = try await account.sealEverything()
                print(EncryptionText.enabled(account: account.name, recoveryKey: nil, sealed: sealed, context.language))
                return
            }
            let passphrase = try await SecretPrompt.newPassphrase(context.language)
            let creation = try EncryptedAccount.keys {
                try KeyEnvelope.make(passphrase: passphrase, scrypt: EncryptionWiring.scrypt(environment: context.environment))
            }
            switch try await account.remoteWork({ try await account.envelopes.publish(creation.envelope) }) {
            case .published:
                try account.keyFile.save(creation.keyring)
                let sealed = try await account.sealEverything()
                print(EncryptionText.enabled(account: account.name, recoveryKey: creation.recoveryKey, sealed: sealed, context.language))
            case .alreadyEnabled(let stored):
                // Nothing was sealed with this device's key: it is forgotten, the winner's is taken.
                guard let keyring = try? stored.envelope.unlock(with: KeyEnvelope.Secret.passphrase(passphrase)) else {
                    throw EncryptionCommandError.enabledElsewhere
                }
                try account.keyFile.save(keyring)
                _ = try? await account.remote.encryption.refresh()
                print(EncryptionText.joinedOtherDevice(context.language))
            }
        }
    }

    /// `ideabox account encryption passphrase [--recovery-key]`
    struct Passphrase: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "passphrase",
            abstract: .english("Change the account's passphrase (asks the current one, then the new one twice); no record is rewritten.", chinese: "變更帳號的密語（先詢問目前的，再詢問兩次新的）；不會改寫任何記錄。"),
            discussion: .english("""
                The new passphrase needs at least 12 characters and must be hard to guess: repeats, runs such as abc or 123 \
                and common passwords count for little.
                """, chinese: "新密語至少需要 12 個字元（每個中文字算一個），而且要難以猜測：重複的字元、abc 或 123 這類連續字元、常見的密碼都幾乎不算數。"))

        @Flag(name: .customLong("recovery-key"), help: .english("Prove it with the recovery key instead of the current passphrase.", chinese: "以復原金鑰證明身分，而不是目前的密語。"))
        var usesRecoveryKey = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) async throws {
            let account = try EncryptedAccount(context: context, store: store)
            guard let stored = try await account.envelope() else { throw EncryptionCommandError.off(account: account.name) }
            let secret = try await account.secret(recoveryKey: usesRecoveryKey)
            _ = try EncryptedAccount.keys { try stored.envelope.unlock(with: secret) }
            let newPassphrase = try await SecretPrompt.newPassphrase(context.language)
            let envelope = try EncryptedAccount.keys {
                try stored.envelope.rewrapped(
                    unlockingWith: secret, newPassphrase: newPassphrase, scrypt: EncryptionWiring.scrypt(environment: context.environment))
            }
            switch try await account.remoteWork({ try await account.envelopes.replace(stored, with: envelope) }) {
            case .replaced: print(EncryptionText.passphraseChanged(context.language))
            case .changedMeanwhile: throw EncryptionCommandError.changedMeanwhile
            case .gone: throw EncryptionCommandError.off(account: account.name)
            }
        }
    }

    /// `ideabox account encryption rotate [--recovery-key]`
    struct Rotate: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: .english("Make a new account key (asks the passphrase); every record is sealed again with it, other unlocked devices follow.", chinese: "產生新的帳號金鑰（會詢問密語）；每筆記錄都以它重新加密，其他已解鎖的裝置會跟上。"),
            discussion: .english("""
                The passphrase and the recovery key stay the same. Records sealed with the earlier key stay readable until \
                they are sealed again: now, or by this device's next syncs if the remote fails meanwhile. After a device \
                is lost, revoke its token first (ideabox serve account token revoke on the server), then rotate.
                """, chinese: "密語與復原金鑰維持不變。以舊金鑰加密的記錄在重新加密之前仍可讀取：現在就重新加密，若遠端途中發生錯誤，則由這台裝置接下來的同步完成。遺失裝置時，請先撤銷它的權杖（在伺服器上執行 ideabox serve account token revoke），再輪替。"))

        @Flag(name: .customLong("recovery-key"), help: .english("Prove it with the recovery key instead of the passphrase.", chinese: "以復原金鑰證明身分，而不是密語。"))
        var usesRecoveryKey = false
        @Flag(help: .english("Only publish the new key: this device's next syncs (the app, sync --watch, sync) seal the records again.", chinese: "只發布新金鑰：由這台裝置接下來的同步（程式、sync --watch、sync）重新加密記錄。"))
        var background = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) async throws {
            let account = try EncryptedAccount(context: context, store: store)
            guard let stored = try await account.envelope() else { throw EncryptionCommandError.off(account: account.name) }
            let secret = try await account.secret(recoveryKey: usesRecoveryKey)
            let rotation = try EncryptedAccount.keys { try stored.envelope.rotated(unlockingWith: secret) }
            switch try await account.remoteWork({ try await account.envelopes.replace(stored, with: rotation.envelope) }) {
            case .replaced: break
            case .changedMeanwhile: throw EncryptionCommandError.changedMeanwhile
            case .gone: throw EncryptionCommandError.off(account: account.name)
            }
            try account.keyFile.save(rotation.keyring)
            let marker = ResealMarker(directory: account.profileDirectory)
            try marker.set(for: rotation.keyring.current.id)
            // Sealed again now; if the remote fails, the next syncs finish it (the marker stays).
            let sealed = background ? nil : try? await account.remoteWork {
                guard try await account.remote.encryption.refresh() == .on else { return nil as Int? }
                return try await ResealCompanion.reseal(encryption: account.remote.encryption, marker: marker)
            }
            print(EncryptionText.rotated(
                from: stored.envelope.keyID, to: rotation.keyring.current.id, sealed: sealed ?? nil, context.language))
        }
    }

    /// `ideabox account encryption reset --yes`
    struct Reset: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: .english("Forgot the passphrase and lost the recovery key: a new key, passphrase and recovery key, everything sealed again from this device.", chinese: "忘了密語也遺失了復原金鑰：產生新的金鑰、密語與復原金鑰，並從這台裝置重新加密一切。"),
            discussion: .english("""
                Asks a new passphrase twice and shows a new recovery key once. The remote then holds exactly this device's \
                ideas and library files (as with ideabox sync --overwrite-remote), sealed with the new key; whatever only \
                another device holds is not on the remote any more, and every other device unlocks again with the new \
                passphrase. Needs --yes. The new passphrase needs at least 12 characters and must be hard to guess: repeats, \
                runs such as abc or 123 and common passwords count for little.
                """, chinese: "詢問新密語兩次，並只顯示一次新的復原金鑰。之後遠端只保存這台裝置的靈感與資料庫檔案（如同 ideabox sync --overwrite-remote），並以新金鑰加密；只在其他裝置上的資料將不再存在於遠端，其他每台裝置都要用新密語重新解鎖。需要 --yes。新密語至少需要 12 個字元（每個中文字算一個），而且要難以猜測：重複的字元、abc 或 123 這類連續字元、常見的密碼都幾乎不算數。"))

        @Flag(help: .english("Confirm that the remote is to hold exactly this device's ideas and library.", chinese: "確認遠端將只保存這台裝置的靈感與資料庫。")) var yes = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) async throws {
            guard yes else { throw EncryptionCommandError.resetNeedsConfirmation }
            let account = try EncryptedAccount(context: context, store: store)
            guard let stored = try await account.envelope() else { throw EncryptionCommandError.off(account: account.name) }
            let passphrase = try await SecretPrompt.newPassphrase(context.language)
            let creation = try EncryptedAccount.keys {
                try KeyEnvelope.make(passphrase: passphrase, scrypt: EncryptionWiring.scrypt(environment: context.environment))
            }
            switch try await account.remoteWork({ try await account.envelopes.replace(stored, with: creation.envelope) }) {
            case .replaced: break
            case .changedMeanwhile: throw EncryptionCommandError.changedMeanwhile
            case .gone: throw EncryptionCommandError.off(account: account.name)
            }
            // From here every other device is locked: its key is not in the new envelope.
            try account.keyFile.save(creation.keyring)
            ResealMarker(directory: account.profileDirectory).clear()
            guard try await account.remote.encryption.refresh() == .on, let sealed = try await account.remote.encryption.sealedDatabase() else {
                throw EncryptionCommandError.locked
            }
            let rewriter = RecordRewriter(raw: account.remote.encryption.base, sealed: sealed)
            let libraryZones = EncryptionWiring.zones.filter { $0.zone == LibrarySession.zone }
            let ideaZones = EncryptionWiring.zones.filter { !libraryZones.contains($0) }
            try await account.remoteWork { try await rewriter.removeUnreadable(ideaZones) }
            let sync = try context.openSync(store)
            _ = try await sync.session.overwriteRemote()
            // The library's files go up under the new key before the old key's records go: a
            // device still on the old key reads the removal of a record it can open as a file
            // deleted, and deletes it, while a record under the new key locks it first. Its
            // old records do not open here any more, so the session's remote does not log them.
            try await account.remoteWork {
                try await context.librarySession(store, folder: nil, repository: sync.repository, database: try context.openRemote(store).database)
                    .overwriteRemote()
            }
            try await account.remoteWork { try await rewriter.removeUnreadable(libraryZones) }
            // What the remote holds under the new key, not what this command sent: an app open
            // on this profile syncs with the new key too, and may have sent some of it first.
            let held = try await account.remoteWork {
                var held = (ideas: 0, files: 0)
                for zone in ideaZones { held.ideas += try await rewriter.readableCount(zone) }
                for zone in libraryZones { held.files += try await rewriter.readableCount(zone) }
                return held
            }
            print(EncryptionText.reset(recoveryKey: creation.recoveryKey, ideas: held.ideas, files: held.files, context.language))
        }
    }

    /// `ideabox account encryption disable [--recovery-key]`
    struct Disable: AsyncIdeaBoxSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "disable",
            abstract: .english("Turn encryption off: every record is stored plain again on the remote (asks the passphrase).", chinese: "關閉加密：每筆記錄在遠端恢復為未加密保存（會詢問密語）。"))

        @Flag(name: .customLong("recovery-key"), help: .english("Prove it with the recovery key instead of the passphrase.", chinese: "以復原金鑰證明身分，而不是密語。"))
        var usesRecoveryKey = false
        @OptionGroup var store: StoreOptions

        func run(in context: CommandContext) async throws {
            let account = try EncryptedAccount(context: context, store: store)
            guard let stored = try await account.envelope() else {
                // Turned off on another device, or by a run of this command that stopped after
                // the envelope went: what the key held here still opens is stored plain, then
                // this device lets go of its key, which until now kept it from sending anything plain.
                guard let held = try? account.keyFile.load() else { throw EncryptionCommandError.off(account: account.name) }
                try await account.remoteWork { try await account.rewriter(keyring: held).openEverything(EncryptionWiring.zones) }
                try account.keyFile.remove()
                _ = try? await account.remote.encryption.refresh()
                print(EncryptionText.releasedKey(account: account.name, context.language))
                return
            }
            let keyring = try await account.unlock(stored.envelope, recoveryKey: usesRecoveryKey)
            try account.keyFile.save(keyring)
            guard try await account.remote.encryption.refresh() == .on else { throw EncryptionCommandError.locked }
            // The envelope goes first: from then on the remote takes plain records and no sealed
            // one (`SealingRule`), so a device still sealing is refused, looks again and sends
            // nothing until it lets go of its key. Then every record is opened.
            try await account.remoteWork { try await account.envelopes.remove() }
            let opened = try await account.remoteWork { try await account.rewriter(keyring: keyring).openEverything(EncryptionWiring.zones) }
            try account.keyFile.remove()
            _ = try? await account.remote.encryption.refresh()
            print(EncryptionText.disabled(account: account.name, opened: opened, context.language))
        }
    }
}

/// The signed-in account of a profile, as the encryption commands use it.
struct EncryptedAccount {
    let context: CommandContext
    let remote: RemoteConnection
    let name: String
    let profileDirectory: URL
    let keyFile: AccountKeyFile
    let envelopes: EnvelopeStore
    /// Where refused records go: the profile's sync log.
    let report: EncryptionReport

    /// The account `store`'s profile is signed in to; throws `notSignedIn`.
    init(context: CommandContext, store: StoreOptions) throws {
        self.context = context
        let location = try context.location(store)
        let report = EncryptionReport(repository: try context.openRepository(store), clock: context.clock)
        self.report = report
        remote = try RemoteConnection.open(location, report: report)
        guard let name = try remote.signedInAccount() else { throw EncryptionCommandError.notSignedIn }
        self.name = name
        profileDirectory = location.profileDirectory
        keyFile = AccountKeyFile(directory: location.profileDirectory)
        envelopes = EnvelopeStore(database: remote.encryption.base)
    }

    /// The account's envelope, or nil while encryption is off.
    func envelope() async throws -> EnvelopeStore.Stored? {
        try await remoteWork { try await envelopes.fetch() }
    }

    /// The passphrase or the recovery key, read from the person.
    func secret(recoveryKey: Bool) async throws -> KeyEnvelope.Secret {
        if recoveryKey {
            let text = try await SecretPrompt.read(.recoveryKey, context.language)
            return .recoveryKey(try Self.keys { try RecoveryKey(text: text) })
        }
        return .passphrase(try await SecretPrompt.read(.passphrase, context.language))
    }

    /// The keyring of `envelope`, unlocked with what the person types.
    func unlock(_ envelope: KeyEnvelope, recoveryKey: Bool) async throws -> AccountKeyring {
        let secret = try await secret(recoveryKey: recoveryKey)
        return try Self.keys { try envelope.unlock(with: secret) }
    }

    /// Seals every record not yet sealed with the current key; returns how many.
    func sealEverything() async throws -> Int {
        guard try await remote.encryption.refresh() == .on, let sealed = try await remote.encryption.sealedDatabase() else {
            throw EncryptionCommandError.locked
        }
        return try await remoteWork { try await RecordRewriter(raw: remote.encryption.base, sealed: sealed).sealEverything(EncryptionWiring.zones) }
    }

    /// A rewriter of the account's records with `keyring`, whatever the envelope says now.
    func rewriter(keyring: AccountKeyring) -> RecordRewriter {
        let encryption = remote.encryption
        let sealer = RecordSealer(keyring: keyring, containerID: EncryptionWiring.containerID, hiddenNameZones: EncryptionWiring.hiddenNameZones)
        let report = report
        return RecordRewriter(
            raw: encryption.base, sealed: SealedDatabase(base: encryption.sealedBase, sealer: sealer, report: { report.refused($0) }))
    }

    /// Runs `work`, a key operation, its error said in the person's language.
    static func keys<Result>(_ work: () throws -> Result) throws -> Result {
        do {
            return try work()
        } catch let error as AccountEncryptionError {
            throw EncryptionCommandError.key(error)
        }
    }

    /// Runs `work` against the remote, its errors said in the person's language.
    @discardableResult
    func remoteWork<Result>(_ work: () async throws -> Result) async throws -> Result {
        do {
            return try await work()
        } catch let error as CloudError {
            throw EncryptionCommandError.remote(error)
        } catch let error as AccountEncryptionError {
            throw EncryptionCommandError.key(error)
        } catch is AccountLocked {
            throw EncryptionCommandError.locked
        }
    }
}
