import Crypto

/// A `SymmetricKey` that may cross threads. swift-crypto 3.12 does not mark `SymmetricKey`
/// Sendable on Linux, yet it is immutable once made (its bytes are never written after its
/// initializer), so sharing one is safe.
struct SendableKey: @unchecked Sendable, Equatable {
    let key: SymmetricKey

    init(_ key: SymmetricKey) {
        self.key = key
    }

    init(bytes: some Collection<UInt8>) {
        key = SymmetricKey(data: Array(bytes))
    }

    /// The key's bytes, to wrap or store it.
    var bytes: [UInt8] { key.withUnsafeBytes { Array($0) } }
}
