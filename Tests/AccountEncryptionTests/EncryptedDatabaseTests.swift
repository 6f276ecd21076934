import AccountEncryption
import CloudKitModel
import Foundation
import Testing

/// The remote as an account's encryption makes it: plain without an envelope, closed while
/// the device holds no key, sealed once it does, and following a rotation by itself.
@Suite struct EncryptedDatabaseTests {
    @Test func plainWithoutAnEnvelopeClosedWhileLockedSealedOnceUnlocked() async throws {
        let (_, remote) = try EncryptionFixture.remote()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = AccountKeyFile(directory: folder)
        let database = EncryptedDatabase(base: remote, keyFile: keyFile, containerID: EncryptionFixture.container)
        try await database.createZone(EncryptionFixture.ideas)
        #expect(try await database.refresh() == .off)

        let made = try EncryptionFixture.creation()
        _ = try await EnvelopeStore(database: remote).publish(made.envelope)
        // The last look holds until the remote says otherwise: it refuses the plain save, the
        // device looks again and is locked.
        #expect(try await database.state() == .off)
        await #expect(throws: AccountLocked.self) {
            try await database.modify(saving: [EncryptionFixture.idea("a", title: "Zanzibar")], deleting: [], savePolicy: .allKeys)
        }
        #expect(try await database.state() == .locked)
        await #expect(throws: AccountLocked.self) { try await database.accountStatus() }
        await #expect(throws: AccountLocked.self) { try await database.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 10) }
        #expect(try await remote.records(in: EncryptionFixture.ideas, ofType: "Idea").isEmpty, "a locked device sent nothing")
        #expect(try await remote.records(in: EncryptionFixture.ideas, ofType: "SealedIdea").isEmpty, "a locked device sent nothing")

        try keyFile.save(made.keyring)
        #expect(try await database.refresh() == .on)
        _ = try await database.modify(saving: [EncryptionFixture.idea("a", title: "Zanzibar")], deleting: [], savePolicy: .allKeys)
        let stored = try #require(try await remote.records(in: EncryptionFixture.ideas, ofType: "SealedIdea").first)
        #expect(try await remote.records(in: EncryptionFixture.ideas, ofType: "Idea").isEmpty)
        #expect(Set(stored.fields.keys) == [RecordSealer.sealedField])
        #expect(try await database.records(in: EncryptionFixture.ideas, ofType: "Idea").first?.fields["title"] == .string("Zanzibar"))
    }

    @Test func aDeviceFollowsARotationWithTheKeysItHolds() async throws {
        let (_, remote) = try EncryptionFixture.remote()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = AccountKeyFile(directory: folder)
        let made = try EncryptionFixture.creation()
        let envelopes = EnvelopeStore(database: remote)
        guard case .published(let stored) = try await envelopes.publish(made.envelope) else { Issue.record("not published"); return }
        try keyFile.save(made.keyring)
        let rotated = try made.envelope.rotated(unlockingWith: .passphrase(EncryptionFixture.passphrase), random: .seeded(9))
        guard case .replaced = try await envelopes.replace(stored, with: rotated.envelope) else { Issue.record("not replaced"); return }

        let database = EncryptedDatabase(base: remote, keyFile: keyFile, containerID: EncryptionFixture.container)
        #expect(try await database.refresh() == .on)
        #expect(try keyFile.load() == rotated.keyring, "the key file holds the new key")
    }

    /// A server that removes the envelope (to be sent plain records) gets nothing: a device
    /// that holds the account's key stays closed until its own `disable` lets go of the key.
    @Test func aServerThatRemovesTheEnvelopeIsSentNothingPlain() async throws {
        let (_, remote) = try EncryptionFixture.remote()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = AccountKeyFile(directory: folder)
        let made = try EncryptionFixture.creation()
        _ = try await EnvelopeStore(database: remote).publish(made.envelope)
        try keyFile.save(made.keyring)
        let database = EncryptedDatabase(base: remote, keyFile: keyFile, containerID: EncryptionFixture.container)
        try await database.createZone(EncryptionFixture.ideas)
        #expect(try await database.refresh() == .on)

        try await EnvelopeStore(database: remote).remove()
        // The remote refuses the sealed save (the envelope is gone): the device looks again,
        // and holding a key the account no longer has, it sends nothing.
        await #expect(throws: AccountLocked(keyHeldHere: true)) {
            try await database.modify(saving: [EncryptionFixture.idea("a", title: "Zanzibar")], deleting: [], savePolicy: .allKeys)
        }
        await #expect(throws: AccountLocked.self) { try await database.accountStatus() }
        #expect(try await remote.records(in: EncryptionFixture.ideas, ofType: "Idea").isEmpty, "nothing was sent, plain or sealed")
        #expect(try await remote.records(in: EncryptionFixture.ideas, ofType: "SealedIdea").isEmpty, "nothing was sent, plain or sealed")

        try keyFile.remove()
        #expect(try await database.refresh() == .off)
    }

    @Test func theKeyFileIsTheOwnersAlone() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = AccountKeyFile(directory: folder)
        try keyFile.save(try EncryptionFixture.creation().keyring)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyFile.url.path)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600)
        try keyFile.remove()
        #expect(try keyFile.load() == nil)
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("encrypted-db-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
