import CloudKitModel
import Crypto
import Foundation

/// Seals records and assets under an account's keyring, and opens them back.
///
/// A sealed record keeps (outside hidden-name zones) its record name, and its record type
/// behind a prefix (`SealedIdea` for an `Idea`), so that a device of a release before
/// encryption never takes it for one of its own: it skips it as an unknown type when it
/// fetches, never lists it (so an old device's "overwrite the remote" neither learns its
/// change tag nor deletes it), and its saves under the plain type meet a change tag it cannot
/// have, a conflict it cannot read, and stay queued on that device. Every field goes into one
/// `BYTES` field, `sealed`:
///
/// ```
/// format=1 (1)  key id (8)  nonce (12)  ciphertext  tag (16)      ChaCha20-Poly1305
/// ```
///
/// sealing `SealedPayload` (the plain record name and the fields) under the key's records
/// subkey, with associated data binding the container, the zone, the remote record name,
/// the record type and the key id: a value swapped between records, moved to another zone or
/// container, or retyped does not open. (A server can still serve an older sealed version of
/// the same record; the sync order, inside the seal, is what refuses it.) A record that names
/// assets also carries their (ciphertext) references in clear in `sealedAssets`, so that the
/// remote keeps them and does not collect them as unnamed.
///
/// In a hidden-name zone (the library's, whose record names are `sha256(path)`) the remote
/// name is `hmacName(plainName)`: HMAC-SHA256 under a subkey of the keyring's name key, in
/// hex, so a server cannot confirm a guessed path; the plain name travels inside the seal.
///
/// Assets are sealed whole: `format=1 key id nonce ciphertext tag`, associated data the
/// container and the key id (the asset's reference is inside the sealed record that names
/// it, so it cannot be swapped). The remote's checksum is then of the ciphertext.
public struct RecordSealer: Sendable {
    /// The field holding the sealed value.
    public static let sealedField = SealingRule.sealedField
    /// The field listing, in clear, the assets a sealed record names.
    public static let assetsField = "sealedAssets"
    /// The format byte this release writes.
    public static let formatVersion: UInt8 = 1
    /// What sealing adds to a record's or an asset's bytes: format, key id, nonce and tag.
    public static let overhead = 1 + AccountKeyID.byteCount + 12 + 16
    /// What a sealed record's type starts with, before the plain type.
    public static let sealedTypePrefix = "Sealed"

    /// The record type the remote knows a sealed record of `plainType` by.
    public static func sealedType(of plainType: String) -> String {
        sealedTypePrefix + plainType
    }

    /// The keys.
    public let keyring: AccountKeyring
    /// The container every seal is bound to: the same on every device of the account.
    public let containerID: String
    /// The zones whose record names are hidden.
    public let hiddenNameZones: Set<RecordZoneID>
    private let random: RandomBytes
    private let recordKeys: [AccountKeyID: SendableKey]
    private let assetKeys: [AccountKeyID: SendableKey]
    private let nameKey: SendableKey

    /// A sealer with `keyring`, binding every seal to `containerID` and hiding the record
    /// names of `hiddenNameZones`.
    public init(keyring: AccountKeyring, containerID: String, hiddenNameZones: Set<RecordZoneID>, random: RandomBytes = .system) {
        self.keyring = keyring
        self.containerID = containerID
        self.hiddenNameZones = hiddenNameZones
        self.random = random
        let keys = [keyring.current] + keyring.earlier
        recordKeys = Dictionary(keys.map { ($0.id, SendableKey($0.subkey(Purpose.records))) }, uniquingKeysWith: { first, _ in first })
        assetKeys = Dictionary(keys.map { ($0.id, SendableKey($0.subkey(Purpose.assets))) }, uniquingKeysWith: { first, _ in first })
        nameKey = SendableKey(
            HKDF<SHA256>.deriveKey(inputKeyMaterial: keyring.nameKey.key, info: Data(Purpose.recordNames.utf8), outputByteCount: 32))
    }

    // MARK: Names

    /// The id the remote knows `plainID` by: the same outside hidden-name zones, the HMAC
    /// name inside them.
    public func remoteRecordID(for plainID: RecordID) -> RecordID {
        guard hiddenNameZones.contains(plainID.zoneID) else { return plainID }
        return RecordID(recordName: hmacName(plainID.recordName, in: plainID.zoneID), zoneID: plainID.zoneID)
    }

    /// The hidden name of `plainName` in `zone`: 64 lower-case hex digits.
    public func hmacName(_ plainName: String, in zone: RecordZoneID) -> String {
        var message = ByteWriter()
        message.put(short: Array(zone.zoneName.utf8))
        message.put(Array(plainName.utf8))
        return AccountKeyID.hex(HMAC<SHA256>.authenticationCode(for: message.bytes, using: nameKey.key))
    }

    // MARK: Records

    /// `record` sealed with the current key, under its remote id and sealed type; its change
    /// tag and server times are kept. Its plain name must be at most 1024 bytes.
    public func seal(_ record: RemoteRecord) -> RemoteRecord {
        let remoteID = remoteRecordID(for: record.recordID)
        let remoteType = Self.sealedType(of: record.recordType)
        let key = keyring.current
        let payload = SealedPayload.encode(name: record.recordID.recordName, fields: record.fields)
        let nonce = try! ChaChaPoly.Nonce(data: random.bytes(12))
        let box = try! ChaChaPoly.seal(
            payload, using: recordKeys[key.id]!.key, nonce: nonce,
            authenticating: recordContext(remoteID, type: remoteType, key: key.id))
        var blob = Data(capacity: Self.overhead + payload.count)
        blob.append(Self.formatVersion)
        blob.append(contentsOf: key.id.bytes)
        blob.append(box.combined)
        var fields: [String: FieldValue] = [Self.sealedField: .bytes(blob)]
        let assets = record.fields.values.flatMap(\.assetReferences)
        if !assets.isEmpty { fields[Self.assetsField] = .list(assets.map(FieldValue.asset)) }
        return RemoteRecord(
            recordType: remoteType, recordID: remoteID, fields: fields, changeTag: record.changeTag,
            creationDate: record.creationDate, modificationDate: record.modificationDate)
    }

