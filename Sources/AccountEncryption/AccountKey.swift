import Crypto
import Foundation

/// One account key: 256 random bits that seal every record of an account, and the id that
/// names them. Made once per account (and once per rotation); it never leaves a device
/// unwrapped, and never reaches a log (its description shows the id only).
public struct AccountKey: Sendable, Equatable, CustomStringConvertible {
    /// The number of bytes of the secret.
    public static let byteCount = 32

    /// The key's name, in clear in every blob it seals.
    public let id: AccountKeyID
    private let stored: SendableKey

    /// The key with `id` and `secret`; nil unless the secret is `byteCount` bytes.
    public init?(id: AccountKeyID, secret: SymmetricKey) {
        guard secret.bitCount == Self.byteCount * 8 else { return nil }
        self.id = id
        stored = SendableKey(secret)
    }

    /// The secret.
    public var secret: SymmetricKey { stored.key }

    /// A new random key with a new random id.
    public static func random(using random: RandomBytes = .system) -> AccountKey {
        AccountKey(id: .random(using: random), secret: SymmetricKey(data: random.bytes(byteCount)))!
    }

    /// The key's id only: the secret never reaches a log or an error message.
    public var description: String { "account key \(id)" }

    /// The secret's bytes, for wrapping it.
    var secretBytes: [UInt8] { stored.bytes }

    /// A subkey for `purpose` (HKDF-SHA256 with no salt and the purpose as info), so that the
    /// record-sealing key, the name key and the key wrapping earlier keys are never one key.
    func subkey(_ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data(purpose.utf8), outputByteCount: 32)
    }
}
