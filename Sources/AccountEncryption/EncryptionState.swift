/// Whether an account's records are sealed, and whether this device can open them.
public enum EncryptionState: String, Hashable, Sendable, Codable {
    /// The account has no key envelope: records travel plain.
    case off
    /// The account is encrypted and this device holds its key.
    case on
    /// The account is encrypted and this device holds no key for it: nothing is synced.
    case locked
}