    /// The plain record `sealed` holds, under its plain id, with the remote's change tag and
    /// times; throws an `OpenFailure` if it is not sealed, sealed with an unknown key, or
    /// does not verify here (its zone, name, type and container).
    public func open(_ sealed: RemoteRecord) throws(OpenFailure) -> RemoteRecord {
        let subject = OpenFailure.Subject.record(sealed.recordID, recordType: sealed.recordType)
        guard sealed.recordType.hasPrefix(Self.sealedTypePrefix), case .bytes(let blob)? = sealed.fields[Self.sealedField] else {
            throw OpenFailure(subject, .notSealed)
        }
        let plainType = String(sealed.recordType.dropFirst(Self.sealedTypePrefix.count))
        let (keyID, box) = try parse(blob, subject)
        guard let key = recordKeys[keyID] else { throw OpenFailure(subject, .unknownKey(keyID)) }
        guard let payload = try? ChaChaPoly.open(
            box, using: key.key, authenticating: recordContext(sealed.recordID, type: sealed.recordType, key: keyID))
        else { throw OpenFailure(subject, .sealBroken) }
        let plain: (name: String, fields: [String: FieldValue])
        do {
            plain = try SealedPayload.decode(Array(payload))
        } catch {
            throw OpenFailure(subject, .malformed(error.reason))
        }
        let plainID = RecordID(recordName: plain.name, zoneID: sealed.recordID.zoneID)
        guard remoteRecordID(for: plainID) == sealed.recordID else { throw OpenFailure(subject, .nameMismatch) }
        return RemoteRecord(
            recordType: plainType, recordID: plainID, fields: plain.fields, changeTag: sealed.changeTag,
            creationDate: sealed.creationDate, modificationDate: sealed.modificationDate)
    }

    /// The id of the key `record`'s sealed value names, or nil if it holds none.
    public func keyID(of record: RemoteRecord) -> AccountKeyID? {
        guard case .bytes(let blob)? = record.fields[Self.sealedField], blob.count >= Self.overhead,
              blob.first == Self.formatVersion
        else { return nil }
        let start = blob.startIndex + 1
        return AccountKeyID(bytes: blob[start..<(start + AccountKeyID.byteCount)])
    }

    // MARK: Assets

    /// `data` sealed with the current key, to upload in its place.
    public func sealAsset(_ data: Data) -> Data {
        let key = keyring.current
        let nonce = try! ChaChaPoly.Nonce(data: random.bytes(12))
        let box = try! ChaChaPoly.seal(data, using: assetKeys[key.id]!.key, nonce: nonce, authenticating: assetContext(key.id))
        var blob = Data(capacity: Self.overhead + data.count)
        blob.append(Self.formatVersion)
        blob.append(contentsOf: key.id.bytes)
        blob.append(box.combined)
        return blob
    }

    /// The plain bytes of a sealed asset (`reference` names it in a failure).
    public func openAsset(_ blob: Data, reference: AssetReference) throws(OpenFailure) -> Data {
        let subject = OpenFailure.Subject.asset(reference)
        let (keyID, box) = try parse(blob, subject)
        guard let key = assetKeys[keyID] else { throw OpenFailure(subject, .unknownKey(keyID)) }
        guard let data = try? ChaChaPoly.open(box, using: key.key, authenticating: assetContext(keyID)) else {
            throw OpenFailure(subject, .sealBroken)
        }
        return data
    }

    // MARK: Inside

    private func parse(_ blob: Data, _ subject: OpenFailure.Subject) throws(OpenFailure) -> (AccountKeyID, ChaChaPoly.SealedBox) {
        guard let format = blob.first else { throw OpenFailure(subject, .malformed("the sealed value is empty")) }
        guard format == Self.formatVersion else { throw OpenFailure(subject, .unknownFormat(format)) }
        guard blob.count >= Self.overhead else { throw OpenFailure(subject, .sealBroken) }
        let start = blob.startIndex
        let keyID = AccountKeyID(bytes: blob[(start + 1)..<(start + 1 + AccountKeyID.byteCount)])!
        guard let box = try? ChaChaPoly.SealedBox(combined: blob[(start + 1 + AccountKeyID.byteCount)...]) else {
            throw OpenFailure(subject, .sealBroken)
        }
        return (keyID, box)
    }

    private func recordContext(_ remoteID: RecordID, type: String, key: AccountKeyID) -> [UInt8] {
        var writer = ByteWriter(capacity: 160)
        writer.put(short: Array("IdeaBox sealed record v1".utf8))
        writer.put(short: Array(containerID.utf8))
        writer.put(short: Array(remoteID.zoneID.zoneName.utf8))
        writer.put(short: Array(remoteID.recordName.utf8))
        writer.put(short: Array(type.utf8))
        writer.put(key.bytes)
        return writer.bytes
    }

    private func assetContext(_ key: AccountKeyID) -> [UInt8] {
        var writer = ByteWriter(capacity: 80)
        writer.put(short: Array("IdeaBox sealed asset v1".utf8))
        writer.put(short: Array(containerID.utf8))
        writer.put(key.bytes)
        return writer.bytes
    }
}
