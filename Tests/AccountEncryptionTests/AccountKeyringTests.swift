import AccountEncryption
import Foundation
import Testing

@Suite("AccountKeyring")
struct AccountKeyringTests {
    @Test("A keyring is stored and read back, earlier keys included, and its description shows ids only")
    func roundTrip() throws {
        let made = try EncryptionFixture.creation()
        let (_, keyring) = try made.envelope.rotated(unlockingWith: .recoveryKey(made.recoveryKey), random: .seeded(8))
        let stored = keyring.serialized()
        #expect(stored.count == 4 + 1 + 32 + 1 + 2 * 40)
        #expect(try AccountKeyring(serialized: stored) == keyring)
        #expect(keyring.key(made.keyring.current.id) == made.keyring.current)
        #expect(keyring.description == "keyring (current \(keyring.current.id), 1 earlier)")
    }

    @Test("A truncated, extended or foreign key file is refused")
    func hostile() throws {
        let stored = try EncryptionFixture.creation().keyring.serialized()
        for length in 0..<stored.count {
            #expect(throws: AccountEncryptionError.self) { try AccountKeyring(serialized: stored.prefix(length)) }
        }
        #expect(throws: AccountEncryptionError.unreadableKeyring(reason: "1 bytes follow the end of the key file")) {
            try AccountKeyring(serialized: stored + [1])
        }
        var later = stored
        later[4] = 2
        #expect(throws: AccountEncryptionError.unreadableKeyring(reason: "it is of unknown version 2")) {
            try AccountKeyring(serialized: later)
        }
    }
}
