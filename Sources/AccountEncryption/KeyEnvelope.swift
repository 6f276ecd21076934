import Crypto
import Foundation

/// An account's keys as the remote stores them: nothing in it opens without the passphrase,
/// the recovery key, or a key a device already holds.
///
/// The layers, from the outside in:
/// - a random key-encryption key (KEK), wrapped twice: by a key scrypt derives from the
///   passphrase (`scrypt`, salt beside it) and by one HKDF derives from the recovery key;
/// - the current account key, wrapped by the KEK;
/// - the name key (`AccountKeyring`), wrapped by the current account key;
/// - each earlier account key, wrapped by the current one, beside a link (the current key
///   wrapped by that earlier key) through which a device holding only an earlier key follows
///   a rotation without the passphrase. Revoke a lost device's token before rotating: with
///   the envelope it could follow the same link.
///
/// So a passphrase change rewraps the KEK (no record, no recovery key changes), a rotation
/// adds a key under the same KEK (the passphrase and the recovery key stay valid), and a
/// device never stores the KEK, only the keyring. Every box is ChaCha20-Poly1305 with
/// associated data naming its slot and key ids (`KeyWrap`). The bytes: `KeyEnvelope+Encoding`.
public struct KeyEnvelope: Hashable, Sendable {
    /// The id of the current account key.
    public let keyID: AccountKeyID
    /// How the passphrase is turned into a key.
    public let scrypt: ScryptParameters
    let passphraseSalt: [UInt8]
    let passphraseBox: [UInt8]
    let recoverySalt: [UInt8]
    let recoveryBox: [UInt8]
    let currentKeyBox: [UInt8]
    let nameKeyBox: [UInt8]
    let earlierKeys: [EarlierKey]

    /// One earlier account key: wrapped by the current key, and the link back.
    struct EarlierKey: Hashable, Sendable {
        var id: AccountKeyID
        /// The earlier key, wrapped by the current key.
        var box: [UInt8]
        /// The current key, wrapped by the earlier key.
        var link: [UInt8]
    }

    /// The size of every salt.
    static let saltSize = 16

    /// The ids of the earlier keys, newest first.
    public var earlierKeyIDs: [AccountKeyID] { earlierKeys.map(\.id) }

    /// What a person unlocks the envelope with.
    public enum Secret: Sendable {
        /// The account's passphrase.
        case passphrase(String)
        /// The recovery key shown when encryption was turned on.
        case recoveryKey(RecoveryKey)
    }

    /// A new account's envelope, its keyring and its recovery key (to show once).
    public struct Creation: Sendable {
        /// What goes on the remote.
        public let envelope: KeyEnvelope
        /// What this device keeps.
        public let keyring: AccountKeyring
        /// What the person writes down; stored nowhere.
        public let recoveryKey: RecoveryKey
    }

    /// Makes a new account key, name key and recovery key, and the envelope that wraps them
    /// under `passphrase`. One scrypt derivation (about half a second with `.standard`).
    public static func make(
        passphrase: String, scrypt: ScryptParameters = .standard, random: RandomBytes = .system
    ) throws(AccountEncryptionError) -> Creation {
        let kek = random.bytes(32)
        let key = AccountKey.random(using: random)
        let nameKey = random.bytes(32)
        let recoveryKey = RecoveryKey.random(using: random)
        let (passphraseSalt, passphraseBox) = try passphraseSlot(kek, passphrase: passphrase, scrypt: scrypt, random: random)
        let recoverySalt = random.bytes(saltSize)
        let envelope = KeyEnvelope(
            keyID: key.id, scrypt: scrypt, passphraseSalt: passphraseSalt, passphraseBox: passphraseBox,
            recoverySalt: recoverySalt,
            recoveryBox: KeyWrap.seal(
                kek, with: recoveryKey.wrappingKey(salt: recoverySalt), context: KeyWrap.context("recovery", recoverySalt),
                random: random),
            currentKeyBox: KeyWrap.seal(key.secretBytes, with: SymmetricKey(data: kek), context: currentContext(key.id), random: random),
            nameKeyBox: KeyWrap.seal(nameKey, with: key.subkey(Purpose.nameKeyWrap), context: nameContext(key.id), random: random),
            earlierKeys: [])
        let keyring = AccountKeyring(current: key, earlier: [], nameKey: SendableKey(bytes: nameKey))
        return Creation(envelope: envelope, keyring: keyring, recoveryKey: recoveryKey)
    }

