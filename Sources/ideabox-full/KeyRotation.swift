import AccountEncryption
import CloudKitModel
import Foundation
import IdeaBoxFoundation
import IdeaSync

/// `reseal` in a profile's folder: this device changed the account's key (`rotate`,
/// `reset`) and some record on the remote may still be sealed with an earlier key. Every
/// sync of this profile then seals such records again (`ResealCompanion`), and the file goes
/// once none is left. Records sealed with an earlier key stay readable meanwhile: the
/// keyring keeps the earlier keys.
struct ResealMarker: Sendable {
    /// The file.
    let url: URL

    /// The marker of the profile in `directory`.
    init(directory: URL) {
        url = directory.appendingPathComponent("reseal")
    }

    /// Whether records may still wait to be sealed again.
    var isSet: Bool { FileManager.default.fileExists(atPath: url.path) }

    /// Records that records wait to be sealed again with `key`.
    func set(for key: AccountKeyID) throws {
        try Data("\(key.hex)\n".utf8).write(to: url, options: .atomic)
        OwnerOnly.narrow(path: url.path)
    }

    /// Every record is sealed with the current key.
    func clear() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Seals again, with the account's current key, every record an earlier key sealed, after
/// this device rotated or reset the key: the sync engine runs it after the ideas, in the
/// remote's batches, and retries it the way it retries the ideas when the network or the
/// server fails. A record another device saves meanwhile is read again, never overwritten
/// (`RecordRewriter`). Nothing to do, nothing asked of the remote, unless `ResealMarker` is set.
struct ResealCompanion: SyncCompanion {
    /// The account's encryption as of each sync: a sign-in made meanwhile brings a new token.
    let encryption: @Sendable () -> EncryptedDatabase
    let marker: ResealMarker

    var name: String { "keys" }

    /// The ideas' zone: a change there wakes it too (it does nothing without the marker).
    var zone: RecordZoneID { SyncSession.zone }

    func sync() async throws {
        guard marker.isSet else { return }
        try await Self.reseal(encryption: encryption(), marker: marker)
    }

    func pendingCount() -> Int? { nil }

    func overwriteRemote() async throws {}

    /// Seals again what an earlier key sealed, if the device is unlocked; clears `marker`
    /// once done. Returns how many records were sealed, nil if the device is not unlocked.
    @discardableResult
    static func reseal(encryption: EncryptedDatabase, marker: ResealMarker) async throws -> Int? {
        guard let sealed = try await encryption.sealedDatabase() else { return nil }
        let count = try await RecordRewriter(raw: encryption.base, sealed: sealed).sealEverything(EncryptionWiring.zones)
        marker.clear()
        return count
    }

    /// `reseal` for `ideabox sync`: if the profile in `profileDirectory` is marked, its
    /// failure said in the person's language.
    static func resealIfMarked(encryption: EncryptedDatabase, profileDirectory: URL) async throws {
        let marker = ResealMarker(directory: profileDirectory)
        guard marker.isSet else { return }
        do {
            try await reseal(encryption: encryption, marker: marker)
        } catch let error as CloudError {
            throw EncryptionCommandError.remote(error)
        } catch is AccountLocked {
            throw EncryptionCommandError.locked
        }
    }
}
