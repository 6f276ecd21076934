import AccountEncryption
import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaStore
import IdeaSync
import LibrarySync

/// How this executable sets up an account's encryption: the container every seal is bound
/// to, the zones it rewrites, the library's hidden names, and the profile's files.
enum EncryptionWiring {
    /// The container every seal is bound to: the product's, on every device and for the
    /// embedded remote too, whatever container name a server was reached by (the legacy
    /// name reaches the same data, so it must open the same seals).
    static let containerID = ProductContainer.id

    /// The zones of an account's records, with their types: ideas and library files.
    static let zones = [
        RecordRewriter.Zone(SyncSession.zone, recordType: SyncSession.recordType),
        RecordRewriter.Zone(LibrarySession.zone, recordType: LibrarySession.recordType),
    ]

    /// The zones whose record names are hidden: the library's (`sha256(path)` would confirm a guessed path).
    static let hiddenNameZones: Set<RecordZoneID> = [LibrarySession.zone]

    /// The remote `base` as the account's encryption and the profile's key file make it.
    static func database(
        base: any CloudDatabase, sealedBase: (any CloudDatabase)?, profileDirectory: URL, report: EncryptionReport
    ) -> EncryptedDatabase {
        let stateFile = EncryptionStateFile(directory: profileDirectory)
        let library = profileDirectory.appendingPathComponent("RawLibrary", isDirectory: true)
        return EncryptedDatabase(
            base: base, sealedBase: sealedBase, keyFile: AccountKeyFile(directory: profileDirectory), containerID: containerID,
            hiddenNameZones: hiddenNameZones,
            plainNames: { _ in ((try? LibraryManifest.load(from: library))?.files.values.map(\.recordName)) ?? [] },
            report: { report.refused($0) }, onState: { stateFile.write($0) })
    }

    /// The scrypt cost of a new passphrase: the standard one, or a fast one for tests when
    /// `IDEABOX_TEST_SCRYPT=fast` (test-only: it makes a passphrase far cheaper to guess).
    static func scrypt(environment: [String: String]) -> ScryptParameters {
        environment["IDEABOX_TEST_SCRYPT"] == "fast" ? ScryptParameters(logN: 10, blockSize: 8, parallelism: 1)! : .standard
    }
}

/// Where the refusals of sealed records go: one line each in the profile's sync log.
struct EncryptionReport: Sendable {
    /// The profile's database, or nil to drop them (a command that only looks).
    let repository: IdeaRepository?
    let clock: WallClock

    /// A report that drops every refusal.
    static let silent = EncryptionReport(repository: nil, clock: .system)

    /// Logs `failure` as a warning, in both languages.
    func refused(_ failure: OpenFailure) {
        try? repository?.logSyncEvent(
            .warning, english: EncryptionText.refused(failure, .english), chinese: EncryptionText.refused(failure, .traditionalChinese),
            at: clock.now())
    }
}

/// `encryption` in a profile's folder: what the last look at the account found (`on`,
/// `locked` or `off`), so that `ideabox status` says it without asking the remote.
struct EncryptionStateFile: Sendable {
    /// The file.
    let url: URL

    /// The file of the profile in `directory`.
    init(directory: URL) {
        url = directory.appendingPathComponent("encryption")
    }

    /// Records `state` if it is not what the file says.
    func write(_ state: EncryptionState) {
        guard read() != state else { return }
        try? Data("\(state.rawValue)\n".utf8).write(to: url, options: .atomic)
        OwnerOnly.narrow(path: url.path)
    }

    /// What the last look found, or nil if none was taken.
    func read() -> EncryptionState? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        return EncryptionState(rawValue: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The state to show: the last look's, corrected by the key file (an unlock or a key
    /// removed since then).
    func current(keyFile: AccountKeyFile) -> EncryptionState {
        switch (read(), keyFile.exists) {
        case (.locked?, true), (.on?, true), (nil, true): .on
        case (.on?, false), (.locked?, false): .locked
        case (.off?, _), (nil, false): .off
        }
    }
}