    /// The keyring, unlocked with the passphrase or the recovery key. Throws
    /// `wrongPassphrase` or `wrongRecoveryKey` (one sentence, nothing changed), or
    /// `unreadableEnvelope` if the envelope's inner boxes were altered.
    public func unlock(with secret: Secret) throws(AccountEncryptionError) -> AccountKeyring {
        try keyring(kek: try keyEncryptionKey(secret))
    }

    /// The keyring of the envelope, for a device that holds `keyring` (this envelope's, or
    /// one from before a rotation): the current key is the same or reached through the link
    /// of an earlier key the device holds. Throws `keysNotInEnvelope` when neither.
    public func follow(from keyring: AccountKeyring) throws(AccountEncryptionError) -> AccountKeyring {
        if let current = keyring.key(keyID) { return try self.keyring(current: current) }
        for earlier in earlierKeys {
            guard let held = keyring.key(earlier.id) else { continue }
            guard let secret = KeyWrap.open(
                earlier.link, with: held.subkey(Purpose.successorLink), context: Self.linkContext(from: earlier.id, to: keyID)),
                let current = AccountKey(id: keyID, secret: SymmetricKey(data: secret))
            else { throw .unreadableEnvelope(reason: "the link from key \(earlier.id) does not open") }
            return try self.keyring(current: current)
        }
        throw .keysNotInEnvelope
    }

    /// The same envelope under `newPassphrase` (new salt, `scrypt`), unlocked with `secret`:
    /// the account key, the recovery key and every record stay as they are.
    public func rewrapped(
        unlockingWith secret: Secret, newPassphrase: String, scrypt: ScryptParameters = .standard, random: RandomBytes = .system
    ) throws(AccountEncryptionError) -> KeyEnvelope {
        let kek = try keyEncryptionKey(secret)
        let (salt, box) = try Self.passphraseSlot(kek, passphrase: newPassphrase, scrypt: scrypt, random: random)
        return KeyEnvelope(
            keyID: keyID, scrypt: scrypt, passphraseSalt: salt, passphraseBox: box, recoverySalt: recoverySalt,
            recoveryBox: recoveryBox, currentKeyBox: currentKeyBox, nameKeyBox: nameKeyBox, earlierKeys: earlierKeys)
    }

    /// The envelope with a new current account key, unlocked with `secret`: the old current
    /// key joins the earlier keys (records it sealed stay readable until sealed again), and
    /// the passphrase and recovery key stay valid. Throws `tooManyEarlierKeys` when the
    /// envelope already keeps `AccountKeyring.maximumEarlierKeys`.
    public func rotated(
        unlockingWith secret: Secret, random: RandomBytes = .system
    ) throws(AccountEncryptionError) -> (envelope: KeyEnvelope, keyring: AccountKeyring) {
        let kek = try keyEncryptionKey(secret)
        let old = try keyring(kek: kek)
        guard old.earlier.count < AccountKeyring.maximumEarlierKeys else { throw .tooManyEarlierKeys }
        let key = AccountKey.random(using: random)
        let earlier = [old.current] + old.earlier
        let envelope = KeyEnvelope(
            keyID: key.id, scrypt: scrypt, passphraseSalt: passphraseSalt, passphraseBox: passphraseBox,
            recoverySalt: recoverySalt, recoveryBox: recoveryBox,
            currentKeyBox: KeyWrap.seal(key.secretBytes, with: SymmetricKey(data: kek), context: Self.currentContext(key.id), random: random),
            nameKeyBox: KeyWrap.seal(
                old.nameKey.bytes, with: key.subkey(Purpose.nameKeyWrap), context: Self.nameContext(key.id),
                random: random),
            earlierKeys: earlier.map { earlierKey in
                EarlierKey(
                    id: earlierKey.id,
                    box: KeyWrap.seal(
                        earlierKey.secretBytes, with: key.subkey(Purpose.earlierKeyWrap),
                        context: Self.earlierContext(earlierKey.id, under: key.id), random: random),
                    link: KeyWrap.seal(
                        key.secretBytes, with: earlierKey.subkey(Purpose.successorLink),
                        context: Self.linkContext(from: earlierKey.id, to: key.id), random: random))
            })
        return (envelope, AccountKeyring(current: key, earlier: earlier, nameKey: old.nameKey))
    }

    // MARK: Inside

