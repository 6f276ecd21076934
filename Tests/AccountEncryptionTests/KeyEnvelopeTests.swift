import AccountEncryption
import Foundation
import Testing

@Suite("KeyEnvelope")
struct KeyEnvelopeTests {
    @Test("An envelope encodes and decodes to itself, and the passphrase unlocks the keyring it was made with")
    func roundTrip() throws {
        let made = try EncryptionFixture.creation()
        let decoded = try KeyEnvelope(encoded: made.envelope.encoded())
        #expect(decoded == made.envelope)
        #expect(decoded.keyID == made.keyring.current.id)
        #expect(try decoded.unlock(with: .passphrase(EncryptionFixture.passphrase)) == made.keyring)
        #expect(made.envelope.encoded().count == 290)
    }

    @Test("The same seed makes the same envelope; another seed another key")
    func deterministic() throws {
        #expect(try EncryptionFixture.creation(seed: 5).envelope == EncryptionFixture.creation(seed: 5).envelope)
        #expect(try EncryptionFixture.creation(seed: 5).keyring.current != EncryptionFixture.creation(seed: 6).keyring.current)
    }

    @Test("A wrong passphrase is one sentence and unlocks nothing")
    func wrongPassphrase() throws {
        let made = try EncryptionFixture.creation()
        #expect(throws: AccountEncryptionError.wrongPassphrase) {
            try made.envelope.unlock(with: .passphrase("correct horse battery staple"))
        }
        #expect(AccountEncryptionError.wrongPassphrase.description == "This passphrase does not unlock the account's key.")
    }

    @Test("An empty passphrase is refused", arguments: ["", "   ", "\n"])
    func emptyPassphrase(passphrase: String) {
        #expect(throws: AccountEncryptionError.emptyPassphrase) {
            try KeyEnvelope.make(passphrase: passphrase, scrypt: EncryptionFixture.fastScrypt, random: .seeded(1))
        }
    }

    @Test("A passphrase unlocks whichever way its accents were composed")
    func normalization() throws {
        let made = try KeyEnvelope.make(passphrase: "caf\u{E9} 咖啡", scrypt: EncryptionFixture.fastScrypt, random: .seeded(2))
        #expect(try made.envelope.unlock(with: .passphrase("cafe\u{301} 咖啡")) == made.keyring)
    }

    @Test("The recovery key unlocks; another account's does not")
    func recoveryKey() throws {
        let made = try EncryptionFixture.creation()
        let other = try EncryptionFixture.creation(seed: 9)
        #expect(try made.envelope.unlock(with: .recoveryKey(RecoveryKey(text: made.recoveryKey.text))) == made.keyring)
        #expect(throws: AccountEncryptionError.wrongRecoveryKey) {
            try made.envelope.unlock(with: .recoveryKey(other.recoveryKey))
        }
    }

    @Test("A new passphrase keeps the account key and the recovery key; the old passphrase stops working")
    func rewrap() throws {
        let made = try EncryptionFixture.creation()
        let rewrapped = try made.envelope.rewrapped(
            unlockingWith: .passphrase(EncryptionFixture.passphrase), newPassphrase: "新的 passphrase",
            scrypt: EncryptionFixture.fastScrypt, random: .seeded(4))
        #expect(try rewrapped.unlock(with: .passphrase("新的 passphrase")) == made.keyring)
        #expect(try rewrapped.unlock(with: .recoveryKey(made.recoveryKey)) == made.keyring)
        #expect(throws: AccountEncryptionError.wrongPassphrase) {
            try rewrapped.unlock(with: .passphrase(EncryptionFixture.passphrase))
        }
    }

    @Test("A forgotten passphrase: the recovery key sets a new one")
    func rewrapWithRecoveryKey() throws {
        let made = try EncryptionFixture.creation()
        let rewrapped = try made.envelope.rewrapped(
            unlockingWith: .recoveryKey(made.recoveryKey), newPassphrase: "another one", scrypt: EncryptionFixture.fastScrypt,
            random: .seeded(4))
        #expect(try rewrapped.unlock(with: .passphrase("another one")) == made.keyring)
    }

    @Test("A rotation adds a current key, keeps the old one as earlier, and keeps the passphrase and recovery key")
    func rotation() throws {
        let made = try EncryptionFixture.creation()
        let (rotated, keyring) = try made.envelope.rotated(unlockingWith: .passphrase(EncryptionFixture.passphrase), random: .seeded(11))
        #expect(keyring.current.id != made.keyring.current.id)
        #expect(keyring.earlier == [made.keyring.current])
        #expect(rotated.earlierKeyIDs == [made.keyring.current.id])
        let decoded = try KeyEnvelope(encoded: rotated.encoded())
        #expect(try decoded.unlock(with: .passphrase(EncryptionFixture.passphrase)) == keyring)
        #expect(try decoded.unlock(with: .recoveryKey(made.recoveryKey)) == keyring)
    }

    @Test("A device holding an earlier key follows rotations without the passphrase, two at a time too")
    func follow() throws {
        let made = try EncryptionFixture.creation()
        let secret = KeyEnvelope.Secret.passphrase(EncryptionFixture.passphrase)
        let (once, onceKeyring) = try made.envelope.rotated(unlockingWith: secret, random: .seeded(11))
        let (twice, twiceKeyring) = try once.rotated(unlockingWith: secret, random: .seeded(12))
        #expect(try once.follow(from: made.keyring) == onceKeyring)
        #expect(try twice.follow(from: made.keyring) == twiceKeyring)
        #expect(try twice.follow(from: twiceKeyring) == twiceKeyring)
        #expect(twiceKeyring.earlier.map(\.id) == [onceKeyring.current.id, made.keyring.current.id])
        let stranger = try EncryptionFixture.creation(seed: 40).keyring
        #expect(throws: AccountEncryptionError.keysNotInEnvelope) { try twice.follow(from: stranger) }
    }

    @Test("A rotation past the limit of earlier keys is refused")
    func rotationLimit() throws {
        var envelope = try EncryptionFixture.creation().envelope
        let secret = KeyEnvelope.Secret.passphrase(EncryptionFixture.passphrase)
        for seed in 0..<UInt64(64) { envelope = try envelope.rotated(unlockingWith: secret, random: .seeded(100 + seed)).envelope }
        #expect(envelope.encoded().count == KeyEnvelope.maximumEncodedSize)
        #expect(try KeyEnvelope(encoded: envelope.encoded()) == envelope)
        #expect(throws: AccountEncryptionError.tooManyEarlierKeys) { try envelope.rotated(unlockingWith: secret, random: .seeded(1)) }
    }

    // MARK: Hostile bytes

    @Test("Every truncation of an envelope is refused, never a crash")
    func truncated() throws {
        let bytes = try rotatedEnvelope().encoded()
        for length in 0..<bytes.count {
            #expect(throws: AccountEncryptionError.self) { try KeyEnvelope(encoded: bytes.prefix(length)) }
        }
    }

    @Test("A trailing byte, another mark, an unknown version, an unknown KDF are refused")
    func refusedHeaders() throws {
        let bytes = try EncryptionFixture.creation().envelope.encoded()
        #expect(throws: AccountEncryptionError.unreadableEnvelope(reason: "1 bytes follow the end of the envelope")) {
            try KeyEnvelope(encoded: bytes + [0])
        }
        #expect(throws: AccountEncryptionError.unreadableEnvelope(reason: "it is not an IdeaBox key envelope")) {
            try KeyEnvelope(encoded: Data("IBKX".utf8) + bytes.dropFirst(4))
        }
        #expect(throws: AccountEncryptionError.unsupportedEnvelopeVersion(2)) { try KeyEnvelope(encoded: patched(bytes, at: 4, to: 2)) }
        #expect(throws: AccountEncryptionError.unreadableEnvelope(reason: "its KDF 2 is unknown")) {
            try KeyEnvelope(encoded: patched(bytes, at: 13, to: 2))
        }
    }

    @Test("scrypt parameters that would take gigabytes or minutes are refused before any derivation", arguments: [
        (UInt8(30), UInt8(8), UInt8(1)), (UInt8(20), UInt8(32), UInt8(1)), (UInt8(16), UInt8(8), UInt8(255)), (UInt8(0), UInt8(8), UInt8(1)),
        (UInt8(16), UInt8(0), UInt8(1)),
    ])
    func hugeScrypt(logN: UInt8, r: UInt8, p: UInt8) throws {
        var bytes = Array(try EncryptionFixture.creation().envelope.encoded())
        bytes[14] = logN
        bytes[15] = r
        bytes[16] = p
        #expect(throws: AccountEncryptionError.unreadableEnvelope(reason: "its scrypt parameters (logN \(logN), r \(r), p \(p)) are out of bounds")) {
            try KeyEnvelope(encoded: Data(bytes))
        }
    }

    @Test("An earlier-key count over the limit, a repeated key id and an oversized envelope are refused")
    func refusedCounts() throws {
        let bytes = try EncryptionFixture.creation().envelope.encoded()
        #expect(throws: AccountEncryptionError.unreadableEnvelope(reason: "it names 255 earlier keys, more than 64")) {
            try KeyEnvelope(encoded: patched(bytes, at: bytes.count - 1, to: 255))
        }
        let rotated = Array(try rotatedEnvelope().encoded())
        var repeated = rotated
        repeated.replaceSubrange(290..<298, with: rotated[5..<13])  // the earlier key's id := the current one's
        #expect(throws: AccountEncryptionError.self) { try KeyEnvelope(encoded: Data(repeated)) }
        #expect(throws: AccountEncryptionError.self) { try KeyEnvelope(encoded: Data(count: 1 << 20)) }
    }

    @Test("A flipped byte anywhere in an envelope is refused or fails to unlock one way, never a crash")
    func flippedBytes() throws {
        let made = try EncryptionFixture.creation()
        let bytes = made.envelope.encoded()
        for index in bytes.indices {
            guard let envelope = try? KeyEnvelope(encoded: patched(bytes, at: index, to: bytes[index] ^ 0x01)) else { continue }
            let byPassphrase = try? envelope.unlock(with: .passphrase(EncryptionFixture.passphrase))
            let byRecoveryKey = try? envelope.unlock(with: .recoveryKey(made.recoveryKey))
            #expect(byPassphrase == nil || byRecoveryKey == nil, "byte \(index)")
        }
    }

    private func rotatedEnvelope() throws -> KeyEnvelope {
        try EncryptionFixture.creation().envelope.rotated(unlockingWith: .passphrase(EncryptionFixture.passphrase), random: .seeded(3)).envelope
    }

    private func patched(_ bytes: Data, at index: Int, to value: UInt8) -> Data {
        var copy = bytes
        copy[copy.startIndex + index] = value
        return copy
    }
}
