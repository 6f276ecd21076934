import AccountEncryption
import CloudKitModel
import Foundation
import Testing

@Suite("EnvelopeStore")
struct EnvelopeStoreTests {
    @Test("An account without an envelope has encryption off")
    func none() async throws {
        let (_, database) = try EncryptionFixture.remote()
        #expect(try await EnvelopeStore(database: database).fetch() == nil)
    }

    @Test("Two devices enabling at once: the first publishes, the second learns the first's envelope")
    func twoDevicesEnabling() async throws {
        let (cloud, first) = try EncryptionFixture.remote()
        let second = cloud.database(forDevice: "device-b")
        let mine = try EncryptionFixture.creation(seed: 1)
        let theirs = try EncryptionFixture.creation(seed: 2)
        guard case .published(let stored) = try await EnvelopeStore(database: first).publish(mine.envelope) else {
            Issue.record("the first device did not publish")
            return
        }
        #expect(stored.changeTag != nil)
        guard case .alreadyEnabled(let existing) = try await EnvelopeStore(database: second).publish(theirs.envelope) else {
            Issue.record("the second device published over the first")
            return
        }
        #expect(existing.envelope == mine.envelope)
        #expect(try existing.envelope.unlock(with: .passphrase(EncryptionFixture.passphrase)) == mine.keyring)
        #expect(try await EnvelopeStore(database: second).fetch()?.envelope == mine.envelope)
    }

    @Test("A rewrapped envelope replaces the one it was read from; a stale one is told what changed")
    func replace() async throws {
        let (_, database) = try EncryptionFixture.remote()
        let store = EnvelopeStore(database: database)
        let made = try EncryptionFixture.creation()
        _ = try await store.publish(made.envelope)
        let read = try #require(try await store.fetch())
        let rewrapped = try made.envelope.rewrapped(
            unlockingWith: .passphrase(EncryptionFixture.passphrase), newPassphrase: "next", scrypt: EncryptionFixture.fastScrypt,
            random: .seeded(3))
        guard case .replaced = try await store.replace(read, with: rewrapped) else {
            Issue.record("not replaced")
            return
        }
        let rotated = try made.envelope.rotated(unlockingWith: .recoveryKey(made.recoveryKey), random: .seeded(4)).envelope
        guard case .changedMeanwhile(let current) = try await store.replace(read, with: rotated) else {
            Issue.record("a stale replace went through")
            return
        }
        #expect(current.envelope == rewrapped)
        try await store.remove()
        #expect(try await store.fetch() == nil)
        try await store.remove()
    }

    @Test("An envelope record with a foreign type or unreadable bytes is refused")
    func foreignRecord() throws {
        var record = EnvelopeRecord.record(for: try EncryptionFixture.creation().envelope)
        record.recordType = "Idea"
        #expect(throws: AccountEncryptionError.self) { try EnvelopeRecord.envelope(from: record) }
        let garbage = RemoteRecord(
            recordType: EnvelopeRecord.recordType, recordID: EnvelopeRecord.recordID, fields: [EnvelopeRecord.field: .bytes(Data([1, 2, 3]))])
        #expect(throws: AccountEncryptionError.unreadableEnvelope(reason: "it is not an IdeaBox key envelope")) {
            try EnvelopeRecord.envelope(from: garbage)
        }
    }
}