    private func keyEncryptionKey(_ secret: Secret) throws(AccountEncryptionError) -> [UInt8] {
        switch secret {
        case .passphrase(let passphrase):
            let derived: SymmetricKey
            do {
                derived = try scrypt.deriveKey(passphrase: Self.normalized(passphrase), salt: passphraseSalt)
            } catch {
                // The envelope's parameters are bounded when it is read: they fail only when
                // their memory cannot be had.
                throw .keyDerivationFailed
            }
            guard let kek = KeyWrap.open(passphraseBox, with: derived, context: Self.passphraseContext(scrypt, passphraseSalt)) else {
                throw .wrongPassphrase
            }
            return kek
        case .recoveryKey(let recoveryKey):
            guard let kek = KeyWrap.open(
                recoveryBox, with: recoveryKey.wrappingKey(salt: recoverySalt), context: KeyWrap.context("recovery", recoverySalt))
            else { throw .wrongRecoveryKey }
            return kek
        }
    }

    private func keyring(kek: [UInt8]) throws(AccountEncryptionError) -> AccountKeyring {
        guard let secret = KeyWrap.open(currentKeyBox, with: SymmetricKey(data: kek), context: Self.currentContext(keyID)),
              let current = AccountKey(id: keyID, secret: SymmetricKey(data: secret))
        else { throw .unreadableEnvelope(reason: "its current key does not open") }
        return try keyring(current: current)
    }

    private func keyring(current: AccountKey) throws(AccountEncryptionError) -> AccountKeyring {
        guard let nameKey = KeyWrap.open(nameKeyBox, with: current.subkey(Purpose.nameKeyWrap), context: Self.nameContext(keyID)) else {
            throw .unreadableEnvelope(reason: "its name key does not open")
        }
        var earlier: [AccountKey] = []
        for entry in earlierKeys {
            guard let secret = KeyWrap.open(
                entry.box, with: current.subkey(Purpose.earlierKeyWrap), context: Self.earlierContext(entry.id, under: keyID))
            else { throw .unreadableEnvelope(reason: "its earlier key \(entry.id) does not open") }
            earlier.append(AccountKey(id: entry.id, secret: SymmetricKey(data: secret))!)
        }
        return AccountKeyring(current: current, earlier: earlier, nameKey: SendableKey(bytes: nameKey))
    }

    private static func passphraseSlot(
        _ kek: [UInt8], passphrase: String, scrypt: ScryptParameters, random: RandomBytes
    ) throws(AccountEncryptionError) -> (salt: [UInt8], box: [UInt8]) {
        guard !passphrase.allSatisfy(\.isWhitespace) else { throw .emptyPassphrase }
        let salt = random.bytes(saltSize)
        let derived: SymmetricKey
        do {
            derived = try scrypt.deriveKey(passphrase: normalized(passphrase), salt: salt)
        } catch {
            // Bounded parameters fail only when their memory cannot be had.
            throw .keyDerivationFailed
        }
        return (salt, KeyWrap.seal(kek, with: derived, context: passphraseContext(scrypt, salt), random: random))
    }

    /// The passphrase's bytes in Unicode's composed form (NFC), so that the same words typed
    /// on two systems that compose accents or Hangul differently give the same key.
    static func normalized(_ passphrase: String) -> [UInt8] {
        Array(passphrase.precomposedStringWithCanonicalMapping.utf8)
    }

    static func passphraseContext(_ scrypt: ScryptParameters, _ salt: [UInt8]) -> [UInt8] {
        KeyWrap.context("passphrase", [1, scrypt.logN, scrypt.blockSize, scrypt.parallelism], salt)
    }

    static func currentContext(_ id: AccountKeyID) -> [UInt8] { KeyWrap.context("current key", id.bytes) }
    static func nameContext(_ id: AccountKeyID) -> [UInt8] { KeyWrap.context("name key", id.bytes) }
    static func earlierContext(_ id: AccountKeyID, under current: AccountKeyID) -> [UInt8] {
        KeyWrap.context("earlier key", id.bytes, current.bytes)
    }
    static func linkContext(from earlier: AccountKeyID, to current: AccountKeyID) -> [UInt8] {
        KeyWrap.context("successor link", earlier.bytes, current.bytes)
    }
}

/// The HKDF `info` of each subkey of an account key: one key, one purpose.
enum Purpose {
    static let records = "IdeaBox sealed records v1"
    static let assets = "IdeaBox sealed assets v1"
    static let nameKeyWrap = "IdeaBox name key wrap v1"
    static let earlierKeyWrap = "IdeaBox earlier keys wrap v1"
    static let successorLink = "IdeaBox successor link v1"
    static let recordNames = "IdeaBox record names v1"
}
