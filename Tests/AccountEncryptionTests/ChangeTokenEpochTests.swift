import AccountEncryption
import CloudKitModel
import Foundation
import Testing

/// Change tokens are bound to the state they were read in: a change of the account's
/// encryption or of the device's key makes the stored token expire, so the device fetches
/// everything again under the new state; a record under a key the device lacks sends it to
/// the envelope first.
@Suite("Change tokens and the encryption state")
struct ChangeTokenEpochTests {
    private let folders = [try! Self.folder(), try! Self.folder()]
    private let refusals = RefusalLog()

    private func device(_ index: Int, over remote: any CloudDatabase) -> (EncryptedDatabase, AccountKeyFile) {
        let keyFile = AccountKeyFile(directory: folders[index])
        return (
            EncryptedDatabase(
                base: remote, keyFile: keyFile, containerID: EncryptionFixture.container, random: .seeded(UInt64(40 + index)),
                report: refusals.sink),
            keyFile)
    }

    @Test func aTokenReadWhilePlainExpiresOnceSealedAndOneReadWhileSealedOncePlain() async throws {
        defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
        let (_, remote) = try EncryptionFixture.remote()
        let (database, keyFile) = device(0, over: remote)
        #expect(try await database.refresh() == .off)
        try await database.createZone(EncryptionFixture.ideas)
        _ = try await database.modify(saving: [EncryptionFixture.idea("a", title: "plain")], deleting: [], savePolicy: .allKeys)
        let plainToken = try await database.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 10).token
        #expect(try await database.fetchChanges(in: EncryptionFixture.ideas, since: plainToken, resultsLimit: 10).changed.isEmpty)

        let made = try EncryptionFixture.creation()
        _ = try await EnvelopeStore(database: remote).publish(made.envelope)
        try keyFile.save(made.keyring)
        #expect(try await database.refresh() == .on)
        await #expect(throws: CloudError.changeTokenExpired) {
            try await database.fetchChanges(in: EncryptionFixture.ideas, since: plainToken, resultsLimit: 10)
        }
        _ = try await database.modify(saving: [EncryptionFixture.idea("b", title: "sealed")], deleting: [], savePolicy: .allKeys)
        let sealedToken = try await database.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 10).token
        #expect(try await database.fetchChanges(in: EncryptionFixture.ideas, since: sealedToken, resultsLimit: 10).changed.isEmpty)

        try await EnvelopeStore(database: remote).remove()
        try keyFile.remove()
        #expect(try await database.refresh() == .off)
        await #expect(throws: CloudError.changeTokenExpired) {
            try await database.fetchChanges(in: EncryptionFixture.ideas, since: sealedToken, resultsLimit: 10)
        }
    }

    @Test func aRecordUnderANewKeyMakesTheDeviceFollowTheEnvelopeAndFetchEverythingAgain() async throws {
        defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
        let (_, remote) = try EncryptionFixture.remote()
        let made = try EncryptionFixture.creation()
        let envelopes = EnvelopeStore(database: remote)
        guard case .published(let stored) = try await envelopes.publish(made.envelope) else { Issue.record("not published"); return }
        let (rotating, rotatingKeys) = device(0, over: remote)
        let (other, otherKeys) = device(1, over: remote)
        try rotatingKeys.save(made.keyring)
        try otherKeys.save(made.keyring)
        #expect(try await rotating.refresh() == .on)
        #expect(try await other.refresh() == .on)
        try await rotating.createZone(EncryptionFixture.ideas)
        _ = try await rotating.modify(saving: [EncryptionFixture.idea("a", title: "under the first key")], deleting: [], savePolicy: .allKeys)
        let token = try await other.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 10).token

        // The first device rotates and writes under the new key; the other has not looked since.
        let rotated = try made.envelope.rotated(unlockingWith: .passphrase(EncryptionFixture.passphrase), random: .seeded(9))
        guard case .replaced = try await envelopes.replace(stored, with: rotated.envelope) else { Issue.record("not replaced"); return }
        try rotatingKeys.save(rotated.keyring)
        #expect(try await rotating.refresh() == .on)
        _ = try await rotating.modify(saving: [EncryptionFixture.idea("b", title: "under the new key")], deleting: [], savePolicy: .allKeys)

        await #expect(throws: CloudError.changeTokenExpired) { try await other.fetchChanges(in: EncryptionFixture.ideas, since: token, resultsLimit: 10) }
        #expect(try otherKeys.load() == rotated.keyring, "the other device followed the envelope")
        let again = try await other.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 10)
        #expect(Set(again.changed.map { $0["title"] }) == [.string("under the first key"), .string("under the new key")])
        #expect(refusals.failures.isEmpty)
    }

    @Test func aRecordUnderAKeyNowhereToBeFoundIsRefusedOnceAndTheRestArrives() async throws {
        defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
        let (_, remote) = try EncryptionFixture.remote()
        let made = try EncryptionFixture.creation()
        _ = try await EnvelopeStore(database: remote).publish(made.envelope)
        let (database, keyFile) = device(0, over: remote)
        try keyFile.save(made.keyring)
        #expect(try await database.refresh() == .on)
        try await database.createZone(EncryptionFixture.ideas)
        _ = try await database.modify(saving: [EncryptionFixture.idea("a", title: "readable")], deleting: [], savePolicy: .allKeys)
        let stranger = EncryptionFixture.sealer(try EncryptionFixture.creation(seed: 5).keyring)
        _ = try await remote.modify(saving: [stranger.seal(EncryptionFixture.idea("b", title: "unreadable"))], deleting: [], savePolicy: .allKeys)

        let changes = try await database.fetchChanges(in: EncryptionFixture.ideas, since: nil, resultsLimit: 10)
        #expect(changes.changed.map { $0["title"] } == [.string("readable")])
        #expect(refusals.failures.count == 1)
        #expect(refusals.failures.first.map { if case .unknownKey = $0.reason { true } else { false } } == true)
        #expect(try keyFile.load() == made.keyring)
        #expect(try await database.fetchChanges(in: EncryptionFixture.ideas, since: changes.token, resultsLimit: 10).changed.isEmpty)
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("token-epoch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
