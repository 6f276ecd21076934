import CloudKitModel
import Crypto
import Foundation

/// The keys that make the sync tokens and change tags a server hands out opaque: a token or
/// tag names its zone by a keyed hash of the zone's row id, never the row id itself, so one
/// account learns nothing from them of how many zones or records other accounts made, or when.
///
/// Derived from the store's `serverSecret` with HKDF-SHA256, one key per use (`zoneTokenInfo`,
/// `changeTagInfo`), so every server process over one store makes and reads the same ones.
/// - A zone's token: `z2`, the HMAC-SHA256 of the zone's row id (32 bytes), then the change
///   sequence it covers (8 bytes, big-endian): the zone's own count of changes, nothing more.
/// - A change tag: the first 16 bytes of the HMAC-SHA256 of the row id and the sequence, in
///   base64url (22 characters); a zone deleted and made anew has a new row id, so its tags
///   never match the old zone's.
public struct PositionKeys: Sendable {
    /// What the token key is derived for.
    public static let zoneTokenInfo = "ideabox zone token v2"
    /// What the change tag key is derived for.
    public static let changeTagInfo = "ideabox change tag v2"
    /// What a token of this form starts with.
    static let tokenPrefix = Data("z2".utf8)

    /// The keyed hashers, made once: each use starts from a copy (swift-crypto's HMAC is a
    /// value whose hash states copy on write), so no key is set up per token or tag.
    private let hashers: Hashers

    /// The keys of a store whose secret is `serverSecret`.
    public init(serverSecret: Data) {
        let secret = SymmetricKey(data: serverSecret)
        func hasher(_ info: String) -> HMAC<SHA256> {
            HMAC(key: HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data(info.utf8), outputByteCount: 32))
        }
        hashers = Hashers(zoneToken: hasher(Self.zoneTokenInfo), changeTag: hasher(Self.changeTagInfo))
    }

    /// The token a device is given for `position`.
    public func token(_ position: ZonePosition) -> ChangeToken {
        ChangeToken(data: Self.tokenPrefix + Data(zoneCode(position.zoneRowID)) + Self.bigEndian(position.sequence))
    }

    /// The change tag of the save at `position`.
    public func changeTag(_ position: ZonePosition) -> String {
        var hasher = hashers.changeTag
        withUnsafeBytes(of: (position.zoneRowID.bigEndian, position.sequence.bigEndian)) { hasher.update(data: $0) }
        return hasher.finalize().withUnsafeBytes { Self.base64URL($0.prefix(16)) }
    }

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` in base64url without padding, as `base64EncodedString` with `+`, `/` and `=`
    /// replaced would spell them, written directly (the replacing cost more than the hash).
    static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var bits: UInt32 = 0
        var count = 0
        for byte in bytes {
            bits = bits << 8 | UInt32(byte)
            count += 8
            while count >= 6 {
                count -= 6
                text.append(base64URLAlphabet[Int(bits >> UInt32(count) & 63)])
            }
        }
        if count > 0 { text.append(base64URLAlphabet[Int(bits << UInt32(6 - count) & 63)]) }
        return String(decoding: text, as: UTF8.self)
    }

    /// The sequence `token` stands for in the zone `zoneRowID`, whose history the server
    /// still holds over `history` (purged through, latest change). A token of the release
    /// before (`ZonePosition(releaseBeforeToken:)`) is read too. Throws `changeTokenExpired`
    /// for a token of another zone (or an earlier zone of this name), of history since
    /// purged, or not made by this server.
    public func sequence(of token: ChangeToken, zoneRowID: Int64, history: ClosedRange<Int64>) throws -> Int64 {
        let position: ZonePosition? = if let earlier = ZonePosition(releaseBeforeToken: token) {
            earlier
        } else if token.data.count == Self.tokenPrefix.count + 32 + 8, token.data.starts(with: Self.tokenPrefix),
                  zoneCode(zoneRowID) == token.data.dropFirst(Self.tokenPrefix.count).prefix(32) {
            ZonePosition(zoneRowID: zoneRowID, sequence: token.data.suffix(8).reduce(0) { $0 << 8 | Int64($1) })
        } else {
            nil
        }
        guard let position, position.zoneRowID == zoneRowID, history.contains(position.sequence) else {
            throw CloudError.changeTokenExpired
        }
        return position.sequence
    }

    /// The zone's name in its tokens: the HMAC of its row id.
    private func zoneCode(_ zoneRowID: Int64) -> HashedAuthenticationCode<SHA256> {
        var hasher = hashers.zoneToken
        hasher.update(data: Self.bigEndian(zoneRowID))
        return hasher.finalize()
    }

    private static func bigEndian(_ value: Int64) -> Data {
        withUnsafeBytes(of: value.bigEndian) { Data($0) }
    }
}

/// The two keyed hashers of `PositionKeys`. Never changed after they are made, and each use
/// works on a copy, so sharing them between threads is safe.
private final class Hashers: @unchecked Sendable {
    let zoneToken: HMAC<SHA256>
    let changeTag: HMAC<SHA256>

    init(zoneToken: HMAC<SHA256>, changeTag: HMAC<SHA256>) {
        self.zoneToken = zoneToken
        self.changeTag = changeTag
    }
}
