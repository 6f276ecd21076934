/// Thrown by `EncryptedDatabase` for every request while the account is encrypted and this
/// device holds no key for it: nothing is sent or fetched until `ideabox account unlock`.
public struct AccountLocked: Error, Hashable, Sendable, CustomStringConvertible {
    /// A locked account's error.
    public init() {}

    public var description: String { "This account's ideas are encrypted and this device is locked: run ideabox account unlock." }
}
