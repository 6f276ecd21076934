/// Thrown by `EncryptedDatabase` for every request while the account is encrypted and this
/// device holds no key for it: nothing is sent or fetched until `ideabox account unlock`.
public struct AccountLocked: Error, Hashable, Sendable, CustomStringConvertible {
    /// Whether this device holds a key, one the account no longer uses: encryption was
    /// turned off or reset on another device, or the server removed the envelope.
    public let keyHeldHere: Bool

    /// A locked account's error; `keyHeldHere` if this device holds a key the account no
    /// longer uses.
    public init(keyHeldHere: Bool = false) {
        self.keyHeldHere = keyHeldHere
    }

    public var description: String {
        keyHeldHere
            ? "The account no longer uses this device's key: nothing is sent until ideabox account unlock (or ideabox account encryption disable)."
            : "This account's ideas are encrypted and this device is locked: run ideabox account unlock."
    }
}
