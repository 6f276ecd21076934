/// Why a key operation failed, as a typed value: the layer that talks to the person (the
/// command line, the app) turns each case into one sentence in their language; the English
/// `description` is that sentence for logs and tests. No case carries a secret.
public enum AccountEncryptionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The passphrase does not unwrap the account's key (or the envelope's passphrase slot
    /// was altered: the two can't be told apart). Nothing changed.
    case wrongPassphrase
    /// The recovery key is well formed but does not unwrap the account's key. Nothing changed.
    case wrongRecoveryKey
    /// The text is not a recovery key: a character is mistyped, missing or extra (the check
    /// characters caught it before any key was tried).
    case notARecoveryKey
    /// A new passphrase is empty (or only spaces).
    case emptyPassphrase
    /// The envelope's bytes are not one this version can read; `reason` says what is wrong.
    case unreadableEnvelope(reason: String)
    /// The envelope is of a later format `version`, made by a newer IdeaBox.
    case unsupportedEnvelopeVersion(UInt8)
    /// The device's keys are not in the envelope (it was reset, or rotated more often than
    /// its earlier keys remember): the passphrase or the recovery key unlocks it again.
    case keysNotInEnvelope
    /// The envelope already remembers `AccountKeyring.maximumEarlierKeys` earlier keys; a
    /// reset (every record sealed again under a new key) makes room.
    case tooManyEarlierKeys
    /// The device's own key file can't be read; `reason` says what is wrong.
    case unreadableKeyring(reason: String)
    /// scrypt could not derive the passphrase's key (its memory could not be had).
    case keyDerivationFailed

    public var description: String {
        switch self {
        case .wrongPassphrase: "This passphrase does not unlock the account's key."
        case .wrongRecoveryKey: "This recovery key does not unlock the account's key."
        case .notARecoveryKey: "This is not a recovery key: a character is mistyped, missing or extra."
        case .emptyPassphrase: "The passphrase is empty."
        case let .unreadableEnvelope(reason): "The account's key envelope cannot be read: \(reason)."
        case let .unsupportedEnvelopeVersion(version):
            "The account's key envelope is of version \(version), which this IdeaBox does not know: update IdeaBox."
        case .keysNotInEnvelope: "This device's keys are no longer in the account's key envelope: unlock it with the passphrase or the recovery key."
        case .tooManyEarlierKeys: "The account already keeps \(AccountKeyring.maximumEarlierKeys) earlier keys: reset its encryption instead of rotating."
        case let .unreadableKeyring(reason): "This device's key file cannot be read: \(reason)."
        case .keyDerivationFailed: "The passphrase's key could not be derived (too little memory?); nothing changed."
        }
    }
}
