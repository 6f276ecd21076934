import Foundation

/// The envelope's bytes (version 1), big-endian, every part of fixed size or counted:
///
/// ```
/// "IBKE"  version=1  current key id (8)
/// kdf=1 (scrypt)  logN  r  p  passphrase salt (16)  passphrase box (60)
/// recovery salt (16)  recovery box (60)
/// current key box (60)  name key box (60)
/// earlier count (1, at most 64), each: id (8)  box (60)  link (60)
/// ```
///
/// Read strictly: another mark, an unknown version or KDF, scrypt parameters out of bounds,
/// a count over the limit, a repeated key id, a short read or a trailing byte is refused.
extension KeyEnvelope {
    private static let magic = Array("IBKE".utf8)
    /// The format version this release writes and reads.
    public static let formatVersion: UInt8 = 1
    private static let scryptKDF: UInt8 = 1
    /// The largest envelope this version writes (64 earlier keys).
    public static let maximumEncodedSize = 13 + 4 + 16 + 60 + 16 + 60 + 60 + 60 + 1 + AccountKeyring.maximumEarlierKeys * 128

    /// The envelope's bytes.
    public func encoded() -> Data {
        var writer = ByteWriter(capacity: 350 + 128 * earlierKeys.count)
        writer.put(Self.magic)
        writer.put(Self.formatVersion)
        writer.put(keyID.bytes)
        writer.put(Self.scryptKDF)
        writer.put([scrypt.logN, scrypt.blockSize, scrypt.parallelism])
        writer.put(passphraseSalt)
        writer.put(passphraseBox)
        writer.put(recoverySalt)
        writer.put(recoveryBox)
        writer.put(currentKeyBox)
        writer.put(nameKeyBox)
        writer.put(UInt8(earlierKeys.count))
        for earlier in earlierKeys {
            writer.put(earlier.id.bytes)
            writer.put(earlier.box)
            writer.put(earlier.link)
        }
        return Data(writer.bytes)
    }

    /// The envelope `data` holds; throws `unsupportedEnvelopeVersion` for a later version
    /// and `unreadableEnvelope` for anything else it refuses (see the type's documentation).
    public init(encoded data: Data) throws(AccountEncryptionError) {
        guard data.count <= Self.maximumEncodedSize else {
            throw .unreadableEnvelope(reason: "it is \(data.count) bytes, more than the \(Self.maximumEncodedSize) an envelope can be")
        }
        var reader = ByteReader(data)
        let bytes = Array(data)
        guard bytes.count >= 5, Array(bytes[0..<4]) == Self.magic else {
            throw .unreadableEnvelope(reason: "it is not an IdeaBox key envelope")
        }
        guard bytes[4] == Self.formatVersion else { throw .unsupportedEnvelopeVersion(bytes[4]) }
        do throws(ByteReader.Malformed) {
            _ = try reader.take(5, "the mark and version")
            let keyID = AccountKeyID(bytes: try reader.take(AccountKeyID.byteCount, "the key id"))!
            let kdf = try reader.byte("the KDF")
            guard kdf == Self.scryptKDF else { throw ByteReader.Malformed(reason: "its KDF \(kdf) is unknown") }
            let (logN, r, p) = (try reader.byte("scrypt's N"), try reader.byte("scrypt's r"), try reader.byte("scrypt's p"))
            guard let scrypt = ScryptParameters(logN: logN, blockSize: r, parallelism: p) else {
                throw ByteReader.Malformed(reason: "its scrypt parameters (logN \(logN), r \(r), p \(p)) are out of bounds")
            }
            let passphraseSalt = Array(try reader.take(Self.saltSize, "the passphrase salt"))
            let passphraseBox = Array(try reader.take(KeyWrap.boxSize, "the passphrase box"))
            let recoverySalt = Array(try reader.take(Self.saltSize, "the recovery salt"))
            let recoveryBox = Array(try reader.take(KeyWrap.boxSize, "the recovery box"))
            let currentKeyBox = Array(try reader.take(KeyWrap.boxSize, "the current key box"))
            let nameKeyBox = Array(try reader.take(KeyWrap.boxSize, "the name key box"))
            let count = Int(try reader.byte("the earlier key count"))
            guard count <= AccountKeyring.maximumEarlierKeys else {
                throw ByteReader.Malformed(reason: "it names \(count) earlier keys, more than \(AccountKeyring.maximumEarlierKeys)")
            }
            var earlierKeys: [EarlierKey] = []
            var seen: Set<AccountKeyID> = [keyID]
            for _ in 0..<count {
                let id = AccountKeyID(bytes: try reader.take(AccountKeyID.byteCount, "an earlier key id"))!
                guard seen.insert(id).inserted else { throw ByteReader.Malformed(reason: "it names key \(id) twice") }
                earlierKeys.append(EarlierKey(
                    id: id, box: Array(try reader.take(KeyWrap.boxSize, "an earlier key box")),
                    link: Array(try reader.take(KeyWrap.boxSize, "an earlier key link"))))
            }
            try reader.finish("the envelope")
            self.init(
                keyID: keyID, scrypt: scrypt, passphraseSalt: passphraseSalt, passphraseBox: passphraseBox, recoverySalt: recoverySalt,
                recoveryBox: recoveryBox, currentKeyBox: currentKeyBox, nameKeyBox: nameKeyBox, earlierKeys: earlierKeys)
        } catch {
            throw .unreadableEnvelope(reason: error.reason)
        }
    }
}
