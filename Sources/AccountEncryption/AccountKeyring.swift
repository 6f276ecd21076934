import Crypto
import Foundation

/// What an unlocked device holds: the account's current key (which seals), its earlier keys
/// (which still open records sealed before a rotation), and the name key (which names the
/// records of hidden-name zones; made once per account and kept over rotations, so that a
/// rotation renames no record).
///
/// The device keeps it in an owner-only file of its profile (`serialized()`), as ssh keeps a
/// private key: whoever holds the device holds the keys.
public struct AccountKeyring: Sendable, Equatable, CustomStringConvertible {
    /// The most earlier keys an envelope remembers.
    public static let maximumEarlierKeys = 64

    /// The key that seals every record from now on.
    public let current: AccountKey
    /// Earlier keys, newest first: they only open.
    public let earlier: [AccountKey]
    /// The secret behind record names of hidden-name zones.
    let nameKey: SendableKey

    init(current: AccountKey, earlier: [AccountKey], nameKey: SendableKey) {
        self.current = current
        self.earlier = earlier
        self.nameKey = nameKey
    }

    /// The key named `id`, current or earlier; nil if this keyring has none.
    public func key(_ id: AccountKeyID) -> AccountKey? {
        id == current.id ? current : earlier.first { $0.id == id }
    }

    /// The ids of every key, current first.
    public var keyIDs: [AccountKeyID] { [current.id] + earlier.map(\.id) }

    /// The key ids only.
    public var description: String { "keyring (current \(current.id), \(earlier.count) earlier)" }

    // MARK: The device's key file

    private static let magic = Array("IBKR".utf8)
    private static let version: UInt8 = 1

    /// The keyring as the device stores it: `IBKR`, version 1, the name key (32 bytes), the
    /// number of keys (current first), and each key's id (8) and secret (32).
    public func serialized() -> Data {
        var writer = ByteWriter(capacity: 46 + 40 * (earlier.count + 1))
        writer.put(Self.magic)
        writer.put(Self.version)
        writer.put(nameKey.bytes)
        writer.put(UInt8(earlier.count + 1))
        for key in [current] + earlier {
            writer.put(key.id.bytes)
            writer.put(key.secretBytes)
        }
        return Data(writer.bytes)
    }

    /// The keyring `data` holds, as `serialized()` wrote it; throws `unreadableKeyring`.
    public init(serialized data: Data) throws(AccountEncryptionError) {
        var reader = ByteReader(data)
        do throws(ByteReader.Malformed) {
            guard try Array(reader.take(4, "the file's mark")) == Self.magic else {
                throw ByteReader.Malformed(reason: "it is not an IdeaBox key file")
            }
            let version = try reader.byte("the version")
            guard version == Self.version else { throw ByteReader.Malformed(reason: "it is of unknown version \(version)") }
            let nameKey = SendableKey(bytes: try reader.take(32, "the name key"))
            let count = Int(try reader.byte("the key count"))
            guard (1...(Self.maximumEarlierKeys + 1)).contains(count) else { throw ByteReader.Malformed(reason: "it holds \(count) keys") }
            var keys: [AccountKey] = []
            for _ in 0..<count {
                let id = AccountKeyID(bytes: try reader.take(AccountKeyID.byteCount, "a key id"))!
                keys.append(AccountKey(id: id, secret: SymmetricKey(data: try reader.take(AccountKey.byteCount, "a key")))!)
            }
            try reader.finish("the key file")
            self.init(current: keys[0], earlier: Array(keys.dropFirst()), nameKey: nameKey)
        } catch {
            throw .unreadableKeyring(reason: error.reason)
        }
    }
}
